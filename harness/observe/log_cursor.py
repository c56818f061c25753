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

Where the previous look ended is not enough on Juju 2.9 and 3.6: the controller stores
records in bulk as its buffers flush (``BufferedLogger``: 1000 records or 2 s per log
connection, apiserver/logsink.go@2.9 and @3.6 L27-28; ``DbLogger.Log``'s ``bulk.Insert``,
state/logs.go@2.9 L405, @3.6 L378) with the *agent's* time, and ``--lines`` answers them
sorted by that time (``processReversed``: ``Sort("-t", "-_id")``, state/logs.go@2.9 L606,
@3.6 L549). A record that reaches the store late (an agent's buffer after an API outage, a
slow connection) sorts before lines a look has already read. So each look also takes, from
what it read before that point, the records no look has returned yet that are at most
``OVERLAP`` older than the newest seen, and never returns a record twice. Juju 4.0 appends
records to the model's log file as they arrive and reads it back in that order
(``processInitialLines``, internal/logtailer/tailer.go@main L129, 4.0-beta5): a late record
comes after what was read, and the overlap finds nothing there.

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
from datetime import datetime, timedelta

from harness.common.times import parse_instant
from harness.lab.ports import JujuPort

log = logging.getLogger(__name__)

BATCH = 200
MAX_BATCH = 10_000  # Juju refuses more: "too many lines requested (N) maximum is 10000"
_TAIL = 3  # lines remembered to find where the previous look ended
# How much older than the newest record seen a late one may be and still be read: what
# Juju's own live tail allows for (``oplogOverlap = time.Minute``, state/logs.go@2.9 L497,
# @3.6 L431). A record later than that is missed, as Juju's tail would miss it.
OVERLAP = timedelta(minutes=1)
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
    # Records returned so far, by their lines, with their time: those within OVERLAP of
    # the newest (older ones are dropped as it moves on).
    _seen: dict[tuple[str, ...], datetime] = field(default_factory=dict)

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
            if want >= self.max_batch or (fresh is not None and self._reaches_back(lines, want)):
                break
            want = min(want * 4, self.max_batch)
        if fresh is None:
            log.warning(
                "more than %d debug-log lines since the last look; some may be missed", want
            )
            self.missed = True
            fresh = lines if self._tail is not None else self._since(lines)
        self.lines_requested.append(requested)
        if self._tail is not None:
            fresh = [*self._late(lines, len(lines) - len(fresh)), *fresh]
        if lines:
            self._tail = _tail_of(lines)
        return self._remember(fresh)

    def _horizon(self) -> datetime | None:
        """The oldest time a record not yet returned may have and still be read."""
        if not self._seen:
            return self.since
        horizon = max(self._seen.values()) - OVERLAP
        return max(horizon, self.since) if self.since is not None else horizon

    def _reaches_back(self, lines: list[str], want: int) -> bool:
        """Whether ``lines`` hold every record back to the horizon (or the whole log)."""
        horizon = self._horizon()
        if self._tail is None or horizon is None or not _full(lines, want):
            return True
        first = next((t for t in map(_stamp, lines) if t is not None), None)
        return first is not None and first < horizon

    def _late(self, lines: list[str], end: int) -> list[str]:
        """Records of ``lines[:end]`` (before where the previous look ended) that no look
        returned and that are no older than the horizon: stored after later ones."""
        horizon = self._horizon()
        if horizon is None:
            return []
        late: list[str] = []
        for record in _records(lines[:end]):
            moment = _stamp(record[0])
            if moment is not None and moment >= horizon and tuple(record) not in self._seen:
                late.extend(record)
        return late

    def _remember(self, fresh: list[str]) -> list[str]:
        """``fresh`` without records already returned; what is left is remembered."""
        kept: list[str] = []
        for record in _records(fresh):
            key = tuple(record)
            if key in self._seen:
                continue
            moment = _stamp(record[0])
            if moment is not None:
                self._seen[key] = moment
            kept.extend(record)
        horizon = self._horizon()
        if horizon is not None:
            self._seen = {k: t for k, t in self._seen.items() if t >= horizon - OVERLAP}
        return kept

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
