"""ops' event lines reach the live reader, on both Juju drivers, as the real controller gives them.

Every ``juju`` command goes to ``DebugLogController``, which answers ``juju debug-log`` for the
exact argv sent with Juju's own filtering (module and level filters, ``--lines`` and its
10000 cap) over a model's log built from real debug-log samples, and stores only what the
model's logging-config keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any
from unittest.mock import create_autospec

import pytest
from debug_log_controller import DebugLogController, Record, sample_records
from juju.model import Model
from live_fakes import FakeClock
from samples import load_sample
from test_juju_port_contract import autospec_juju

from harness.common.errors import HarnessError
from harness.live.jubilant_port import JubilantJujuPort
from harness.live.juju_cli import DEBUG_LOG_FILTER, OPS_LOG_FILTER, JujuCLI
from harness.live.juju_port import LiveJujuPort
from harness.observe.debug_log import parse_lines
from harness.observe.log_cursor import LogCursor
from harness.run.hooks import collect_log_hooks

PGSQL = "debuglog_3.6.6_machine_postgresql_uniter_and_ops_full.txt"  # uniter and ops lines
TRAEFIK = "debuglog_2.9.31_k8s_traefik_ops_events_only_full.txt"  # ops lines only
# The two drivers on the Juju versions each can drive (libjuju: 2.9, 3.x; jubilant: 3.x, 4.x).
DRIVERS = [
    ("libjuju", "2.9.31"),
    ("libjuju", "3.6.6"),
    ("jubilant", "3.6.6"),
    ("jubilant", "4.0.1"),
]


def port_on(controller: DebugLogController, driver: str) -> LiveJujuPort:
    cli = JujuCLI(controller)
    if driver == "libjuju":
        model = create_autospec(Model, instance=True)
        # libjuju's major follows the controller's (2.9.49.1 for 2.9, 3.6.x for 3.x);
        # tox -e libjuju29 runs this file against the real 2.9 Model too.
        libjuju = "2.9.49.1" if controller.version.startswith("2.") else "3.6.1.3"
        return LiveJujuPort(model, cli, model_name="m", clock=FakeClock(), libjuju_version=libjuju)
    juju = autospec_juju(None, {"logging-config": controller.logging_config}, "mk8s:admin/m")  # type: ignore[arg-type]
    return JubilantJujuPort(juju, clock=FakeClock(), cli=cli)


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime


def window_of(records: list[Record]) -> Window:
    return Window(records[0].when - timedelta(seconds=1), records[-1].when + timedelta(seconds=1))


def hooks(records: Any) -> list[tuple[str, str, str | None, str]]:
    return [(r.unit, r.kind, r.hook, r.source) for r in records]


async def collected(
    controller: DebugLogController, driver: str, sample: str
) -> tuple[list[tuple[str, str, str | None, str]], tuple[str, ...]]:
    """The sample logged to the controller, then the run's collection over its window."""
    records = sample_records(sample)
    controller.log(records)
    port = port_on(controller, driver)
    seen = window_of(records)
    lab: Any = SimpleNamespace(backend="live", juju=port)
    found, notes = await collect_log_hooks(lab, await port.versions(), seen.start, seen.end)
    return hooks(found), notes


@pytest.mark.parametrize(("driver", "juju"), DRIVERS, ids=[f"{d}-{j}" for d, j in DRIVERS])
async def test_a_unit_without_uniter_lines_is_seen_through_ops_lines_read_live(
    driver: str, juju: str
) -> None:
    # The model the jhack traefik log came from kept unit DEBUG lines and dropped the
    # uniter's INFO lines (the sample has none), e.g. this logging-config:
    controller = DebugLogController("<root>=WARNING;unit=DEBUG", version=juju)

    found, notes = await collected(controller, driver, TRAEFIK)

    # Everything `repro timeline` finds in the whole log is found live (ops-log records).
    whole = "\n".join(controller._format(r, {"--date": [], "--ms": []}) for r in controller.stored)
    expected = hooks(parse_lines(whole.splitlines(), ops=True))
    assert found == expected
    assert ("trfk/0", "hook", "upgrade-charm", "ops-log") in expected
    assert len([h for h in expected if h[1:3] == ("hook", "update-status")]) == 103
    assert {kind for _, kind, _, _ in expected} >= {"hook", "deferred", "re-emitted"}
    assert notes == ()
    # One read for the uniter's modules at INFO, one for the charms' lines at DEBUG.
    assert ("--replay", "--no-tail", *DEBUG_LOG_FILTER) in controller.requests
    assert any(r[-len(OPS_LOG_FILTER) :] == OPS_LOG_FILTER for r in controller.requests)


