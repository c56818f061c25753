"""Wall and monotonic time for the live backend (tests and the twin use a fake clock)."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timezone

from harness.common.rehearsal import Rehearsal


class RealClock:
    """The ``Clock`` port on the machine's clocks: UTC for evidence, monotonic for waits.

    ``scale`` (a rehearsal's ``REPRO_TIME_SCALE``, 1 everywhere else) makes waiting run that
    many times faster: ``monotonic`` counts ``scale`` seconds per real second and ``sleep``
    sleeps ``1/scale`` of what it is asked. Wall time (``now``) is never scaled: it stamps
    evidence and is compared with the times Juju and the pods report.
    """

    def __init__(self, scale: float = 1.0) -> None:
        if scale < 1.0:
            raise ValueError(f"a clock cannot run slower than real time (scale {scale})")
        self.scale = scale
        self._origin = time.monotonic()

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def monotonic(self) -> float:
        if self.scale == 1.0:
            return time.monotonic()
        return self._origin + (time.monotonic() - self._origin) * self.scale

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / self.scale)


def live_clock(rehearsal: Rehearsal | None) -> RealClock:
    """The live Lab's clock: real time, or a rehearsal's scaled time."""
    return RealClock(rehearsal.time_scale if rehearsal is not None else 1.0)


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC with a ``Z``-free offset, as every Step carries it."""
    return moment.astimezone(timezone.utc).isoformat()
