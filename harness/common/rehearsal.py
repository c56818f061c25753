"""A rehearsal: the live code run against a rehearsal world, never evidence of what Juju does.

``tox -e rehearsal`` runs ``harness.live`` unchanged against servers that speak Juju's and
Kubernetes' protocols (``rehearsal/`` in the repository). Such a run must never pass for a
live one, so the world names itself and the harness carries that name into everything a
person reads: the report's title, ``bundle.json`` (``"rehearsal"``), the timeline and the
matrix. The world refuses a caller whose environment does not carry its name (its ``juju``
answers no command without it), so a run against a world cannot go unlabelled.

Two variables, set by whoever starts the harness against a world (``rehearsal/runner.py``):

- ``REPRO_REHEARSAL``: the world's name for itself (one line; ``rehearsal/world``).
- ``REPRO_TIME_SCALE`` (optional, rehearsals only): how many times faster the harness's
  waits run. The settle window, poll intervals and wait timeouts are counted on the
  Lab's clock (``harness.live.clock.RealClock``); at 10, a 20 s quiet window passes in 2 s
  of real time, and the world runs its own durations (grace periods, restarts) as many
  times faster. Process deadlines (a ``juju`` killed after 600 s) stay real. The scale is
  recorded in every bundle. Outside a rehearsal it is refused, so a real run never
  shortens a wait.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

from harness.common.errors import HarnessError

REHEARSAL_ENV = "REPRO_REHEARSAL"
TIME_SCALE_ENV = "REPRO_TIME_SCALE"
MAX_TIME_SCALE = 100.0  # beyond this a poll interval is shorter than one `juju` call


@dataclass(frozen=True)
class Rehearsal:
    """The world a run rehearsed against, as it named itself, and the time scale used."""

    world: str
    time_scale: float = 1.0

    def describe(self) -> str:
        """One line for a report: what ran, and that it is no evidence of Juju's behaviour."""
        scale = f"; the harness's waits ran {self.time_scale:g}x faster" if self.scaled else ""
        return (
            f"REHEARSAL against {self.world}{scale}: the live code ran against a rehearsal "
            "world, not a real Juju controller or Kubernetes cluster; this is not evidence "
            "of what Juju does"
        )

    @property
    def scaled(self) -> bool:
        return self.time_scale != 1.0


def rehearsal_from_environment(env: Mapping[str, str] | None = None) -> Rehearsal | None:
    """The rehearsal this process runs in (None: a real run); HarnessError for a bad knob."""
    env = os.environ if env is None else env
    world = (env.get(REHEARSAL_ENV) or "").strip()
    raw_scale = (env.get(TIME_SCALE_ENV) or "").strip()
    if not world:
        if raw_scale:
            raise HarnessError(
                f"{TIME_SCALE_ENV}={raw_scale} is for rehearsals only: a real run never "
                "shortens its waits",
                f"unset {TIME_SCALE_ENV} (tox -e rehearsal sets it with {REHEARSAL_ENV})",
            )
        return None
    if "\n" in world:
        raise HarnessError(
            f"{REHEARSAL_ENV} must be one line (the world's name for itself)",
            "set it to what the rehearsal world printed",
        )
    return Rehearsal(world, parse_time_scale(raw_scale) if raw_scale else 1.0)


def labelled_rehearsal(env: Mapping[str, str] | None = None) -> Rehearsal | None:
    """The rehearsal to label a bundle with, never raising: a run that failed on a bad
    time scale still says REHEARSAL (its scale counted as 1, as its waits never ran)."""
    try:
        return rehearsal_from_environment(env)
    except HarnessError:
        world = ((os.environ if env is None else env).get(REHEARSAL_ENV) or "").strip()
        return Rehearsal(world.splitlines()[0]) if world else None


def parse_time_scale(text: str) -> float:
    """A time scale: a number from 1 to MAX_TIME_SCALE; HarnessError otherwise."""
    try:
        scale = float(text)
    except ValueError:
        scale = math.nan
    if not (1.0 <= scale <= MAX_TIME_SCALE):
        raise HarnessError(
            f"{TIME_SCALE_ENV}={text!r} is not a time scale",
            f"give a number from 1 (real time) to {MAX_TIME_SCALE:g}",
        )
    return scale
