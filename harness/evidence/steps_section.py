"""The report's section on the run's steps and how long each took (on the twin: offsets on
its simulated clock, never dates)."""

from __future__ import annotations

from harness.common.observations import Step
from harness.common.times import duration, format_duration, parse_instant
from harness.evidence.document import Block, Heading, para, table
from harness.evidence.model import Evidence


def steps_section(e: Evidence) -> list[Block]:
    heading = Heading("Steps")
    if not e.steps:
        return [heading, para("No steps were recorded.")]
    if e.simulated:
        return [heading, *_simulated_steps(e)]
    rows = (
        (s.name, s.start, s.end, format_duration(duration(s.start, s.end)), s.detail)
        for s in e.steps
    )
    return [heading, table(("Step", "Start", "End", "Took", "Detail"), rows)]


def _simulated_steps(e: Evidence) -> list[Block]:
    """The twin's steps on its own clock: offsets from the first step, never dates.

    The twin's clock starts at a fixed, artificial instant so that runs are reproducible;
    its dates mean nothing, its differences are what the simulation modelled.
    """
    origin = parse_instant(e.steps[0].start)

    def offset(moment: str) -> str:
        at = parse_instant(moment)
        if origin is None or at is None:
            return moment
        return "+" + format_duration((at - origin).total_seconds())

    def took(s: Step) -> str:
        return format_duration(duration(s.start, s.end))

    rows = [(s.name, offset(s.start), offset(s.end), took(s), s.detail) for s in e.steps]
    note = (
        "Times are the twin's simulated clock (SIMULATED), counted from the first step; "
        "they say what the simulation modelled, not how long anything took."
    )
    header = ("Step", "Start (simulated)", "End (simulated)", "Took (simulated)", "Detail")
    return [para(note), table(header, rows)]
