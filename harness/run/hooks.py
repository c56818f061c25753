"""The hooks inside a disruption's window, from the debug-log and the probe journal.

The debug-log gives the uniter's lines and ops' event lines; the probe journal what each
probe unit saw. A record's time decides whether it falls inside the window.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from harness.common.charm_errors import CharmError
from harness.common.observations import HookRecord, JournalEntry, Snapshot
from harness.common.times import parse_instant, seconds_of_day
from harness.common.versions import Versions
from harness.lab.ports import Lab


def charm_errors_of(lab: Lab) -> tuple[CharmError, ...]:
    """The hooks the charms' own code failed, where the backend knows them (the twin)."""
    read = getattr(lab.juju, "charm_errors", None)
    return tuple(read()) if read is not None else ()


def in_window(record_time: str, start: datetime, end: datetime) -> bool:
    """Whether a record's time falls inside [start, end] (both aware, UTC).

    Log times are truncated (to the second without ``--ms``), so the window opens at the
    start's whole second. Undated times (``HH:MM:SS``, as the twin writes and as
    ``--utc`` without ``--date`` gives) are compared by time of day; a window of a day or
    more cannot place them, so they are kept.
    """
    opens = start.replace(microsecond=0)
    moment = parse_instant(record_time)
    if moment is not None:
        return opens <= moment <= end
    of_day = seconds_of_day(record_time)
    if of_day is None or end - opens >= timedelta(days=1):
        return True
    first, last = _of_day(opens), _of_day(end)
    if first <= last:
        return first <= of_day <= last
    return of_day >= first or of_day <= last  # the window spans midnight


def _of_day(moment: datetime) -> float:
    utc = moment.astimezone(timezone.utc)
    return utc.hour * 3600 + utc.minute * 60 + utc.second + utc.microsecond / 1e6


async def collect_log_hooks(
    lab: Lab, versions: Versions, start: datetime, end: datetime
) -> tuple[tuple[HookRecord, ...], tuple[str, ...]]:
    """The window's records from the debug-log, and what the evidence must say about them.

    The uniter's lines come from the whole filtered log (``debug_log``); ops' event lines
    from the charms' juju-log lines logged since the window began (a cursor: bounded by the
    window, not the model's age). Where the recorded logging-config drops ops' DEBUG lines,
    or the window held more juju-log lines than Juju answers, a note says so.
    """
    from harness.observe.log_cursor import LogCursor, merged

    notes: list[str] = []
    uniter = (await lab.juju.debug_log()).splitlines()
    ops = LogCursor(lab.juju, since=start, read=lab.juju.ops_log_recent)
    ops_lines = await ops.new_lines()
    if ops.missed:
        notes.append(
            "ops' event lines: the window held more charm log lines than Juju answers "
            "(10000); the earliest may be missing"
        )
    recorded = dict(versions.model_config).get("logging-config")
    if lab.backend == "live" and recorded is not None:
        from harness.common.logging_config import config_value, ops_lines_note

        note = ops_lines_note(config_value(recorded))
        if note is not None:
            notes.append(note)
    text = "\n".join(merged(ops_lines, uniter))
    return _debug_log_hooks(text, start, end), tuple(notes)


def _debug_log_hooks(text: str, start: datetime, end: datetime) -> tuple[HookRecord, ...]:
    """The window's records: the uniter's, else ops' (``Emitting Juju event``) per unit.

    A unit whose uniter lines are missing (filtered by logging-config) is judged on what
    ops logged; a unit with uniter lines keeps only ops' marked records (deferred,
    re-emitted, custom), never a second copy of its hooks.
    """
    from harness.observe.debug_log import parse_lines

    records = [
        r for r in parse_lines(text.splitlines(), ops=True) if in_window(r.time, start, end)
    ]
    from_uniter = {r.unit for r in records if r.source == "debug-log" and r.kind == "hook"}
    return tuple(
        r
        for r in records
        if not (r.source == "ops-log" and r.kind == "hook" and r.unit in from_uniter)
    )


async def journal_hooks(
    lab: Lab, before: Snapshot | None, after: Snapshot
) -> tuple[HookRecord, ...]:
    """The probe units' journal entries written after the ``before`` snapshot, as records."""
    from harness.observe.journal import hook_records, read_journal

    since = {entry.unit: entry.seq for entry in before.journal} if before else {}
    latest = {entry.unit: entry.seq for entry in after.journal}
    entries: list[JournalEntry] = []
    # Units that exist now and keep a journal; a removed unit (scale-down-up) cannot answer.
    for unit in sorted(latest):
        start = since.get(unit, 0)
        if latest[unit] < start:  # a fresh storage volume: its journal starts again at 1
            start = 0
        found, _ = await read_journal(lab.juju, unit, start)
        entries.extend(found)
    return hook_records(entries)
