"""Evidence of a run: bundle.json (the data), report.md and timeline.svg (two views of it)."""

from __future__ import annotations

from harness.evidence.bundle import (
    SCHEMA_VERSION,
    Evidence,
    read_bundle,
    redact,
    schema,
    schema_errors,
    to_json,
    write_bundle,
)

__all__ = [
    "SCHEMA_VERSION",
    "Evidence",
    "read_bundle",
    "redact",
    "schema",
    "schema_errors",
    "to_json",
    "write_bundle",
]
