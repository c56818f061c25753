"""The harness reads the probe's journal a page at a time and only what it needs.

The fake unit answers the ``journal`` action with the probe charm's own paging code
(``charms/probe/src/journal.py``) over a 10,000-entry journal file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import journal as probe_journal
from live_fakes import FakeJuju

from harness.lab.ports import ActionResult
from harness.observe.journal import latest_entry, read_journal


class JournalUnit(FakeJuju):
    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.sizes: list[int] = []

    async def run_action(
        self, unit: str, action: str, params: Mapping[str, object] | None = None
    ) -> ActionResult:
        self.actions.append((unit, action, dict(params or {})))
        since = int(params.get("since", 0)) if params else 0  # type: ignore[call-overload]
        limit = int(params.get("limit", 200)) if params else 200  # type: ignore[call-overload]
        found, _ = probe_journal.read_after(self.path, since, limit)
        last = probe_journal.last_seq(self.path.parent)
        results = {"entries": found.text, "cursor": str(found.cursor if found.count else last)}
        if found.more:
            results["more"] = "true"
        self.sizes.append(len(found.text.encode()))
        return ActionResult(unit, action, "completed", results)


def journal_of(tmp_path: Path, count: int) -> Path:
    """A journal file of ``count`` entries shaped like the probe's (~1.5 KB each)."""
    path = tmp_path / "journal.jsonl"
    with path.open("w") as f:
        for seq in range(1, count + 1):
            entry = {
                "seq": seq,
                "time": "2026-01-02T03:04:05+00:00",
                "event": "update-status",
                "unit": "probe/0",
                "root_incarnation": f"{seq:032x}",
                "root_incarnation_new": False,
                "charm_dir_incarnation": f"{seq:032x}",
                "charm_dir_incarnation_new": False,
                "workload_marker": "present",
                "leader": True,
                "databags": {f"peers:{n}": "sha256:" + "0" * 64 for n in range(14)},
            }
            f.write(json.dumps(entry) + "\n")
    return path


async def test_the_latest_entry_of_a_long_journal_takes_two_small_actions(tmp_path: Path) -> None:
    unit = JournalUnit(journal_of(tmp_path, 10_000))
    last = await latest_entry(unit, "probe/0")
    assert last is not None
    assert last.seq == 10_000
    assert len(unit.actions) == 2
    assert max(unit.sizes) < 4096


async def test_reading_since_a_cursor_pages_only_what_is_new(tmp_path: Path) -> None:
    unit = JournalUnit(journal_of(tmp_path, 10_000))
    entries, cursor = await read_journal(unit, "probe/0", since=9_900)
    assert [e.seq for e in entries] == list(range(9_901, 10_001))
    assert cursor == 10_000
    assert len(unit.actions) <= 3
    assert max(unit.sizes) < 100 * 1024


async def test_the_whole_journal_comes_in_pages_each_under_the_limit(tmp_path: Path) -> None:
    unit = JournalUnit(journal_of(tmp_path, 10_000))
    entries, _ = await read_journal(unit, "probe/0")
    assert [e.seq for e in entries] == list(range(1, 10_001))
    assert max(unit.sizes) < 100 * 1024
