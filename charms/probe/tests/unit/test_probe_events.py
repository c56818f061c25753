"""Every hook event the probe can receive appends exactly one journal line describing it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ops
import pytest
from ops import testing
from probe_testing import JUJU_VERSION, POD, UNIT, ProbeCharm, journal_entries

Ctx = testing.Context[ProbeCharm]

REMOTE = testing.Relation(
    "probe-provider", remote_app_name="probe-peer", remote_units_data={0: {"k": "v"}}
)
REQUIRER = testing.Relation("probe-requirer", remote_app_name="probe-other")
DATABASE = testing.Relation("database", remote_app_name="mysql-router-k8s")
PEERS = testing.PeerRelation("probe-peers", peers_data={1: {}})
STORAGE = testing.Storage("journal")
WORKLOAD = testing.Container(
    "workload",
    can_connect=True,
    layers={
        "probe": ops.pebble.Layer(
            {"checks": {"alive": {"override": "replace", "exec": {"command": "true"}}}}
        )
    },
    check_infos={testing.CheckInfo("alive")},
    notices=[testing.Notice("probe.juju.is/ping")],
)
OBSERVED = testing.Secret({"a": "b"})
OWNED = testing.Secret({"a": "b"}, owner="app")


def _cases() -> list[tuple[str, Callable[[Any], Any]]]:
    """(hook name, factory taking ``ctx.on``): the factories need a Context's ``on``."""
    simple = [
        "install",
        "start",
        "stop",
        "remove",
        "upgrade_charm",
        "config_changed",
        "update_status",
        "leader_elected",
    ]
    cases: list[tuple[str, Callable[[Any], Any]]] = [
        (name.replace("_", "-"), lambda o, n=name: getattr(o, n)()) for name in simple
    ]
    for rel in (REMOTE, REQUIRER, DATABASE, PEERS):
        ep = rel.endpoint
        cases += [
            (f"{ep}-relation-created", lambda o, r=rel: o.relation_created(r)),
            (f"{ep}-relation-joined", lambda o, r=rel: o.relation_joined(r, remote_unit=0)),
            (f"{ep}-relation-changed", lambda o, r=rel: o.relation_changed(r, remote_unit=0)),
            (
                f"{ep}-relation-departed",
                lambda o, r=rel: o.relation_departed(r, remote_unit=0, departing_unit=0),
            ),
            (f"{ep}-relation-broken", lambda o, r=rel: o.relation_broken(r)),
        ]
    cases += [
        ("journal-storage-attached", lambda o: o.storage_attached(STORAGE)),
        ("journal-storage-detaching", lambda o: o.storage_detaching(STORAGE)),
        ("workload-pebble-ready", lambda o: o.pebble_ready(WORKLOAD)),
        (
            "workload-pebble-custom-notice",
            lambda o: o.pebble_custom_notice(WORKLOAD, WORKLOAD.notices[0]),
        ),
        (
            "workload-pebble-check-failed",
            lambda o: o.pebble_check_failed(WORKLOAD, testing.CheckInfo("alive")),
        ),
        (
            "workload-pebble-check-recovered",
            lambda o: o.pebble_check_recovered(WORKLOAD, testing.CheckInfo("alive")),
        ),
        ("secret-changed", lambda o: o.secret_changed(OBSERVED)),
        ("secret-rotate", lambda o: o.secret_rotate(OWNED)),
        ("secret-expired", lambda o: o.secret_expired(OWNED, revision=1)),
        ("secret-remove", lambda o: o.secret_remove(OWNED, revision=1)),
    ]
    return cases


CASES = _cases()


def _state(**extra: Any) -> testing.State:
    defaults: dict[str, Any] = {
        "leader": True,
        "relations": {REMOTE, REQUIRER, DATABASE, PEERS},
        "containers": {WORKLOAD},
        "storages": {STORAGE},
        "secrets": {OBSERVED, OWNED},
    }
    defaults.update(extra)
    return testing.State(**defaults)


@pytest.mark.parametrize(("hook", "make_event"), CASES, ids=[c[0] for c in CASES])
def test_each_hook_appends_one_line_naming_it(
    ctx: Ctx, hook: str, make_event: Callable[[Any], Any]
) -> None:
    ctx.run(make_event(ctx.on), _state())

    [entry] = journal_entries(ctx, STORAGE)
    assert entry["seq"] == 1
    assert entry["event"] == hook
    assert entry["dispatch_path"] == f"hooks/{hook}"
    assert entry["juju_version"] == JUJU_VERSION
    assert entry["unit"] == UNIT
    assert entry["pod"] == POD
    assert entry["leader"] is True
    assert entry["buffered"] is False
    assert entry["workload_marker"] == "absent"


def test_line_has_every_documented_field(ctx: Ctx) -> None:
    ctx.run(ctx.on.install(), _state())

    [entry] = journal_entries(ctx, STORAGE)
    assert list(entry) == [
        "seq",
        "time",
        "event",
        "unit",
        "juju_version",
        "dispatch_path",
        "pod",
        "root_incarnation",
        "root_incarnation_new",
        "charm_dir_incarnation",
        "charm_dir_incarnation_new",
        "workload_marker",
        "leader",
        "databags",
        "stored_state",
        "buffered",
    ]
    assert entry["time"].endswith("+00:00")
    assert set(entry["stored_state"]) == {"local", "controller", "token"}


def test_leader_settings_changed_is_journaled(ctx: Ctx) -> None:
    # ops.testing has no factory for this Juju 2.9-era hook: emit it on the live charm.
    with ctx(ctx.on.update_status(), _state(leader=False)) as manager:
        manager.charm.on.leader_settings_changed.emit()
        manager.run()

    events = [e["event"] for e in journal_entries(ctx, STORAGE)]
    assert events == ["leader-settings-changed", "update-status"]


def test_consecutive_events_get_increasing_seq(ctx: Ctx) -> None:
    state = _state()
    for make in (ctx.on.install, ctx.on.leader_elected, ctx.on.config_changed, ctx.on.start):
        state = ctx.run(make(), state)

    entries = journal_entries(ctx, STORAGE)
    assert [e["seq"] for e in entries] == [1, 2, 3, 4]
    assert [e["event"] for e in entries] == [
        "install",
        "leader-elected",
        "config-changed",
        "start",
    ]


def test_actions_and_collect_status_are_not_journaled(ctx: Ctx) -> None:
    state = ctx.run(ctx.on.install(), _state())
    ctx.run(ctx.on.action("dump-relations"), state)

    assert [e["event"] for e in journal_entries(ctx, STORAGE)] == ["install"]


def test_status_summarises_what_was_recorded(ctx: Ctx) -> None:
    state = ctx.run(ctx.on.install(), _state(relations=set()))
    state = ctx.run(ctx.on.start(), state)

    assert state.unit_status == testing.ActiveStatus(
        "journal 2 events; no db relation; marker absent"
    )


def test_pod_falls_back_to_the_hostname(ctx: Ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOSTNAME")
    monkeypatch.setattr("socket.gethostname", lambda: "probe-7")

    ctx.run(ctx.on.start(), _state())

    [entry] = journal_entries(ctx, STORAGE)
    assert entry["pod"] == "probe-7"
