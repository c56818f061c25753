"""A model's log as a controller keeps it: records stamped by the agent, stored in batches.

Write path, every version (research notes on debug-log ordering, with the files):

- the unit agent stamps each record with its own clock and sends it (worker/logsender);
  its logging-config drops records below the module's level before they leave the agent;
- the controller buffers each agent connection's records and writes them in bulk, every
  2 s or 1000 records (``defaultLoggerFlushInterval = 2 * time.Second`` and
  ``defaultLoggerBufferSize = 1000`` in apiserver/logsink.go@juju-2.9.31 and @3.6; 4.0 wraps
  its per-model file writer in the same kind of buffered writer,
  internal/worker/logsink/loggers.go@main). So a record reaches the store up to a flush
  interval after its time, and two agents' records reach it out of time order.

Read path:

- 2.9 and 3.6 (MongoDB, state/logs.go): ``--replay`` sorts by (agent time, _id)
  (``processCollection``); ``--lines N`` takes the N newest by agent time, printed oldest
  first (``processReversed``: ``Sort("-t", "-_id").Limit(N)``). A record written late with
  an early time sorts *before* records already read: a reader that resumes after the last
  line it saw never sees it (the defect the rehearsal shows in ``harness.observe.log_cursor``).
- 4.0 (a file per model, internal/logtailer/tailer.go@main): records in the order they were
  appended, for ``--replay`` and ``--lines`` (``processInitialLines`` scans backwards); no
  sorting, so a late record comes after what was read before it.

The filters are the controller's (the same on every version): ``--include-module M`` keeps M
and its children at a dot boundary (``makeModulePattern``: ``^(M1|M2)(\\..+)?$``),
``--level`` is a minimum, ``--lines`` counts records that pass both, at most 10000
(``maxInitialLines``).
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

LEVELS = ("TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MAX_LINES = 10_000
FLUSH_SECONDS = 2.0  # apiserver/logsink.go defaultLoggerFlushInterval (world seconds)


@dataclass(frozen=True)
class LogRecord:
    seq: int  # arrival order at the controller
    entity: str  # unit-probe-0
    time: datetime  # the agent's stamp
    level: str
    module: str
    message: str
    stored_at: datetime  # when the controller wrote it (a flush after ``time``)
    labels: tuple[str, ...] = ()


@dataclass
class Query:
    """What ``juju debug-log`` asked the controller for (apiserver/debuglog.go params)."""

    include_entity: Sequence[str] = ()
    exclude_entity: Sequence[str] = ()
    include_module: Sequence[str] = ()
    exclude_module: Sequence[str] = ()
    level: str = "TRACE"
    replay: bool = False
    lines: int = 10


def level_rank(level: str) -> int:
    return LEVELS.index(level.upper()) if level.upper() in LEVELS else 0


def module_pattern(modules: Sequence[str]) -> re.Pattern[str]:
    """``makeModulePattern`` (state/logs.go@juju-2.9.31, @3.6; tailer.go@main)."""
    return re.compile("^(" + "|".join(re.escape(m) for m in modules) + r")(\..+)?$")


def logging_levels(config: str) -> dict[str, str]:
    """``<root>=INFO;unit=DEBUG`` as {module: level} (loggo's ConfigureLoggers syntax)."""
    levels: dict[str, str] = {}
    for part in config.replace(",", ";").split(";"):
        module, sep, level = part.strip().partition("=")
        if sep and level.strip().upper() in LEVELS:
            levels[module.strip()] = level.strip().upper()
    levels.setdefault("<root>", "WARNING")
    return levels


def agent_keeps(config: str, module: str, level: str) -> bool:
    """Whether an agent with logging-config ``config`` sends a record (loggo: the most
    specific configured ancestor of the module decides, else ``<root>``)."""
    levels = logging_levels(config)
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in levels:
            return level_rank(level) >= level_rank(levels[name])
    return level_rank(level) >= level_rank(levels["<root>"])


@dataclass
class LogStore:
    """One model's stored log (thread-safe: the world's hook threads write, readers read)."""

    in_arrival_order: bool  # 4.0's file; 2.9/3.6 sort by agent time
    flush: timedelta = field(default_factory=lambda: timedelta(seconds=FLUSH_SECONDS))
    records: list[LogRecord] = field(default_factory=list)
    _seq: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _last: dict[str, datetime] = field(default_factory=dict)  # entity -> its latest store

    def stored_after(self, entity: str, when: datetime) -> datetime:
        """The flush of ``entity``'s connection that writes a record stamped ``when``: each
        connection flushes every ``flush``, at a phase of its own."""
        period = self.flush.total_seconds()
        phase = int(hashlib.sha256(entity.encode()).hexdigest()[:8], 16) % 1000 / 1000 * period
        stamp = when.timestamp()
        flushes = int((stamp - phase) // period) + 1
        return datetime.fromtimestamp(phase + flushes * period, tz=when.tzinfo)

    def write(
        self,
        entity: str,
        when: datetime,
        level: str,
        module: str,
        message: str,
        *,
        not_before: datetime | None = None,
        labels: tuple[str, ...] = (),
        batched: bool = True,
    ) -> LogRecord:
        """Store a record at its connection's next flush (``batched``; else at its own
        time), or later: at ``not_before``, a connection that held it back. One agent's
        records arrive in the order it sent them (one connection, first in, first out):
        a record held back holds back the ones after it."""
        stored = self.stored_after(entity, when) if batched else when
        if not_before is not None and not_before > stored:
            stored = self.stored_after(entity, not_before) if batched else not_before
        with self._lock:
            stored = max(stored, self._last.get(entity, stored))
            self._last[entity] = stored
            self._seq += 1
            record = LogRecord(self._seq, entity, when, level, module, message, stored, labels)
            self.records.append(record)
        return record

    def visible(self, now: datetime) -> list[LogRecord]:
        """What the store holds at ``now``, in the order its reads start from."""
        with self._lock:
            held = [r for r in self.records if r.stored_at <= now]
        if self.in_arrival_order:
            return sorted(held, key=lambda r: (r.stored_at, r.seq))
        # MongoDB's sort on (t, _id); _id is made at insert, so arrival breaks ties.
        return sorted(held, key=lambda r: (r.time, r.stored_at, r.seq))

    def read(self, query: Query, now: datetime) -> list[LogRecord]:
        kept = [r for r in self.visible(now) if _passes(r, query)]
        if query.replay:
            return kept
        return kept[-query.lines :] if query.lines > 0 else []


def _passes(record: LogRecord, query: Query) -> bool:
    if level_rank(record.level) < level_rank(query.level):
        return False
    if query.include_module and not module_pattern(query.include_module).match(record.module):
        return False
    if query.exclude_module and module_pattern(query.exclude_module).match(record.module):
        return False
    if query.include_entity and not _entity_in(record.entity, query.include_entity):
        return False
    return not (query.exclude_entity and _entity_in(record.entity, query.exclude_entity))


def _entity_in(entity: str, patterns: Iterable[str]) -> bool:
    """Entities match as tags with wildcards; ``probe/0`` means ``unit-probe-0``
    (apiserver/debuglog.go, ``makeEntityPattern``)."""
    for pattern in patterns:
        tag = pattern
        if "/" in pattern and not pattern.startswith(("unit-", "machine-", "application-")):
            tag = "unit-" + pattern.replace("/", "-")
        if fnmatch.fnmatchcase(entity, tag):
            return True
    return False


def format_line(
    record: LogRecord,
    *,
    date: bool,
    ms: bool,
    utc: bool,
    location: bool = False,
    labels_as_pairs: bool = False,
) -> str:
    """``writeLogRecord`` (cmd/juju/commands/debuglog.go@juju-2.9.31 L313, @3.6 L343;
    ``writeText`` @main L557): ``<entity>: <time> <LEVEL> <module> [<labels> ]<message>``;
    the time ``15:04:05``, with ``--date`` ``2006-01-02 15:04:05``, ``.000`` with ``--ms``;
    labels joined with ``,`` (4.0: ``key:value`` pairs). The world's clock is UTC, so
    local time and ``--utc`` print alike here."""
    layout = "%Y-%m-%d %H:%M:%S" if date else "%H:%M:%S"
    stamp = record.time.strftime(layout)
    if ms:
        stamp += f".{record.time.microsecond // 1000:03d}"
    head = f"{record.entity}: {stamp} {record.level} {record.module} "
    if location:
        head += "unknown:0 "
    if record.labels:
        head += ",".join(record.labels) + " "
    return head + record.message
