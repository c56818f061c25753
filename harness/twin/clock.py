"""A deterministic clock: the same twin run gives the same times, byte for byte."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

# A fixed, obviously artificial epoch: nobody mistakes a twin time for a real run's.
EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)
# Each hook the twin dispatches takes this long; each now() call moves time by READ_STEP
# so that consecutive steps get distinct, ordered timestamps.
HOOK_STEP = timedelta(seconds=1)
READ_STEP = timedelta(milliseconds=1)


class TwinClock:
    """``harness.lab.ports.Clock`` without real time: sleeping only advances the clock."""

    simulated = True  # a number read from it is printed as simulated

    def __init__(self, start: datetime = EPOCH) -> None:
        self._now = start
        self._start = start

    def now(self) -> datetime:
        self._now += READ_STEP
        return self._now

    def peek(self) -> datetime:
        """The current time without advancing it (for log lines)."""
        return self._now

    def monotonic(self) -> float:
        # Advancing here too means a wait loop that never sleeps still reaches its deadline.
        self._now += READ_STEP
        return (self._now - self._start).total_seconds()

    async def sleep(self, seconds: float) -> None:
        self.advance(max(0.0, seconds))

    def advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=seconds)

    def hook_ran(self) -> datetime:
        """Advance by one hook's duration; returns the hook's end time."""
        self._now += HOOK_STEP
        return self._now


def iso(moment: datetime) -> str:
    """A twin time as Kubernetes and Juju print it (``2000-01-01T00:00:01Z``)."""
    return moment.isoformat().replace("+00:00", "Z")
