"""A hook the charm's own code failed: what a bug report about the charm needs.

Not a Juju deviation: the charm raised. What Juju does next is Juju's (the unit goes
into ``error`` with ``hook failed: "<hook>"``, no later hook runs as if the failed one had
succeeded, and with ``automatically-retry-hooks``, the default of a new model, the failed
hook is retried with a backoff); the twin models it (``harness.twin.retry``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CharmError:
    """One hook of one unit that the charm failed, with Juju's retries of it."""

    app: str
    unit: str
    hook: str
    exception: str  # "RuntimeError: message"
    traceback: tuple[str, ...]  # the last frames, innermost last: "src/charm.py:12 in f: code"
    time: str  # when it first failed (the twin's clock: simulated)
    attempts: int = 1  # the first run and each retry
    recovered: bool = False  # a retry succeeded
    held: tuple[str, ...] = ()  # hooks Juju did not run while the unit was in error
    simulated: bool = True
    # Set when the failure rests on what the twin does not know (the workload's answer to
    # a command, its image's files and Pebble layers): whose bug it is cannot be told.
    undetermined: str = ""

    def one_line(self) -> str:
        clock = " (simulated clock)" if self.simulated else ""
        outcome = "recovered on a retry" if self.recovered else "still failing"
        frame = f" at {self.traceback[-1]}" if self.traceback else ""
        doubt = f"; undetermined: {self.undetermined}" if self.undetermined else ""
        return (
            f"charm error: {self.unit} ({self.app}) hook {self.hook!r} raised "
            f"{self.exception}{frame}; {self.attempts} attempts from {self.time}{clock}, "
            f"{outcome}{doubt}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "app": self.app,
            "unit": self.unit,
            "hook": self.hook,
            "exception": self.exception,
            "traceback": list(self.traceback),
            "time": self.time,
            "attempts": self.attempts,
            "recovered": self.recovered,
            "held": list(self.held),
            "simulated": self.simulated,
            "undetermined": self.undetermined,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CharmError:
        return cls(
            app=str(raw["app"]),
            unit=str(raw["unit"]),
            hook=str(raw["hook"]),
            exception=str(raw["exception"]),
            traceback=tuple(str(f) for f in raw.get("traceback", ())),
            time=str(raw["time"]),
            attempts=int(raw.get("attempts", 1)),
            recovered=bool(raw.get("recovered", False)),
            held=tuple(str(h) for h in raw.get("held", ())),
            simulated=bool(raw.get("simulated", True)),
            undetermined=str(raw.get("undetermined", "")),
        )
