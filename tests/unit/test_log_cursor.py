"""The debug-log cursor's first look, its fullness check and its tail, as Juju answers.

``DebugLogController`` answers ``juju debug-log --lines N`` as Juju does: N counts records
(log entries that pass the filters), and a record whose message holds newlines (an ops
traceback sent through ``juju-log``) prints as several lines, the later ones without a
time stamp (state/logs.go on 3.6, internal/logtailer/tailer.go on 4.0).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from debug_log_controller import DebugLogController, Record
from test_live_ops_lines import port_on

from harness.observe.log_cursor import LogCursor, merged

T0 = datetime(2026, 1, 2, 10, 0, tzinfo=timezone.utc)
OPS = "unit.probe/0.juju-log"  # the charm's juju-log lines: ops' events and tracebacks
CONFIG = "<root>=INFO;unit=DEBUG"
TRACEBACK = (
    "Uncaught exception while in charm code:\n"
    "Traceback (most recent call last):\n"
    '  File "/var/lib/juju/agents/unit-probe-0/charm/./src/charm.py", line 9, in <module>\n'
    "ops.model.ModelError: ERROR permission denied"
)


def hook(unit: str, when: datetime, name: str) -> Record:
    return Record(unit, when, "DEBUG", OPS, f'Emitting Juju event "{name}".')


def failed(unit: str, when: datetime) -> Record:
    return Record(unit, when, "ERROR", OPS, TRACEBACK)


def cursor_on(
    controller: DebugLogController, since: datetime | None = None, **kw: int
) -> LogCursor:
    port = port_on(controller, "jubilant")
    return LogCursor(port, since=since, read=port.cli.ops_log_recent, **kw)


async def test_a_first_look_at_a_short_log_keeps_only_lines_since_the_disruption() -> None:
    """The whole log fits in one read: lines from before ``since`` (and the continuation
    lines of their records) are still not new."""
    controller = DebugLogController(CONFIG)
    controller.log(
        [
            hook("unit-probe-0", T0, "start"),
            failed("unit-probe-0", T0 + timedelta(minutes=1)),
            hook("unit-probe-0", T0 + timedelta(hours=1), "upgrade-charm"),
            failed("unit-probe-0", T0 + timedelta(hours=1, seconds=1)),
        ]
    )
    cursor = cursor_on(controller, since=T0 + timedelta(minutes=30))

    fresh = await cursor.new_lines()

    assert '"upgrade-charm"' in fresh[0]
    assert not [line for line in fresh if '"start"' in line]
    first, *rest = TRACEBACK.splitlines()
    assert fresh[1:] == [f"unit-probe-0: 2026-01-02 11:00:01.000 ERROR {OPS} {first}", *rest]
    assert len(fresh) == 1 + 4
    assert cursor.lines_requested == [200]


async def test_a_first_look_where_nothing_is_new_yet_returns_nothing() -> None:
    controller = DebugLogController(CONFIG)
    controller.log([hook("unit-probe-0", T0, "start"), failed("unit-probe-0", T0)])
    cursor = cursor_on(controller, since=T0 + timedelta(minutes=30))
    assert await cursor.new_lines() == []
    controller.log([hook("unit-probe-0", T0 + timedelta(hours=1), "upgrade-charm")])
    assert [line.split('"')[1] for line in await cursor.new_lines()] == ["upgrade-charm"]


async def test_multi_line_records_do_not_make_a_short_read_look_full() -> None:
    """150 records of 4 lines each: Juju answered all of them to ``--lines 200`` (600
    lines), so one request is enough and nothing was missed."""
    controller = DebugLogController(CONFIG)
    controller.log(failed("unit-probe-0", T0 + timedelta(seconds=n)) for n in range(150))
    cursor = cursor_on(controller, since=T0 - timedelta(minutes=1), max_batch=200)

    fresh = await cursor.new_lines()

    assert len(fresh) == 600
    assert cursor.lines_requested == [200]
    assert not cursor.missed


async def test_a_read_of_as_many_records_as_asked_grows_until_it_reaches_since() -> None:
    """300 records since ``since``: the first 200-record read is full (even though most
    of its lines are continuation lines), so the cursor asks for more, not stops short."""
    controller = DebugLogController(CONFIG)
    controller.log([hook("unit-probe-0", T0 - timedelta(hours=1), "install")])
    controller.log(failed("unit-probe-0", T0 + timedelta(seconds=n)) for n in range(300))
    cursor = cursor_on(controller, since=T0)

    fresh = await cursor.new_lines()

    assert len(fresh) == 300 * 4
    assert not [line for line in fresh if '"install"' in line]
    assert cursor.lines_requested == [200 + 800]


async def test_a_repeated_traceback_is_new_each_time_it_is_logged() -> None:
    """A failing hook retried logs the same traceback again: its continuation lines repeat,
    so where the previous look ended is found by a line with a time, never by them alone."""
    controller = DebugLogController(CONFIG)
    controller.log([failed("unit-probe-0", T0)])
    cursor = cursor_on(controller)
    assert len(await cursor.new_lines()) == 4

    controller.log([failed("unit-probe-0", T0 + timedelta(seconds=5))])
    fresh = await cursor.new_lines()

    assert len(fresh) == 4
    assert fresh[0].startswith("unit-probe-0: 2026-01-02 10:00:05.000 ERROR")


@pytest.mark.parametrize("version", ["2.9.49", "3.6.1", "4.0.0"])
async def test_a_record_stored_late_is_read_once(version: str) -> None:
    """issue 23 point 4: on 2.9 and 3.6 a record that reaches the store after later ones
    (an agent's or the controller's log buffer) sorts before lines already read; the next
    look still returns it, and returns nothing twice. 4.0 appends it after them. (First
    seen failing in the rehearsal: tests/rehearsal/test_defects.py.)"""
    controller = DebugLogController(CONFIG, version=version)
    controller.log(
        [hook("unit-probe-0", T0 + timedelta(seconds=n), "update-status") for n in (0, 9)]
    )
    controller.log([hook("unit-probe-1", T0 + timedelta(seconds=10), "config-changed")])
    cursor = cursor_on(controller, since=T0)
    assert len(await cursor.new_lines()) == 3

    controller.log([hook("unit-probe-0", T0 + timedelta(seconds=4), "start")])  # held back
    controller.log([hook("unit-probe-1", T0 + timedelta(seconds=12), "leader-elected")])
    fresh = [line.split('"')[1] for line in await cursor.new_lines()]

    assert sorted(fresh) == ["leader-elected", "start"]
    assert await cursor.new_lines() == []


async def test_a_record_later_than_the_overlap_is_not_read_again_as_new() -> None:
    """The overlap reaches back a minute (Juju's own tail assumes no more: ``oplogOverlap``,
    state/logs.go@3.6 L431): older lines of a long read are not taken as new."""
    controller = DebugLogController(CONFIG)
    controller.log(
        hook("unit-probe-0", T0 + timedelta(seconds=n), f"e{n}") for n in range(0, 300, 10)
    )
    cursor = cursor_on(controller, since=T0)
    assert len(await cursor.new_lines()) == 30
    controller.log([hook("unit-probe-0", T0 + timedelta(seconds=300), "last")])
    assert [line.split('"')[1] for line in await cursor.new_lines()] == ["last"]


def test_merging_streams_keeps_a_record_s_lines_together() -> None:
    ops = [
        "unit-probe-0: 2026-01-02 10:00:01.000 ERROR unit.probe/0.juju-log Uncaught:",
        "Traceback (most recent call last):",
        "ops.model.ModelError: ERROR permission denied",
    ]
    uniter = [
        "unit-probe-0: 2026-01-02 10:00:00.500 INFO juju.cmd running containerAgent",
        'unit-probe-0: 2026-01-02 10:00:02.000 ERROR juju.worker.uniter.operation hook "start"'
        " (via hook dispatching script: dispatch) failed: exit status 1",
    ]
    assert merged(ops, uniter) == [uniter[0], *ops, uniter[1]]
