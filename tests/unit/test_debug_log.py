"""The debug-log reader on every recorded debug-log and agent log file, and on edge lines."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timezone

import pytest
from samples import SAMPLES, load_sample, sample_names

from harness.common.observations import HookRecord
from harness.observe.debug_log import (
    UNKNOWN_UNIT,
    hook_names,
    parse_line,
    parse_lines,
    parse_ops_line,
    unit_from_entity,
)

DISPATCH = "(via hook dispatching script: dispatch)"

Row = tuple[str, str, str | None, str | None]  # unit, kind, hook (or version), outcome


def rows(records: list[HookRecord]) -> list[Row]:
    return [
        (r.unit, r.kind, r.detail if r.kind == "agent-start" else r.hook, r.outcome)
        for r in records
    ]


def parse_sample(name: str, unit: str | None = None) -> list[HookRecord]:
    return list(parse_lines(load_sample(name).splitlines(), unit))


def ok(unit: str, *hooks: str) -> list[Row]:
    return [(unit, "hook", hook, "ok") for hook in hooks]


# Read off each sample by hand: only `ran`/`failed`/`was terminated`/`skipped` lines of
# juju.* modules, reboot-detected lines and containerAgent starts of unit entities count.
EXPECTED: dict[str, list[Row]] = {
    # Excerpt without any `ran` line: only queued/running operations at DEBUG.
    "debuglog_2.7_machine_uo_install_debug_level.txt": [],
    # Podspec operator: entity application-mattermost and only [AGENT-STATUS] lines.
    "debuglog_2.8era_k8s_podspec_operator_agent_status.txt": [],
    # Only the charm's own juju-log lines (logging-config filtered the uniter out).
    "debuglog_2.9.31_k8s_traefik_jujulog_nodate.txt": [],
    "debuglog_2.9.31_k8s_traefik_jujulog_with_date_head80.txt": [
        ("trfk/0", "agent-start", "2.9.31", None),
        ("trfk/0", "agent-start", "2.9.31", None),
    ],
    "debuglog_2.9.32_k8s_prometheus_unit_lifecycle.txt": [
        ("prom/0", "agent-start", "2.9.32", None),
        *ok(
            "prom/0",
            "install",
            "prometheus-peers-relation-created",
            "leader-elected",
            "database-storage-attached",
            "config-changed",
            "start",
            "prometheus-pebble-ready",
            "update-status",
            "update-status",
            "update-status",
            "update-status",
        ),
    ],
    "debuglog_2.9era_k8s_grafana_install_leader_elected.txt": ok(
        "grafana-k8s/0", "install", "grafana-relation-created", "leader-elected"
    ),
    "debuglog_2.9era_k8s_grafana_relation_prefix_sigterm.txt": [
        *ok("grafana/1", "grafana-relation-changed"),
        *ok("grafana/0", "update-status"),
        *ok("grafana/1", "update-status"),
        *ok("grafana/0", "update-status", "grafana-relation-departed"),
    ],
    "debuglog_3.0-beta4_k8s_trfk_prom_lifecycle.txt": [
        ("trfk/0", "agent-start", "3.0-beta4", None),
        ("prom/0", "agent-start", "3.0-beta4", None),
        *ok("trfk/0", "install", "ingress-per-unit-relation-created"),
        *ok("trfk/0", "leader-elected", "configurations-storage-attached"),
        *ok("prom/0", "install"),
        *ok("trfk/0", "config-changed"),
        *ok("prom/0", "prometheus-peers-relation-created"),
        *ok("trfk/0", "start"),
        *ok("prom/0", "ingress-relation-created"),
        *ok("trfk/0", "ingress-per-unit-relation-joined"),
        *ok("prom/0", "leader-elected"),
        *ok("trfk/0", "ingress-per-unit-relation-changed"),
        *ok("prom/0", "database-storage-attached"),
    ],
    "debuglog_3.6.3_k8s_alertmanager_pod_restart_reboot_detected.txt": [
        ("alertmanager/0", "agent-start", "3.6.3", None),
        *ok(
            "alertmanager/0",
            "install",
            "self-metrics-endpoint-relation-created",
            "grafana-source-relation-created",
            "alerting-relation-created",
            "ingress-relation-created",
            "grafana-dashboard-relation-created",
            "replicas-relation-created",
            "alerting-relation-created",
            "catalogue-relation-created",
            "leader-elected",
            "data-storage-attached",
            "config-changed",
            "start",
            "catalogue-relation-joined",
            "catalogue-relation-changed",
        ),
        ("alertmanager/0", "hook", "alertmanager-pebble-ready", "terminated"),
        *ok("alertmanager/0", "stop"),
        ("alertmanager/0", "agent-start", "3.6.3", None),
        *ok("alertmanager/0", "upgrade-charm", "config-changed"),
        ("alertmanager/0", "reboot", None, None),
        *ok(
            "alertmanager/0",
            "start",
            "alertmanager-pebble-ready",
            "grafana-dashboard-relation-joined",
        ),
    ],
    # A machine model: machine-0 lines are skipped; the meter-status worker reports it could
    # not run its hook: `error running "meter-status-changed": charm missing from disk`.
    "debuglog_3.6.6_machine_postgresql_with_date_head200.txt": [
        ("postgresql/0", "hook", "meter-status-changed", "not-run"),
        *ok(
            "postgresql/0",
            "archive-storage-attached",
            "data-storage-attached",
            "temp-storage-attached",
            "logs-storage-attached",
            "install",
        ),
    ],
    # Juju 4.0.1: a queued install is not a hook run, and the controller's status-history
    # line (status: "waiting") is not a hook either.
    "debuglog_4.0.1_mysql_test_app_install_queued_excerpt.txt": [],
    # An agent log file has no entity: the unit is unknown unless the caller names it.
    "agentlogfile_2.8era_machine_with_location.txt": [
        (UNKNOWN_UNIT, "hook", "db-relation-created", "skipped"),
    ],
}


def test_every_debug_log_sample_has_expectations() -> None:
    names = sample_names("debuglog_") + sample_names("agentlogfile_")
    # The full logs are checked by counts (cos-lite) and against jhack (the ops logs).
    full = {
        "debuglog_3.6.3_k8s_cos_lite_full.txt",
        "debuglog_2.9.31_k8s_traefik_ops_events_only_full.txt",
        "debuglog_3.6.6_machine_postgresql_uniter_and_ops_full.txt",
        "debuglog_k8s_parca_relation_prefix_failed_hook.txt",
    }
    assert set(names) - full == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_gives_the_exact_sequence(name: str) -> None:
    records = parse_sample(name)

    assert rows(records) == EXPECTED[name]
    assert all(r.source == "debug-log" for r in records)


def test_times_are_as_written_with_and_without_date() -> None:
    dated = parse_sample("debuglog_2.9.32_k8s_prometheus_unit_lifecycle.txt")
    undated = parse_sample("debuglog_3.6.3_k8s_alertmanager_pod_restart_reboot_detected.txt")
    agent_file = parse_sample("agentlogfile_2.8era_machine_with_location.txt")

    assert [r.time for r in dated[:2]] == ["2022-07-20 15:34:06", "2022-07-20 15:34:16"]
    assert [r.time for r in undated if r.kind == "reboot"] == ["08:37:25"]
    assert agent_file[0].time == "2020-06-01 10:33:28"


def test_failed_meter_status_hook_keeps_the_error() -> None:
    first = parse_sample("debuglog_3.6.6_machine_postgresql_with_date_head200.txt")[0]

    assert (first.time, first.detail) == ("2025-06-05 13:15:44", "charm missing from disk")


def test_agent_log_file_takes_the_unit_from_the_caller() -> None:
    records = parse_sample("agentlogfile_2.8era_machine_with_location.txt", unit="pgbouncer/0")

    assert rows(records) == [("pgbouncer/0", "hook", "db-relation-created", "skipped")]


def test_charm_container_log_with_container_agent_prefix() -> None:
    records = parse_sample(
        "kubectl_logs_charm_container_2.9.44_postgresql_k8s.txt", unit="postgresql-k8s/0"
    )

    assert rows(records) == [("postgresql-k8s/0", "agent-start", "2.9.44", None)]
    assert records[0].time == "2024-03-01 15:18:56"


@pytest.mark.parametrize(
    "name",
    [
        "kubectl_logs_charm_container_2.9.35_grafana_k8s.txt",
        "kubectl_logs_charm_container_2.9.37_istio_awaiting_error_resolution.txt",
    ],
)
def test_charm_container_logs_without_hook_results(name: str) -> None:
    # Pebble lines, `awaiting error resolution for "start" hook` and a bare juju-log line.
    assert parse_sample(name) == []


@pytest.fixture(scope="module")
def cos_lite() -> list[HookRecord]:
    return parse_sample("debuglog_3.6.3_k8s_cos_lite_full.txt")


class TestCosLiteFullLog:
    def test_per_unit_counts(self, cos_lite: list[HookRecord]) -> None:
        counts = Counter((r.unit, r.kind, r.outcome) for r in cos_lite)

        assert counts == {
            ("alertmanager/0", "hook", "ok"): 32,
            ("alertmanager/0", "hook", "terminated"): 1,
            ("alertmanager/0", "reboot", None): 1,
            ("alertmanager/0", "agent-start", None): 2,
            ("catalogue/0", "hook", "ok"): 12,
            ("catalogue/0", "agent-start", None): 1,
            ("grafana/0", "hook", "ok"): 4,
            ("grafana/0", "agent-start", None): 2,
            ("loki/0", "hook", "ok"): 7,
            ("loki/0", "reboot", None): 1,
            ("loki/0", "agent-start", None): 2,
            ("prometheus/0", "hook", "ok"): 1,
            ("prometheus/0", "agent-start", None): 2,
            ("traefik/0", "agent-start", None): 1,
        }

    def test_loki_restart_sequence(self, cos_lite: list[HookRecord]) -> None:
        loki = [row for row in rows(cos_lite) if row[0] == "loki/0"]

        assert loki == [
            ("loki/0", "agent-start", "3.6.3", None),
            ("loki/0", "agent-start", "3.6.3", None),
            *ok("loki/0", "upgrade-charm", "config-changed"),
            ("loki/0", "reboot", None, None),
            *ok(
                "loki/0",
                "start",
                "loki-pebble-ready",
                "grafana-source-relation-changed",
                "ingress-relation-changed",
                "update-status",
            ),
        ]

    def test_grafana_and_prometheus_sequences(self, cos_lite: list[HookRecord]) -> None:
        assert hook_names(cos_lite, "grafana/0") == (
            "install",
            "grafana-source-relation-created",
            "grafana-dashboard-relation-created",
            "grafana-dashboard-relation-created",
        )
        assert hook_names(cos_lite, "prometheus/0") == ("install",)
        assert hook_names(cos_lite, "traefik/0") == ()

    def test_alertmanager_pod_restart(self, cos_lite: list[HookRecord]) -> None:
        alertmanager = [r for r in cos_lite if r.unit == "alertmanager/0"]
        terminated = next(i for i, r in enumerate(alertmanager) if r.outcome == "terminated")
        window = rows(alertmanager[terminated : terminated + 7])

        assert window == [
            ("alertmanager/0", "hook", "alertmanager-pebble-ready", "terminated"),
            *ok("alertmanager/0", "stop"),
            ("alertmanager/0", "agent-start", "3.6.3", None),
            *ok("alertmanager/0", "upgrade-charm", "config-changed"),
            ("alertmanager/0", "reboot", None, None),
            *ok("alertmanager/0", "start"),
        ]
        assert alertmanager[-1].hook == "alerting-relation-changed"
        assert alertmanager[-1].time == "08:37:48"


OPERATION = "juju.worker.uniter.operation"


def log(
    message: str,
    entity: str = "unit-probe-0",
    module: str = OPERATION,
    level: str = "INFO",
    time: str = "10:00:01",
) -> str:
    """A debug-log line as `juju debug-log` prints it."""
    return f"{entity}: {time} {level} {module} {message}"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param(
            log(f'ran "database-relation-changed" hook {DISPATCH}', "unit-mysql-router-k8s-12"),
            ("mysql-router-k8s/12", "hook", "database-relation-changed", "ok"),
            id="app-with-hyphens",
        ),
        pytest.param(
            log(f'ran "s3-relation-joined" hook {DISPATCH}', "unit-app2-db3-0"),
            ("app2-db3/0", "hook", "s3-relation-joined", "ok"),
            id="app-with-digits",
        ),
        pytest.param(
            log('ran "install" hook'),
            ("probe/0", "hook", "install", "ok"),
            id="before-2.8-no-via",
        ),
        pytest.param(
            log('ran "stop" hook (via explicit, bespoke hook script)'),
            ("probe/0", "hook", "stop", "ok"),
            id="explicit-hook-script",
        ),
        pytest.param(
            log('hook "workload-pebble-ready" was terminated', level="WARNING"),
            ("probe/0", "hook", "workload-pebble-ready", "terminated"),
            id="3.x-terminated",
        ),
        pytest.param(
            log('skipped "probe-relation-created" hook (missing)'),
            ("probe/0", "hook", "probe-relation-created", "skipped"),
            id="skipped",
        ),
        pytest.param(
            log(
                "reboot detected; triggering implicit start hook to notify charm",
                module="juju.worker.uniter",
            ),
            ("probe/0", "reboot", None, None),
            id="reboot",
        ),
        pytest.param(
            log(
                f'ran "db-relation-changed" hook {DISPATCH}',
                "application-mattermost",
                "juju.worker.caasoperator.uniter.mattermost/0.operation",
            ),
            ("mattermost/0", "hook", "db-relation-changed", "ok"),
            id="podspec-operator-unit-name",
        ),
        pytest.param(
            log(
                f'ran "start" hook {DISPATCH}',
                "application-mattermost-k8s",
                "juju.worker.caasoperator.uniter.mattermost-k8s-1.operation",
            ),
            ("mattermost-k8s/1", "hook", "start", "ok"),
            id="podspec-operator-unit-tag-style",
        ),
        pytest.param(
            log(f'ran "start" hook {DISPATCH}', time="2024-05-01 08:00:00.123"),
            ("probe/0", "hook", "start", "ok"),
            id="date-and-ms",
        ),
        pytest.param(
            log(f'runhook.go:186 ran "start" hook {DISPATCH}'),
            ("probe/0", "hook", "start", "ok"),
            id="location",
        ),
        pytest.param(
            # cmd/juju/commands/debuglog.go prints a record's labels, joined by ",",
            # between the module (and location) and the message.
            log(f'runhook.go:186 uniter,hooks ran "start" hook {DISPATCH}'),
            ("probe/0", "hook", "start", "ok"),
            id="location-and-labels",
        ),
        pytest.param(
            log('"meter-status-changed" hook was terminated', module="juju.worker.meterstatus"),
            ("probe/0", "hook", "meter-status-changed", "terminated"),
            id="meter-status-terminated",
        ),
        pytest.param(
            # `juju debug-log --color` wraps the level in ANSI codes.
            log(f'ran "start" hook {DISPATCH}\r\n', level="\x1b[94mINFO\x1b[0m"),
            ("probe/0", "hook", "start", "ok"),
            id="color-and-crlf",
        ),
    ],
)
def test_edge_lines(line: str, expected: Row) -> None:
    record = parse_line(line)

    assert record is not None
    assert rows([record]) == [expected]


def test_failed_hook_keeps_an_error_with_colons() -> None:
    line = log(
        f"hook \"config-changed\" {DISPATCH} failed: exit status 1: ops: error: key 'a:b' missing",
        level="ERROR",
        time="2026-01-02 03:04:05",
    )

    record = parse_line(line)

    assert record == HookRecord(
        unit="probe/0",
        time="2026-01-02 03:04:05",
        kind="hook",
        source="debug-log",
        hook="config-changed",
        outcome="failed",
        detail="exit status 1: ops: error: key 'a:b' missing",
    )


def test_failed_hook_before_2_8_without_via() -> None:
    line = log('hook "install" failed: exit status 1', level="ERROR")

    record = parse_line(line)

    assert record is not None
    assert (record.hook, record.outcome, record.detail) == ("install", "failed", "exit status 1")


def test_utc_times_are_kept_as_written() -> None:
    # --utc changes the zone, not the format: the time is whatever the log says.
    record = parse_line(log(f'ran "stop" hook {DISPATCH}', time="2026-03-01 23:59:59"))

    assert record is not None
    assert record.time == "2026-03-01 23:59:59"


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(
            log(f'ran "install" hook {DISPATCH}', module="unit.probe/0.juju-log"),
            id="juju-log-quoting-a-hook-line",
        ),
        pytest.param(
            log(
                "database:3: reboot detected; triggering implicit start hook to notify charm",
                module="unit.probe/0.juju-log",
            ),
            id="juju-log-with-relation-prefix",
        ),
        pytest.param(
            log("Legacy hooks/install exited with status 0.", module="unit.probe/0.juju-log"),
            id="ops-legacy-hook",
        ),
        pytest.param(
            log('found queued "install" hook', module="juju.worker.uniter"),
            id="queued-not-run",
        ),
        pytest.param(
            log(
                "[AGENT-STATUS] executing: running install hook",
                "application-mattermost",
                "juju.worker.uniter",
                "DEBUG",
            ),
            id="podspec-status-without-unit",
        ),
        pytest.param(log(f'ran "install" hook {DISPATCH}', "machine-0"), id="machine-entity"),
        pytest.param(
            log("running containerAgent [3.6.3 abc gc go1.23]", "controller-0", "juju.cmd"),
            id="controller-entity",
        ),
        pytest.param(
            log("running containerAgent [3.6.3]", module="juju.worker.caasupgrader"),
            id="agent-start-from-another-module",
        ),
        pytest.param(log('ran "inst'), id="truncated"),
        pytest.param(f'ran "install" hook {DISPATCH}', id="bare-message"),
        pytest.param("", id="empty"),
        pytest.param("\n", id="newline"),
        pytest.param("hook", id="one-word"),
        pytest.param("unit-probe-0:", id="entity-only"),
        pytest.param('\x00\xff garbage \' hook "x" ~~~', id="binary-garbage"),
        pytest.param("stack trace:", id="continuation-line"),
    ],
)
def test_lines_that_are_not_hook_records(line: str) -> None:
    assert parse_line(line) is None


def test_parse_lines_streams_lazily() -> None:
    def lines() -> Iterator[str]:
        yield log("logger worker started", module="juju.worker.logger")
        yield log(f'ran "start" hook {DISPATCH}')
        raise AssertionError("read past the first hook line")

    first = next(parse_lines(lines()))

    assert first.hook == "start"


def test_hook_names_filters_unit_and_outcome() -> None:
    records = parse_sample("debuglog_3.6.3_k8s_alertmanager_pod_restart_reboot_detected.txt")

    completed = hook_names(records, "alertmanager/0", outcomes=("ok",))
    everything = hook_names(records, "alertmanager/0")

    assert "alertmanager-pebble-ready" in everything[:17]
    assert completed[13:18] == (
        "catalogue-relation-joined",
        "catalogue-relation-changed",
        "stop",
        "upgrade-charm",
        "config-changed",
    )
    assert len(everything) == len(completed) + 1
    assert hook_names(records, "alertmanager/1") == ()


@pytest.mark.parametrize(
    ("entity", "unit"),
    [
        ("unit-probe-0", "probe/0"),
        ("unit-mysql-router-k8s-10", "mysql-router-k8s/10"),
        ("application-probe", None),
        ("machine-0", None),
        ("unit-probe", None),
        ("unit--0", None),
    ],
)
def test_unit_from_entity(entity: str, unit: str | None) -> None:
    assert unit_from_entity(entity) == unit


# --- ops' event lines: a second, charm-side source ---------------------------------------

JHACK = json.loads((SAMPLES / "jhack_tail_captured.json").read_text("utf-8"))


def test_the_jhack_comparison_covers_every_sample_with_ops_lines() -> None:
    with_ops = [n for n in sample_names("debuglog_") if "Emitting " in load_sample(n)]
    assert sorted(JHACK["samples"]) == with_ops
    assert "debuglog_2.9.31_k8s_traefik_ops_events_only_full.txt" in with_ops


@pytest.mark.parametrize("name", sorted(JHACK["samples"]))
def test_every_event_jhack_finds_is_found(name: str) -> None:
    """jhack's own tail parser on its own test logs: each event it captured, we capture."""
    records = list(parse_lines(load_sample(name).splitlines(), ops=True))
    ours: dict[str, list[tuple[str, str]]] = {}
    for r in records:
        # A hook the uniter ran is an event ops emitted (ops' line joined into it).
        how = {"hook": "emitted", "action": "emitted", "re-emitted": "re-emitted"}.get(r.kind)
        if how and r.hook:
            name_ = r.hook.replace("-", "_") + ("_action" if r.kind == "action" else "")
            ours.setdefault(r.unit, []).append((name_, how))
    theirs: dict[str, list[tuple[str, str]]] = {}
    for unit, event, how in JHACK["samples"][name]:
        theirs.setdefault(unit, []).append((event, how))

    assert theirs
    for unit, events in theirs.items():
        missing = Counter(events) - Counter(ours.get(unit, []))
        assert not missing, f"{unit}: jhack found, we did not: {missing}"
        emitted = [e for e in events if e[1] == "emitted"]
        assert _is_subsequence(emitted, [e for e in ours[unit] if e[1] == "emitted"])


