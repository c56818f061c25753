"""Reading a model's debug-log a look at a time: only what is new since the last look.

Every look asks the controller for the most recent ``batch`` lines of the filtered log
(``JujuPort.debug_log_recent``: hook, reboot and agent-start lines only) and keeps those
after the last lines it saw before. When they are not among them (more than ``batch`` lines
arrived since), it asks again for four times as many, so a look costs what arrived since
the previous one, never the model's whole history. Juju answers at most 10000 lines
(``maxInitialLines``: state/logs.go@juju-2.9.31 and @3.6, internal/logtailer/tailer.go@main),
so that is the most one look asks for; past it the look says lines may be missed.

``--lines N`` counts records, not printed lines: the controller limits its query of log
entries, after the level and module filters, to N (``processReversed``, state/logs.go@3.6;
Juju 4.0's tailer is taken to do the same, not checked here). A record whose message holds
newlines (an ops traceback sent through ``juju-log``) prints as several lines, only the first
dated, so a read is full when it holds N dated lines, and a continuation line belongs to the
record before it: it is old or new with that record, and never marks where a look ended.
On the first look only records logged at or after ``since`` are new, however short the log.

``read`` picks the stream: the hook lines (the default) or ``JujuPort.ops_log_recent``,
the charms' juju-log lines where ops' event lines are. Each stream needs its own cursor:
two filtered streams do not reach equally far back for the same ``--lines``.
"""

from __future__ import annotations

import heapq
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from harness.common.times import parse_instant
from harness.lab.ports import JujuPort

log = logging.getLogger(__name__)

BATCH = 200
MAX_BATCH = 10_000  # Juju refuses more: "too many lines requested (N) maximum is 10000"
_TAIL = 3  # lines remembered to find where the previous look ended
# A record's first line: ``[<entity>: ]<YYYY-MM-DD> <HH:MM:SS>``; the rest of a multi-line
# message (a traceback) follows on lines without it.
_HEADER = re.compile(r"(?:\S+: )?\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")


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
            fresh = self._fresh(lines, want)
            if fresh is not None or want >= self.max_batch:
                break
            want = min(want * 4, self.max_batch)
        if fresh is None:
            log.warning(
                "more than %d debug-log lines since the last look; some may be missed", want
            )
            self.missed = True
            fresh = lines if self._tail is not None else self._since(lines)
        self.lines_requested.append(requested)
        if lines:
            self._tail = _tail_of(lines)
        return fresh

    def _fresh(self, lines: list[str], want: int) -> list[str] | None:
        """The new part of ``lines``, or None when more must be asked for to know it."""
        if self._tail is not None:
            end = _find_tail(lines, self._tail)
            if end is not None:
                return lines[end:]
            # Not full: the log was replaced; all is new.
            return None if _full(lines, want) else lines
        if self.since is None:
            return lines
        if _full(lines, want):
            first = next((t for t in map(_stamp, lines) if t is not None), None)
            if first is None or first >= self.since:
                return None  # the first record is not old enough yet: ask for more
        return self._since(lines)

    def _since(self, lines: list[str]) -> list[str]:
        """The records of ``lines`` logged at or after ``since`` (to the second)."""
        if self.since is None:
            return lines
        cut = self.since.replace(microsecond=0)
        kept: list[str] = []
        keep = True  # a leading line with no time of its own: keep it when unsure
        for line in lines:
            moment = _stamp(line)
            if moment is not None:
                keep = moment >= cut
            if keep:  # a continuation line goes with the record it continues
                kept.append(line)
        return kept


def _full(lines: list[str], want: int) -> bool:
    """Whether Juju sent all ``want`` records asked for: ``--lines`` counts records, and a
    record whose message holds newlines prints as several lines, only the first with a
    time. Output with no dated line at all is counted by lines (unsure: ask for more)."""
    records = sum(1 for line in lines if _HEADER.match(line))
    return (records or len(lines)) >= want


def _tail_of(lines: list[str]) -> tuple[str, ...]:
    """The last few lines, from a dated record's first line: a traceback's own lines repeat
    each time a failing hook is retried, so they alone cannot say where a look ended."""
    start = max(0, len(lines) - _TAIL)
    while start > 0 and not _HEADER.match(lines[start]):
        start -= 1
    return tuple(lines[start:])


def _find_tail(lines: list[str], tail: tuple[str, ...]) -> int | None:
    """The index just after the last place ``tail`` occurs in ``lines``."""
    size = len(tail)
    for end in range(len(lines), size - 1, -1):
        if tuple(lines[end - size : end]) == tail:
            return end
    # Fewer than `size` lines overlap (a short log): match on the last record alone.
    last = max((i for i, line in enumerate(tail) if _HEADER.match(line)), default=size - 1)
    record = tail[last:]
    for end in range(len(lines), len(record) - 1, -1):
        if tuple(lines[end - len(record) : end]) == record:
            return end
    return None


def _time_of(line: str) -> str:
    """``unit-x-0: 2026-01-02 03:04:05.123 INFO ...`` -> ``2026-01-02 03:04:05.123``."""
    parts = line.split(" ")
    start = 1 if parts and parts[0].endswith(":") else 0
    return " ".join(parts[start : start + 2])


def _stamp(line: str) -> datetime | None:
    """When the record a line starts was logged; None for a continuation line."""
    return parse_instant(_time_of(line)) if _HEADER.match(line) else None


def merged(*streams: Iterable[str]) -> list[str]:
    """Lines of several dated streams (``--date --utc --ms``) in time order.

    Each stream is in time order already; on equal times the earlier stream's line comes
    first, so pass ops' lines before the uniter's (ops logs during a hook, the uniter after).
    A record's continuation lines (a traceback) stay right after its first line.
    """
    merged_records = heapq.merge(*map(_records, streams), key=lambda r: _time_of(r[0]))
    return [line for record in merged_records for line in record]


def _records(lines: Iterable[str]) -> list[list[str]]:
    found: list[list[str]] = []
    for line in lines:
        if found and not _HEADER.match(line):
            found[-1].append(line)
        else:
            found.append([line])
    return found
