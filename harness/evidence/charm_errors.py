"""The report's section on the hooks a charm's own code failed: a charm bug, never scored
as Juju's, with what Juju does next (the unit in error, its retries)."""

from __future__ import annotations

from harness.evidence.document import Block, Bullets, Code, CodeBlock, Heading, Inline, para
from harness.evidence.model import Evidence


def charm_errors_section(e: Evidence) -> list[Block]:
    """Each hook the charm's own code failed: not Juju's doing, and what Juju did next."""
    if not e.charm_errors:
        return []
    blocks: list[Block] = [
        Heading("Charm errors"),
        para(
            "The charm's own code raised in these hooks: a charm bug, not a Juju deviation. "
            "Juju puts the unit in error, runs no later hook as if the failed one had "
            "succeeded, and retries it (automatically-retry-hooks: 5 s, doubling, at most "
            "5 minutes)."
        ),
    ]
    for c in e.charm_errors:
        clock = " (simulated clock)" if c.simulated else ""
        outcome = (
            "recovered on a retry" if c.recovered else "still failing (the unit stays in error)"
        )
        items: list[tuple[Inline, ...]] = [
            (
                Code(c.unit),
                f" ({c.app}), hook ",
                Code(c.hook),
                f": {c.exception}; first at {c.time}{clock}, {c.attempts} attempts, {outcome}",
            )
        ]
        if c.undetermined:
            items.append((f"undetermined, not counted as the charm's bug: {c.undetermined}",))
        if c.held:
            items.append((f"hooks held while in error: {', '.join(c.held)}",))
        blocks.append(Bullets(tuple(items)))
        if c.traceback:
            blocks.append(CodeBlock(("Traceback (last frames):", *c.traceback), "text"))
    return blocks