def _is_subsequence(short: list[tuple[str, str]], long: list[tuple[str, str]]) -> bool:
    rest = iter(long)
    return all(item in rest for item in short)


def test_a_log_without_uniter_lines_gives_ops_hooks() -> None:
    records = parse_sample("debuglog_2.9.31_k8s_traefik_ops_events_only_full.txt")
    assert [r for r in records if r.kind == "hook"] == []  # the uniter's view: no hook

    records = list(
        parse_lines(
            load_sample("debuglog_2.9.31_k8s_traefik_ops_events_only_full.txt").splitlines(),
            ops=True,
        )
    )
    hooks = [r.hook for r in records if r.kind == "hook"]
    assert hooks[:4] == [
        "install",
        "leader-elected",
        "configurations-storage-attached",
        "config-changed",
    ]
    ops = [r for r in records if r.source == "ops-log"]
    assert len(ops) == len(records) - 2  # and the agent's two starts
    assert {r.kind for r in ops} == {"hook", "deferred", "re-emitted"}
    assert all(r.outcome is None for r in ops)  # ops says it began, not how it ended


def test_uniter_and_ops_lines_of_one_hook_are_joined() -> None:
    text = load_sample("debuglog_3.6.6_machine_postgresql_uniter_and_ops_full.txt")
    joined = list(parse_lines(text.splitlines(), ops=True))
    uniter = list(parse_lines(text.splitlines()))

    # Every uniter record is kept, in order; ops' copies of those hooks are gone.
    assert [r for r in joined if r.source == "debug-log"] == uniter
    assert not [r for r in joined if r.source == "ops-log" and r.kind == "hook"]
    marked = [(r.kind, r.hook) for r in joined if r.source == "ops-log"]
    assert ("re-emitted", "leader-elected") in marked
    assert ("deferred", "config-changed") in marked


