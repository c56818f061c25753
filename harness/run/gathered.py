"""What one scenario run has gathered so far (versions, steps, snapshots, hooks, findings,
the stage it is in), which becomes its evidence whether or not the run finishes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from harness.common.charm_errors import CharmError
from harness.common.findings import Finding
from harness.common.interrupt import Interruption, RunInterrupted, describe
from harness.common.observations import HookRecord, Snapshot, Step
from harness.common.times import duration, format_duration
from harness.common.versions import Versions
from harness.evidence.model import Evidence
from harness.evidence.user_bundle import UserBundle
from harness.lab.ports import Lab
from harness.live.signals import Interrupted
from harness.run.result import one_line
from harness.scenario.scenarios import Scenario

if TYPE_CHECKING:
    from harness.catalogue.model import Expectation

Progress = Callable[[str], None]


@dataclass
class Gathered:
    """What the run has so far; becomes the evidence whether or not it finishes."""

    scenario: Scenario
    lab: Lab
    versions: Versions = field(default_factory=Versions)
    juju: str | None = None
    juju_notes: tuple[str, ...] = ()  # how ``juju`` was judged (a track, an extrapolation)
    expectation: Expectation | None = None
    branch: str = ""
    steps: list[Step] = field(default_factory=list)
    before: Snapshot | None = None
    after: Snapshot | None = None
    hooks: tuple[HookRecord, ...] = ()
    findings: tuple[Finding, ...] = ()
    commands: tuple[str, ...] = ()
    bundle: UserBundle | None = None
    redact: tuple[str, ...] = ()  # keys the user named secret
    disrupted: tuple[str, ...] = ()  # the applications the disruption reaches
    secrets: tuple[str, ...] = field(default=(), repr=False)  # values never to show
    stage: str = "start-up"
    interruption: Interruption | None = None
    window_start: datetime | None = None  # set once the disruption is about to begin
    charm_errors: tuple[CharmError, ...] = ()

    def record(self, steps: Step | Iterable[Step], progress: Progress) -> None:
        """Keep finished steps, and say on the terminal how long each took."""
        for step in (steps,) if isinstance(steps, Step) else tuple(steps):
            self.steps.append(step)
            took = format_duration(duration(step.start, step.end))
            clock = " on the twin's simulated clock" if self.lab.simulated else ""
            detail = f": {step.detail}" if step.detail else ""
            progress(f"  {step.name} took {took}{clock}{detail}")

    def enter(self, stage: str) -> None:
        """Start a stage; a stop asked for during the last one ends the run here."""
        if self.interruption is not None:
            self.interruption.check(self.stage)
        self.now_in(stage)

    def now_in(self, stage: str) -> None:
        """What the run is doing, for the evidence and for a signal that stops it at once."""
        self.stage = stage
        if self.interruption is not None:
            self.interruption.during = stage

    @contextlib.contextmanager
    def timed_stage(
        self, stage: str, progress: Progress, *, say: str | None = None, step: str | None = None
    ) -> Iterator[TimedStage]:
        """Enter ``stage`` and say ``say``; the body is one step (named ``step``, else as the
        stage), recorded with its time when the body finishes, not when it raises."""
        self.enter(stage)
        if say is not None:
            progress(say)
        timed = TimedStage(lab_now(self.lab))
        yield timed
        self.record(Step(step or stage, timed.start, lab_now(self.lab), timed.detail), progress)

    def failure(self, exc: BaseException) -> tuple[str, bool]:
        """The bundle's one-line error for ``exc``, and whether it was an interruption."""
        if isinstance(exc, RunInterrupted):
            return str(exc), True
        if isinstance(exc, Interrupted):  # the disruption caught the signal and undid itself
            return describe(exc.signal_name, self.during(exc)), True
        asked = self.interruption.signal_name if self.interruption else None
        cancelled = asked is not None and isinstance(exc, asyncio.CancelledError)
        if isinstance(exc, KeyboardInterrupt) or cancelled:
            return describe(asked or type(exc).__name__, self.stage), True
        return one_line(exc), False

    def during(self, exc: BaseException) -> str:
        """The stage the run was in, and what was undone if a disruption caught the signal."""
        return f"{self.stage} ({exc.undone})" if isinstance(exc, Interrupted) else self.stage

    def evidence(self, error: str | None = None, *, interrupted: bool = False) -> Evidence:
        expected: tuple[str, ...] = ()
        if self.expectation is not None:
            expected = tuple(self.expectation.required_hooks())
        return Evidence(
            scenario=self.scenario.name,
            backend=self.lab.backend,
            simulated=self.lab.simulated,
            versions=self.versions,
            steps=tuple(self.steps),
            before=self.before,
            after=self.after,
            hooks=self.hooks,
            findings=self.findings,
            commands=self.commands,
            disruption=self.scenario.disruption,
            juju_version=self.juju,
            juju_notes=self.juju_notes,
            expected_hooks=expected,
            branch=self.branch,
            disruption_detail=disruption_detail(self.scenario),
            error=error,
            bundle=self.bundle,
            interrupted=interrupted,
            redact=self.redact,
            secrets=self.secrets,
            disrupted=self.disrupted,
            charm_errors=self.charm_errors,
        )


@dataclass
class TimedStage:
    """A timed stage's step while it runs: when it began, and the detail the body found."""

    start: str
    detail: str = ""


def disruption_detail(scenario: Scenario) -> str:
    """The disruption's parameters a reader needs: container-restart's container and signal."""
    parts = [
        f"container {t.container}, signal {t.signal or 'TERM'}"
        for t in scenario.targets
        if t.container
    ]
    return "; ".join(dict.fromkeys(parts))


def lab_now(lab: Lab) -> str:
    """The lab's clock now (the twin's is simulated), as the evidence writes times."""
    return lab.clock.now().isoformat()
