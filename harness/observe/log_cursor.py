"""Reading a model's debug-log a look at a time: only what is new since the last look.

Every look asks the controller for the most recent ``batch`` lines of the filtered log
(``JujuPort.debug_log_recent``: hook, reboot and agent-start lines only) and keeps those
after the last lines it saw before. When they are not among them (more than ``batch`` lines
arrived since), it asks again for four times as many, so a look costs what arrived since
the previous one, never the model's whole history. Juju answers at most 10000 lines
(``maxInitialLines``: state/logs.go@juju-2.9.31 and @3.6, internal/logtailer/tailer.go@main),
so that is the most one look asks for; past it the look says lines may be missed.

``read`` picks the stream: the hook lines (the default) or ``JujuPort.ops_log_recent``,
the charms' juju-log lines where ops' event lines are. Each stream needs its own cursor:
two filtered streams do not reach equally far back for the same ``--lines``.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from harness.evidence.times import parse_instant
from harness.ports import JujuPort

log = logging.getLogger(__name__)

BATCH = 200
MAX_BATCH = 10_000  # Juju refuses more: "too many lines requested (N) maximum is 10000"
_TAIL = 3  # lines remembered to find where the previous look ended


@dataclass
class LogCursor:
    """Where the previous look at ``juju``'s debug-log ended."""

    juju: JujuPort
    since: datetime | None = None  # on the first look, lines before this are not wanted
    batch: int = BATCH
    max_batch: int = MAX_BATCH
    read: Callable[[int], Awaitable[str]] | None = None  # default: juju.debug_log_recent
    lines_requested: list[int] = field(default_factory=list)  # per look, for the tests
    missed: bool = False  # a look could not reach back to where the previous one ended
    _tail: tuple[str, ...] | None = None

    async def new_lines(self) -> list[str]:
        """The lines logged since the previous call (the first: since ``since``)."""
        read = self.read or self.juju.debug_log_recent
        want = min(self.batch, self.max_batch)
        requested = 0
        while True:
            text = await read(want)
            lines = [line for line in text.splitlines() if line.strip()]
            requested += want
            fresh = self._fresh(lines, full=len(lines) >= want)
            if fresh is not None or want >= self.max_batch:
                break
            want = min(want * 4, self.max_batch)
        if fresh is None:
            log.warning(
                "more than %d debug-log lines since the last look; some may be missed", want
            )
            self.missed = True
            fresh = lines
        self.lines_requested.append(requested)
        if lines:
            self._tail = tuple(lines[-_TAIL:])
        return fresh

    def _fresh(self, lines: list[str], *, full: bool) -> list[str] | None:
        """The new part of ``lines``, or None when more must be asked for to know it."""
        if self._tail is not None:
            end = _find_tail(lines, self._tail)
            if end is not None:
                return lines[end:]
            return None if full else lines  # not full: the log was replaced; all is new
        if not full:
            return lines  # the whole (filtered) history fits: all of it is new
        if self.since is not None:
            first = parse_instant(_time_of(lines[0])) if lines else None
            if first is not None and first < self.since:
                return [line for line in lines if _after(line, self.since)]
            return None  # the first line is not old enough yet: ask for more
        return lines


def _find_tail(lines: list[str], tail: tuple[str, ...]) -> int | None:
    """The index just after the last place ``tail`` occurs in ``lines``."""
    size = len(tail)
    for end in range(len(lines), size - 1, -1):
        if tuple(lines[end - size : end]) == tail:
            return end
    # Fewer than `size` lines overlap (a short log): match on the last line alone.
    for end in range(len(lines), 0, -1):
        if lines[end - 1] == tail[-1]:
            return end
    return None


def _time_of(line: str) -> str:
    """``unit-x-0: 2026-01-02 03:04:05.123 INFO ...`` -> ``2026-01-02 03:04:05.123``."""
    parts = line.split(" ")
    start = 1 if parts and parts[0].endswith(":") else 0
    return " ".join(parts[start : start + 2])


def _after(line: str, since: datetime) -> bool:
    moment = parse_instant(_time_of(line))
    return moment is None or moment >= since.replace(microsecond=0)


def merged(*streams: Iterable[str]) -> list[str]:
    """Lines of several dated streams (``--date --utc --ms``) in time order.

    Each stream is in time order already; on equal times the earlier stream's line comes
    first, so pass ops' lines before the uniter's (ops logs during a hook, the uniter after).
    """
    return list(heapq.merge(*streams, key=_time_of))