def ops_log(message: str, unit: str = "probe/0", time: str = "10:00:01") -> str:
    entity = "unit-" + unit.replace("/", "-")
    return f"{entity}: {time} DEBUG unit.{unit}.juju-log {message}"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param(
            ops_log("Emitting Juju event workload_pebble_ready."),
            ("probe/0", "hook", "workload-pebble-ready", ""),
            id="emitted",
        ),
        pytest.param(
            ops_log("database:5: root:Emitting Juju event database_relation_changed."),
            ("probe/0", "hook", "database-relation-changed", "on database:5"),
            id="relation-and-logger-prefix",
        ),
        pytest.param(
            ops_log("Emitting Juju event journal_action."),
            ("probe/0", "action", "journal", ""),
            id="action",
        ),
        pytest.param(
            ops_log("Emitting custom event <DatabaseCreatedEvent via ProbeCharm/on/created[7]>."),
            (
                "probe/0",
                "custom-event",
                "created",
                "custom event DatabaseCreatedEvent: charm code, not a Juju hook",
            ),
            id="custom",
        ),
        pytest.param(
            # ops 2.x/3.x: framework.py says which of the queue it is.
            ops_log(
                "ops.framework:Re-emitting deferred event "
                "<StartEvent via ProbeCharm/on/start[3]> (1 of 2 in queue)."
            ),
            ("probe/0", "re-emitted", "start", "deferred earlier"),
            id="re-emitted-with-queue",
        ),
        pytest.param(
            ops_log("Re-emitting <UpdateStatusEvent via TraefikCharm/on/update_status[16]>."),
            ("probe/0", "re-emitted", "update-status", "deferred earlier"),
            id="re-emitted-before-ops-2.1",
        ),
        pytest.param(
            ops_log("Deferring <ConfigChangedEvent via ProbeCharm/on/config_changed[46]>."),
            ("probe/0", "deferred", "config-changed", "deferred by the charm"),
            id="deferred",
        ),
    ],
)
def test_ops_lines(line: str, expected: tuple[str, str, str, str]) -> None:
    record = parse_ops_line(line)

    assert record is not None
    assert (record.unit, record.kind, record.hook, record.detail) == expected
    assert record.source == "ops-log"


