"""Per-hook trace: what the charm did in each hook the twin ran (SIMULATED)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from harness.twin.workload import CommandRun, Recorder

Outcome = Literal["ok", "failed", "skipped"]


@dataclass(frozen=True)
class HookTrace:
    """One hook of one unit: the event, the commands the charm executed in its
    containers, the files it pushed, and its unit status after the hook."""

    hook: str
    step: str  # where in the disruption: "old pod", "new pod", "teardown", ...
    outcome: Outcome
    commands: tuple[CommandRun, ...] = ()
    pushed: tuple[tuple[str, str], ...] = ()  # (container, path)
    push_failures: tuple[tuple[str, str], ...] = ()  # the pushes above that failed
    status: str = ""  # "active: ready" after the hook
    detail: str = ""  # why it was skipped or how it failed

    def brief(self) -> str:
        """One line: ``start [new pod] ok; exec router: mysqlrouter --bootstrap -> 0; ...``."""
        parts = [f"{self.hook} [{self.step}] {self.outcome}"]
        if self.detail:
            parts.append(self.detail)
        parts.extend(f"exec {run.brief()}" for run in self.commands)
        failed = set(self.push_failures)
        parts.extend(
            f"push {c}:{p}" + (" failed" if (c, p) in failed else "") for c, p in self.pushed
        )
        if self.status:
            parts.append(f"status {self.status}")
        return "; ".join(parts)


def status_text(status: Any) -> str:
    """``active: ready`` from an ops.testing status (``unknown`` when nothing was set)."""
    name = str(getattr(status, "name", status))
    message = str(getattr(status, "message", ""))
    return f"{name}: {message}" if message else name


def traced(
    hook: str, step: str, outcome: Outcome, recorder: Recorder, status: Any, detail: str = ""
) -> HookTrace:
    return HookTrace(
        hook=hook,
        step=step,
        outcome=outcome,
        commands=tuple(recorder.commands),
        pushed=tuple(recorder.pushed),
        push_failures=tuple(recorder.push_failures),
        status=status_text(status),
        detail=detail,
    )
