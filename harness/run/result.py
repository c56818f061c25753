"""What a run concluded, and an exception as the one line its evidence carries.

``RunResult`` holds the evidence and the folder it was written to; its deviations and exit
status are derived from the findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from harness.common.errors import HarnessError
from harness.common.findings import Finding
from harness.evidence.model import Evidence

CHARM_ERROR_EXIT = 3
"""``repro run``'s exit status when a charm's own code failed a hook and nothing deviated."""


@dataclass(frozen=True)
class RunResult:
    """What a run concluded and where its bundle is."""

    evidence: Evidence
    folder: Path

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.evidence.findings

    @property
    def deviations(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.evidence.findings if f.verdict == "deviation")

    @property
    def report(self) -> Path:
        return self.folder / "report.md"

    @property
    def charm_errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.evidence.findings if f.verdict == "charm-error")

    @property
    def exit_code(self) -> int:
        """1 when a finding deviates; else 3 when the charm's own code failed a hook (a
        charm bug, not Juju's); else 0 (``undetermined`` is neither)."""
        if self.deviations:
            return 1
        return CHARM_ERROR_EXIT if self.charm_errors else 0


def one_line(exc: BaseException) -> str:
    """An exception as the one line the bundle and the report carry."""
    message = re.sub(r"\s+", " ", str(exc)).strip()
    if isinstance(exc, HarnessError):
        return message
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