@pytest.mark.parametrize(
    "line",
    [
        ops_log("Emitting Juju event start, said the charm, quoting ops"),
        "machine-0: 10:00:01 DEBUG unit.probe/0.juju-log Emitting Juju event start.",
        "unit-probe-0: 10:00:01 DEBUG juju.worker.uniter Emitting Juju event start.",
    ],
    ids=["not-ops-sentence", "not-a-unit-entity", "not-juju-log"],
)
def test_lines_that_only_look_like_ops(line: str) -> None:
    assert parse_ops_line(line) is None


def test_a_byte_order_mark_does_not_hide_the_first_hook() -> None:
    first = "\ufeff" + log(f'ran "install" hook {DISPATCH}')

    records = list(parse_lines([first, log(f'ran "start" hook {DISPATCH}')]))

    assert [r.hook for r in records] == ["install", "start"]


def test_a_hook_the_meter_status_worker_could_not_run_is_not_a_failure() -> None:
    record = parse_sample("debuglog_3.6.6_machine_postgresql_with_date_head200.txt")[0]

    assert (record.hook, record.outcome) == ("meter-status-changed", "not-run")
    assert record.detail == "charm missing from disk"


def test_a_hook_the_twin_could_not_run_is_a_not_run_record_saying_why() -> None:
    from harness.twin.juju import render_debug_log
    from harness.twin.uniter import Dispatched

    lines = list(
        render_debug_log(
            [
                Dispatched(
                    "probe/1",
                    "leader-settings-changed",
                    datetime(2000, 1, 1, 0, 0, 5, tzinfo=timezone.utc),
                    "skipped",
                    "",
                    "ops.testing has no public constructor for it",
                )
            ]
        )
    )

    (record,) = parse_lines(lines)
    assert (record.unit, record.hook, record.outcome) == (
        "probe/1",
        "leader-settings-changed",
        "not-run",
    )
    assert (
        record.detail == "the twin could not run it: ops.testing has no public constructor for it"
    )
