"""Charm errors as findings: the charm's own bug, never a match or a Juju deviation.

A unit whose charm failed a hook (during the disruption window, or earlier and never got
through Juju's retries) cannot be judged on its hooks: what followed the failure is what
Juju does with a unit in error (``harness.twin.retry``), not what the catalogue describes
for the disruption. Its hooks findings become ``charm-error`` with the exception, and
each such error is a finding of its own, with the last frame of its traceback.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from harness.common.charm_errors import CharmError
from harness.common.findings import Finding, Verdict
from harness.common.times import parse_instant

# Juju's behaviour after a failed hook: the retry strategy (automatically-retry-hooks).
SOURCE = (
    "https://github.com/juju/juju/blob/3.6/apiserver/facades/agent/retrystrategy/retrystrategy.go"
)


def relevant(errors: Iterable[CharmError], since: datetime | None) -> tuple[CharmError, ...]:
    """Errors that bear on the run: any still failing, and any that began in the window."""
    found = []
    for error in errors:
        began = parse_instant(error.time)
        if not error.recovered or since is None or began is None or began >= since:
            found.append(error)
    return tuple(found)


def with_charm_errors(
    findings: Sequence[Finding], errors: Sequence[CharmError]
) -> tuple[Finding, ...]:
    """``findings`` with each hooks finding of a unit in ``errors`` made ``charm-error``,
    and one ``charm-error`` finding per error."""
    by_unit = {e.unit: e for e in errors}
    judged: list[Finding] = []
    for finding in findings:
        # "shapes/0 [debug-log]", or a known bug's "LP#2021891 shapes/0 [debug-log]"
        error = next((by_unit[w] for w in finding.subject.split() if w in by_unit), None)
        if finding.check == "hooks" and error is not None and finding.verdict != "known-bug":
            note = f"charm error in {error.hook!r}: {error.exception}"
            if error.undetermined:
                note = f"undetermined: {note}, which rests on {error.undetermined}"
            detail = f"{note}; {finding.detail}" if finding.detail else note
            verdict: Verdict = "undetermined" if error.undetermined else "charm-error"
            finding = replace(finding, verdict=verdict, detail=detail)
        judged.append(finding)
    for error in errors:
        outcome = "recovered on a retry" if error.recovered else "still failing"
        clock = " (simulated clock)" if error.simulated else ""
        where = f" at {error.traceback[-1]}" if error.traceback else ""
        judged.append(
            Finding(
                check="hooks",
                subject=f"{error.unit} {error.hook} (charm error)",
                expected="the charm's hook succeeds",
                observed=error.exception,
                verdict="undetermined" if error.undetermined else "charm-error",
                source=SOURCE,
                detail=f"{error.attempts} attempts from {error.time}{clock}, {outcome}{where}"
                + (f"; undetermined: {error.undetermined}" if error.undetermined else ""),
            )
        )
    return tuple(judged)