@pytest.mark.parametrize(("driver", "juju"), DRIVERS, ids=[f"{d}-{j}" for d, j in DRIVERS])
async def test_ops_lines_join_uniter_lines_and_never_double_a_hook(driver: str, juju: str) -> None:
    controller = DebugLogController("<root>=INFO;unit=DEBUG", version=juju)

    found, _ = await collected(controller, driver, PGSQL)

    ran = [h for h in found if h[1] == "hook"]
    uniter = [h for h in ran if h[3] == "debug-log"]
    assert len(uniter) == load_sample(PGSQL).count('juju.worker.uniter.operation ran "')
    # The unit has uniter lines: its hooks are the uniter's, ops' marked events are kept.
    assert not [h for h in ran if h[3] == "ops-log"]
    assert any(h[1] == "re-emitted" for h in found)


@pytest.mark.parametrize(("driver", "juju"), DRIVERS, ids=[f"{d}-{j}" for d, j in DRIVERS])
async def test_juju_s_default_logging_config_drops_ops_lines_and_the_evidence_says_so(
    driver: str, juju: str
) -> None:
    controller = DebugLogController("<root>=INFO", version=juju)  # Juju's default since 2.8.4

    found, notes = await collected(controller, driver, PGSQL)

    assert not [h for h in found if h[3] == "ops-log"]
    (note,) = notes
    assert "logging-config '<root>=INFO' keeps unit.<app>/<n>.juju-log at INFO" in note
    assert "unit=DEBUG" in note
    # Nothing is downloaded for ops' lines that cannot be there.
    assert not [r for r in controller.requests if "unit" in r]


async def test_a_look_never_asks_for_more_lines_than_juju_answers() -> None:
    """After a busy spell (30,000 uniter lines since the last look) the cursor asks for at
    most Juju's 10,000 and says lines may be missed, instead of failing the settle."""
    controller = DebugLogController("<root>=INFO", version="3.6.6")
    start = datetime(2026, 1, 2, tzinfo=timezone.utc)
    busy = [
        Record(
            "unit-probe-0",
            start + timedelta(milliseconds=n),
            "INFO",
            "juju.worker.uniter.operation",
            f'ran "update-status" hook (via hook dispatching script: dispatch) #{n}',
        )
        for n in range(30_001)
    ]
    controller.log(busy[:1])
    port = port_on(controller, "libjuju")
    cursor = LogCursor(port)
    assert len(await cursor.new_lines()) == 1
    controller.log(busy[1:])

    fresh = await cursor.new_lines()

    assert len(fresh) == 10_000
    assert cursor.missed
    asked = [int(r[r.index("--lines") + 1]) for r in controller.requests[1:]]
    assert max(asked) == 10_000


async def test_the_ops_read_is_the_charms_modules_at_debug_and_capped() -> None:
    controller = DebugLogController("<root>=INFO;unit=DEBUG", version="4.0.1")
    port = port_on(controller, "jubilant")
    await port.ops_log_recent(50_000)
    assert controller.requests == [
        (
            "--no-tail",
            "--lines",
            "10000",
            "--include-module",
            "unit",
            "--date",
            "--utc",
            "--ms",
            "--level",
            "DEBUG",
        )
    ]


def test_the_fake_filters_modules_at_a_dot_boundary_as_juju_does() -> None:
    """Juju's own test (state/logs_test.go TestIncludeModule): juju.thing takes
    juju.thing.hai, not juju.things; and the level is one minimum for all."""
    controller = DebugLogController("<root>=TRACE")
    when = datetime(2026, 1, 2, tzinfo=timezone.utc)
    controller.log(
        Record("unit-a-0", when, level, module, "m")
        for module, level in (
            ("juju.thing", "INFO"),
            ("juju.thing.hai", "INFO"),
            ("juju.things", "INFO"),
            ("juju.thing", "DEBUG"),
        )
    )
    rc, out, _ = controller.debug_log(
        ("--replay", "--no-tail", "--include-module", "juju.thing", "--level", "INFO")
    )
    assert rc == 0
    assert [line.split()[3] for line in out.splitlines()] == ["juju.thing", "juju.thing.hai"]
    rc, _, err = controller.debug_log(("--no-tail", "--lines", "10001"))
    assert rc == 1
    assert "too many lines requested (10001) maximum is 10000" in err


async def test_a_model_config_that_cannot_be_read_still_reads_ops_lines() -> None:
    controller = DebugLogController("<root>=INFO;unit=DEBUG")
    port = port_on(controller, "libjuju")

    async def refused() -> Any:
        raise HarnessError("juju model-config failed", "")

    port.cli.model_config = refused  # type: ignore[method-assign]
    assert await port.keeps_ops_lines()
