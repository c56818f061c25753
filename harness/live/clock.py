"""Wall and monotonic time for the live backend (tests and the twin use a fake clock)."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timezone


class RealClock:
    """The ``Clock`` port on the machine's clocks: UTC for evidence, monotonic for waits."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC with a ``Z``-free offset, as every Step carries it."""
    return moment.astimezone(timezone.utc).isoformat()
