"""The probe charm's journal, read through its ``journal`` action on either backend.

The action returns ``entries`` (a JSON array of journal lines) and a ``cursor`` (the last
sequence number returned); ``more: "true"`` when there are more after a page. Lines become
``JournalEntry`` values and, for the timeline and the verdict, ``HookRecord``s with source
``journal``. The journal records that the charm saw an event, not how the hook ended, so a
journal HookRecord has no outcome.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass

from harness.common.errors import HarnessError
from harness.common.observations import HookRecord, JournalEntry
from harness.lab.ports import ActionResult, JujuPort

log = logging.getLogger(__name__)

JOURNAL_ACTION = "journal"
MAX_PAGES = 1000


@dataclass(frozen=True)
class JournalPage:
    entries: tuple[JournalEntry, ...]
    cursor: int
    more: bool


def parse_journal_result(result: ActionResult) -> JournalPage:
    """One ``journal`` action result as entries, the next cursor and whether more follow."""
    if result.status != "completed":
        raise HarnessError(
            f"the probe's journal action failed on {result.unit}: "
            f"{result.message or result.status}",
            "check the probe unit with `juju show-unit` and its debug-log",
        )
    raw = result.results.get("entries", "[]")
    try:
        rows = json.loads(raw) if raw else []
    except ValueError as error:
        raise HarnessError(
            f"the probe's journal on {result.unit} is not JSON ({error})",
            "the probe charm and the harness must come from the same checkout",
        ) from None
    entries = tuple(JournalEntry.from_dict(row) for row in rows)
    cursor_text = str(result.results.get("cursor", "") or "")
    cursor = int(cursor_text) if cursor_text.isdigit() else (entries[-1].seq if entries else 0)
    return JournalPage(entries, cursor, str(result.results.get("more", "")) == "true")


async def read_journal(
    juju: JujuPort, unit: str, since: int = 0
) -> tuple[tuple[JournalEntry, ...], int]:
    """Every journal entry of ``unit`` after sequence ``since``, and the cursor to continue."""
    collected: list[JournalEntry] = []
    cursor = since
    for _ in range(MAX_PAGES):
        page = parse_journal_result(await juju.run_action(unit, JOURNAL_ACTION, {"since": cursor}))
        collected.extend(page.entries)
        advanced = page.cursor > cursor
        cursor = max(cursor, page.cursor)
        if not page.more or not advanced:
            break
    return tuple(collected), cursor


# Past any seq a journal will reach: asking after it returns no entry, only the last seq.
_BEYOND = 2**62


async def latest_entry(juju: JujuPort, unit: str) -> JournalEntry | None:
    """The last journal entry of ``unit``, in two small actions whatever the journal's size.

    The first asks for entries after a seq no journal reaches, which returns none and the
    journal's last seq as the cursor; the second asks for that one entry.
    """
    probe = parse_journal_result(
        await juju.run_action(unit, JOURNAL_ACTION, {"since": _BEYOND, "limit": 1})
    )
    if probe.cursor <= 0 or probe.cursor >= _BEYOND:
        return None
    last = parse_journal_result(
        await juju.run_action(unit, JOURNAL_ACTION, {"since": probe.cursor - 1, "limit": 1})
    )
    return last.entries[-1] if last.entries else None


def hook_records(entries: Iterable[JournalEntry]) -> tuple[HookRecord, ...]:
    """Journal entries as hook records (source ``journal``; no outcome is recorded)."""
    records = []
    for entry in entries:
        notes = [f"seq {entry.seq}"]
        if entry.buffered:
            notes.append("buffered before storage attached")
        records.append(
            HookRecord(
                unit=entry.unit,
                time=entry.time,
                kind="hook",
                source="journal",
                hook=entry.event,
                outcome=None,
                detail="; ".join(notes),
            )
        )
    return tuple(records)
