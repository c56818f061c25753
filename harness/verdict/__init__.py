"""The verdict: one run compared with its catalogue entry, one finding per check."""
