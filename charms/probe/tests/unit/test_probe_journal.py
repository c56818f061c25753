"""The journal format: durable appends, torn lines, cursors, the pre-storage buffer."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import durable
import journal
import pytest
from journal import read_journal
from ops import testing
from probe_testing import ProbeCharm, journal_entries, journal_path

Ctx = testing.Context[ProbeCharm]


def _line(seq: int, event: str = "start") -> str:
    return json.dumps({"seq": seq, "event": event}) + "\n"


# read_journal: a pure function over text or a file.


def test_read_journal_returns_entries_after_the_cursor() -> None:
    text = _line(1, "install") + _line(2, "start") + _line(3, "update-status")

    read = read_journal(text, since=1)

    assert [e["event"] for e in read.entries] == ["start", "update-status"]
    assert read.last_seq == 3
    assert read.torn == ()


def test_read_journal_skips_and_reports_a_torn_last_line() -> None:
    text = _line(1) + _line(2) + '{"seq": 3, "event": "sta'

    read = read_journal(text)

    assert [e["seq"] for e in read.entries] == [1, 2]
    assert read.torn == (3,)
    assert read.last_seq == 2


def test_unterminated_last_line_counts_as_torn_even_if_it_parses() -> None:
    read = read_journal(_line(1) + _line(2).rstrip("\n"))

    assert [e["seq"] for e in read.entries] == [1]
    assert read.torn == (2,)


def test_read_journal_reports_a_garbled_middle_line() -> None:
    read = read_journal(_line(1) + "\x00\x00garbage\n" + _line(2))

    assert [e["seq"] for e in read.entries] == [1, 2]
    assert read.torn == (2,)


def test_read_journal_of_a_missing_file_is_empty(tmp_path: Path) -> None:
    read = read_journal(tmp_path / "journal.jsonl")

    assert read.entries == ()
    assert read.last_seq == 0


def test_append_after_a_torn_line_starts_on_a_new_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_text(_line(1) + _line(2) + '{"seq": 3, "ev')

    numbers = journal.append(tmp_path, [{"event": "start"}])

    assert numbers == [3]
    lines = path.read_text().split("\n")
    assert lines[2] == '{"seq": 3, "ev'  # kept for the record, now terminated
    assert json.loads(lines[3]) == {"seq": 3, "event": "start"}
    read = read_journal(path)
    assert [e["seq"] for e in read.entries] == [1, 2, 3]
    assert read.torn == (3,)


def test_seq_continues_from_the_last_good_line_of_a_long_journal(tmp_path: Path) -> None:
    # More than one read block (8 KiB) from the end: the tail reader must look back far enough.
    (tmp_path / "journal.jsonl").write_text("".join(_line(n, "x" * 200) for n in range(1, 101)))

    assert journal.append(tmp_path, [{"event": "a"}, {"event": "b"}]) == [101, 102]


def test_every_append_is_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = durable.os.fsync
    monkeypatch.setattr(durable.os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))

    journal.append(tmp_path, [{"event": "install"}])
    journal.append(tmp_path, [{"event": "start"}])

    # first append: the file and its new directory entry; second: the file only
    assert len(synced) == 3


# The charm's journal action, torn lines and the buffer.


def _state(*, storage: bool = True) -> testing.State:
    return testing.State(
        containers={testing.Container("workload", can_connect=True)},
        storages={testing.Storage("journal", index=0)} if storage else set(),
    )


STORAGE = testing.Storage("journal", index=0)


def test_journal_action_returns_entries_since_cursor(ctx: Ctx) -> None:
    state = _state()
    for make in (ctx.on.install, ctx.on.start, ctx.on.update_status):
        state = ctx.run(make(), state)

    ctx.run(ctx.on.action("journal", params={"since": 1}), state)

    assert ctx.action_results is not None
    entries = json.loads(ctx.action_results["entries"])
    assert [e["event"] for e in entries] == ["start", "update-status"]
    assert ctx.action_results["cursor"] == "3"
    assert "torn" not in ctx.action_results


def test_journal_action_pages_with_limit(ctx: Ctx) -> None:
    state = _state()
    for make in (ctx.on.install, ctx.on.start, ctx.on.update_status):
        state = ctx.run(make(), state)

    ctx.run(ctx.on.action("journal", params={"since": 0, "limit": 2}), state)

    assert ctx.action_results is not None
    assert [e["seq"] for e in json.loads(ctx.action_results["entries"])] == [1, 2]
    assert ctx.action_results["cursor"] == "2"
    assert ctx.action_results["more"] == "true"


def test_torn_journal_does_not_break_the_charm(ctx: Ctx) -> None:
    state = ctx.run(ctx.on.install(), _state())
    with journal_path(ctx, STORAGE).open("a") as f:
        f.write('{"seq": 2, "event": "sta')  # power loss mid-write

    state = ctx.run(ctx.on.start(), state)
    ctx.run(ctx.on.action("journal"), state)

    assert [(e["seq"], e["event"]) for e in journal_entries(ctx, STORAGE)] == [
        (1, "install"),
        (2, "start"),
    ]
    assert ctx.action_results is not None
    assert json.loads(ctx.action_results["torn"]) == [2]


def test_events_before_storage_are_buffered_then_flushed_in_order(
    ctx: Ctx, charm_dir: Path
) -> None:
    state = ctx.run(ctx.on.install(), _state(storage=False))
    state = ctx.run(ctx.on.leader_elected(), state)
    assert not journal_path(ctx, STORAGE).exists()
    buffered = journal.buffer_entries(charm_dir)
    assert [e["event"] for e in buffered] == ["install", "leader-elected"]
    assert state.unit_status == testing.ActiveStatus(
        "journal storage not attached (2 buffered); no db relation; marker absent"
    )

    state = ctx.run(ctx.on.storage_attached(STORAGE), replace(state, storages={STORAGE}))

    entries = journal_entries(ctx, STORAGE)
    assert [(e["seq"], e["event"], e["buffered"]) for e in entries] == [
        (1, "install", True),
        (2, "leader-elected", True),
        (3, "journal-storage-attached", False),
    ]
    assert not (charm_dir / ".probe-journal-buffer.jsonl").exists()


def test_clear_journal_keeps_cursors_valid(ctx: Ctx) -> None:
    state = ctx.run(ctx.on.install(), _state())
    state = ctx.run(ctx.on.start(), state)

    state = ctx.run(ctx.on.action("clear-journal"), state)
    assert ctx.action_results == {"cleared": "2", "cursor": "2"}
    state = ctx.run(ctx.on.update_status(), state)
    ctx.run(ctx.on.action("journal", params={"since": 2}), state)

    assert ctx.action_results is not None
    assert [(e["seq"], e["event"]) for e in json.loads(ctx.action_results["entries"])] == [
        (3, "update-status")
    ]


def _realistic(seq: int) -> str:
    """A journal line of the size a unit with a few relations writes (~1.5 KB)."""
    digests = {f"probe-peers:{n}/probe/{n}": "sha256:" + f"{seq:064x}" for n in range(12)}
    return (
        json.dumps(
            {
                "seq": seq,
                "time": "2026-01-02T03:04:05.123456+00:00",
                "event": "update-status",
                "unit": "probe/0",
                "juju_version": "3.6.1",
                "pod": "probe-0",
                "root_incarnation": f"{seq:032x}",
                "charm_dir_incarnation": f"{seq:032x}",
                "databags": digests,
                "stored_state": {"local": True, "controller": True, "token": f"{seq:032x}"},
            }
        )
        + "\n"
    )


def test_a_journal_of_ten_thousand_entries_pages_under_the_argument_limit(ctx: Ctx) -> None:
    """Each action result must stay well under Linux's 128 KiB for one argument."""
    state = ctx.run(ctx.on.install(), _state())
    path = journal_path(ctx, STORAGE)
    path.write_text("".join(_realistic(n) for n in range(1, 10_001)))
    seen: list[int] = []
    cursor, pages = 0, 0
    while True:
        ctx.run(ctx.on.action("journal", params={"since": cursor}), state)
        results = ctx.action_results
        assert results is not None
        biggest = max(len(str(v).encode()) for v in results.values())
        assert biggest < 100 * 1024, f"a result of {biggest} bytes cannot pass action-set"
        page = json.loads(results["entries"])
        seen.extend(e["seq"] for e in page)
        cursor = int(results["cursor"])
        pages += 1
        if results.get("more") != "true":
            break
    assert seen == list(range(1, 10_001))
    assert pages < 400  # ~64 KiB a page


def test_one_oversized_entry_still_moves_the_cursor_on() -> None:
    huge = {"seq": 7, "event": "start", "unit": "probe/0", "blob": "x" * 200_000}
    found = journal.page([huge, {"seq": 8, "event": "stop"}], limit=10)
    entries = json.loads(found.text)
    assert entries[0] == {
        "seq": 7,
        "event": "start",
        "unit": "probe/0",
        "time": None,
        "oversized": True,
    }
    assert found.cursor == 8
    assert len(found.text) < 1000
