"""``--require-live``: a live run that tested nothing fails, with one line saying why.

On a runner every live test can skip (no controller reachable, a missing prerequisite) and
pytest still exits 0, so the job goes green having tested nothing. With ``--require-live``
(the integration workflow sets it) the session fails unless at least one test ran on the
live backend and at least one evidence bundle was written during the session.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.common.counts import counted
from harness.evidence.model import BUNDLE_FILE


@dataclass
class LiveTally:
    """What the session's tests did, counted as their reports come in."""

    ran: int = 0
    skipped: list[str] = field(default_factory=list)

    def add(self, when: str, outcome: str, reason: str = "") -> None:
        if outcome == "skipped":
            self.skipped.append(reason)
        elif when == "call":
            self.ran += 1


def bundles_since(folder: Path, started: float) -> int:
    """Evidence bundles under ``folder`` written at or after ``started`` (epoch seconds)."""
    if not folder.is_dir():
        return 0
    return sum(1 for path in folder.rglob(BUNDLE_FILE) if path.stat().st_mtime >= started)


def why_nothing_was_tested(
    backend: str, ran: int, skipped: Sequence[str], bundles: int, folder: Path
) -> str | None:
    """One line saying why the live run tested nothing, or None when it tested something."""
    if backend != "live":
        return f"--require-live: the backend is {backend}, not live (pass --backend live)"
    if ran == 0:
        reasons = sorted(set(r for r in skipped if r))
        why = f"; skipped: {reasons[0]}" if reasons else ""
        more = f" (and {counted(len(reasons) - 1, 'other reason')})" if len(reasons) > 1 else ""
        return f"--require-live: no test ran on the live backend{why}{more}"
    if bundles == 0:
        return (
            f"--require-live: {counted(ran, 'test')} ran but no evidence bundle was written under "
            f"{folder} (check --evidence-dir)"
        )
    return None


class RequireLive:
    """The pytest plugin object ``--require-live`` registers: counts, then judges."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started = time.time()
        self.tally = LiveTally()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        reason = ""
        if report.skipped and isinstance(report.longrepr, tuple):
            reason = str(report.longrepr[-1])
        self.tally.add(str(report.when), report.outcome, reason)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        folder = Path(str(self.config.getoption("--evidence-dir")))
        why = why_nothing_was_tested(
            str(self.config.getoption("--backend")),
            self.tally.ran,
            self.tally.skipped,
            bundles_since(folder, self.started),
            folder,
        )
        if why is not None:
            print(f"\n{why}", file=sys.stderr)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
