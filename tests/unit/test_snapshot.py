"""take_snapshot and the probe journal reader, on in-memory ports."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException
from live_fakes import FakeClock, FakeCluster, FakeJuju, make_lab, pod, status

from harness.common.errors import HarnessError
from harness.common.observations import UNLISTED, Databag, FileState
from harness.lab.ports import ActionResult
from harness.observe.journal import hook_records, read_journal
from harness.observe.snapshot import probe_databags, take_snapshot
from harness.scenario.stack import default_stack


def entry(seq: int, event: str, unit: str = "probe/0", **extra: Any) -> dict[str, Any]:
    """One journal line as the probe charm writes it (charms/probe README)."""
    return {
        "seq": seq,
        "time": f"2026-01-02T03:0{seq}:00+00:00",
        "event": event,
        "unit": unit,
        "juju_version": "3.6.1",
        "dispatch_path": f"hooks/{event}",
        "pod": unit.replace("/", "-"),
        "root_incarnation": "r1",
        "root_incarnation_new": seq == 1,
        "charm_dir_incarnation": "c1",
        "charm_dir_incarnation_new": seq == 1,
        "workload_marker": "present",
        "leader": True,
        "databags": {"database:3/probe": "sha256:aa"},
        "stored_state": {"local": True, "controller": True},
        "buffered": False,
        **extra,
    }


def journal_result(
    unit: str, entries: list[dict[str, Any]], cursor: int, more: bool = False
) -> ActionResult:
    results = {"entries": json.dumps(entries), "cursor": str(cursor)}
    if more:
        results["more"] = "true"
    return ActionResult(unit, "journal", "completed", results)


RELATIONS = [
    {
        "relation_id": 3,
        "endpoint": "database",
        "remote_app": "mysql-router-k8s",
        "app": {"database": "probe"},
        "unit": {},
        "remote_app_data": {"endpoints": "mysql-router-k8s:6446", "secret-user": "secret://x"},
        "remote_units": {"mysql-router-k8s/0": {"ingress-address": "10.1.1.1"}},
    },
    {
        "relation_id": 0,
        "endpoint": "probe-peers",
        "remote_app": "probe",
        "app": None,
        "unit": {"probe-check": "probe/0"},
        "remote_app_data": {"ignored": "same app"},
        "remote_units": {},
    },
]


def test_probe_databags_name_every_owner_from_the_units_point_of_view() -> None:
    bags = probe_databags("probe/0", json.dumps(RELATIONS))
    by_owner = {(b.relation_id, b.owner, b.scope): b for b in bags}
    assert set(by_owner) == {
        (3, "probe", "app"),
        (3, "probe/0", "unit"),
        (3, "mysql-router-k8s", "app"),
        (3, "mysql-router-k8s/0", "unit"),
        (0, "probe/0", "unit"),
    }
    router = by_owner[(3, "mysql-router-k8s", "app")]
    assert router.data["endpoints"] == "mysql-router-k8s:6446"
    assert {b.source for b in bags} == {"probe"}
    assert {b.seen_by for b in bags} == {"probe/0"}
    assert all(b.endpoint in ("database", "probe-peers") for b in bags)


def stack_lab() -> tuple[Any, FakeJuju, FakeCluster]:
    juju = FakeJuju(
        statuses_of=[
            status("mysql-k8s/0", leader=True),
            status("mysql-router-k8s/0", leader=True),
            status("probe/0", leader=True),
            status("probe-peer/0", leader=True),
        ]
    )
    shown = Databag(
        3,
        "database",
        "database",
        "mysql-router-k8s",
        "app",
        "probe/0",
        "show-unit",
        {"endpoints": "x"},
    )
    juju.relations = {"probe/0": (shown,)}
    juju.action_results = {
        ("probe/0", "dump-relations"): ActionResult(
            "probe/0", "dump-relations", "completed", {"relations": json.dumps(RELATIONS)}
        ),
        ("probe/0", "journal"): journal_result(
            "probe/0", [entry(1, "install"), entry(2, "start")], 2
        ),
        ("probe-peer/0", "journal"): journal_result("probe-peer/0", [], 0),
        ("probe-peer/0", "dump-relations"): ActionResult(
            "probe-peer/0", "dump-relations", "completed", {"relations": "[]"}
        ),
    }
    cluster = FakeCluster(
        pods_of={
            "mysql-k8s": [pod("mysql-k8s/0", "m0")],
            "mysql-router-k8s": [pod("mysql-router-k8s/0", "r0")],
            "probe": [pod("probe/0", "p0")],
            "probe-peer": [pod("probe-peer/0", "q0")],
        },
        files={
            ("mysql-router-k8s-0", "mysql-router"): (
                FileState("mysql-router-k8s/0", "mysql-router", "/etc/mysqlrouter", "dir"),
                FileState(
                    "mysql-router-k8s/0", "mysql-router", "/etc/mysqlrouter/r.conf", "sha256:ab"
                ),
            ),
            ("probe-0", "workload"): (
                FileState("probe/0", "workload", "/probe/workload-marker", "absent"),
            ),
        },
    )
    clock = FakeClock()
    return make_lab(juju, cluster, clock=clock), juju, cluster


async def test_snapshot_reads_pods_files_relations_statuses_and_journal() -> None:
    lab, juju, cluster = stack_lab()
    snapshot = await take_snapshot(lab, default_stack("./probe.charm"))
    assert snapshot.taken_at == "2026-01-02T03:04:05+00:00"
    assert [p.unit for p in snapshot.pods] == [
        "mysql-k8s/0",
        "mysql-router-k8s/0",
        "probe/0",
        "probe-peer/0",
    ]
    # one listing per unit and container, with every watched path of that container
    stack = default_stack("./probe.charm")
    expected: dict[tuple[str, str], list[str]] = {}
    for watched in stack.watched:
        expected.setdefault((f"{watched.app}-0", watched.container), []).append(watched.path)
    assert sorted(cluster.listed) == sorted(
        (p, c, tuple(paths)) for (p, c), paths in expected.items()
    )
    assert ("mysql-router-k8s-0", "mysql-router") in expected
    assert {(f.unit, f.path, f.digest) for f in snapshot.files} == {
        ("mysql-router-k8s/0", "/etc/mysqlrouter", "dir"),
        ("mysql-router-k8s/0", "/etc/mysqlrouter/r.conf", "sha256:ab"),
        ("probe/0", "/probe/workload-marker", "absent"),
    }
    sources = {(b.seen_by, b.source) for b in snapshot.relations}
    assert ("probe/0", "show-unit") in sources
    assert ("probe/0", "probe") in sources
    assert len(snapshot.statuses) == 4
    assert [(j.unit, j.seq, j.event) for j in snapshot.journal] == [("probe/0", 2, "start")]
    # only probe units are asked for the probe's own view and journal
    asked = {(unit, action) for unit, action, _ in juju.actions}
    assert asked == {
        ("probe/0", "dump-relations"),
        ("probe/0", "journal"),
        ("probe-peer/0", "dump-relations"),
        ("probe-peer/0", "journal"),
    }


async def test_snapshot_of_some_units_only() -> None:
    lab, juju, _cluster = stack_lab()
    snapshot = await take_snapshot(
        lab, default_stack("./probe.charm"), units={"mysql-router-k8s/0"}
    )
    assert [p.unit for p in snapshot.pods] == ["mysql-router-k8s/0"]
    assert [s.unit for s in snapshot.statuses] == ["mysql-router-k8s/0"]
    assert {f.unit for f in snapshot.files} == {"mysql-router-k8s/0"}
    assert juju.actions == []


async def test_a_container_that_cannot_be_listed_does_not_void_the_snapshot() -> None:
    lab, _, cluster = stack_lab()

    async def broken(pod_name: str, container: str, paths: Any) -> tuple[FileState, ...]:
        if container == "mysql-router":
            raise HarnessError("exec failed: container not running")
        return ()

    cluster.list_files = broken  # type: ignore[method-assign]
    snapshot = await take_snapshot(lab, default_stack("./probe.charm"))
    assert len(snapshot.pods) == 4
    # Not dropped: each watched path says it could not be listed, and why.
    unlisted = [f for f in snapshot.files if f.container == "mysql-router"]
    assert unlisted
    for state in unlisted:
        assert state.digest == UNLISTED
        assert state.reason == "exec failed: container not running"


class Handshake400(ApiException):
    """What ``kubernetes.stream`` raises when the exec upgrade is refused (container
    restarting): its wrapper's ``ApiException(status=0, reason=...)``."""


async def test_a_container_still_restarting_is_listed_once_it_answers() -> None:
    lab, _, cluster = stack_lab()
    clock = lab.clock
    refusals = [0]
    real = cluster.list_files

    async def restarting(pod_name: str, container: str, paths: Any) -> tuple[FileState, ...]:
        if container == "mysql-router" and clock.monotonic() < 20:
            refusals[0] += 1
            raise Handshake400(status=0, reason="Handshake status 400 Bad Request")
        return await real(pod_name, container, paths)

    cluster.list_files = restarting  # type: ignore[method-assign]
    cluster.files = {
        ("mysql-router-k8s-0", "mysql-router"): (
            FileState("mysql-router-k8s/0", "mysql-router", "/etc/mysqlrouter", "dir"),
        )
    }
    snapshot = await take_snapshot(lab, default_stack("./probe.charm"))
    assert refusals[0] > 1
    assert clock.sleeps  # waited on the lab's clock between looks, not a fixed sleep
    assert [(f.path, f.digest) for f in snapshot.files if f.container == "mysql-router"] == [
        ("/etc/mysqlrouter", "dir")
    ]


async def test_a_container_that_never_answers_is_unlisted_with_what_was_awaited() -> None:
    lab, _, cluster = stack_lab()

    async def refused(pod_name: str, container: str, paths: Any) -> tuple[FileState, ...]:
        if container == "mysql-router":
            raise Handshake400(status=0, reason="Handshake status 400 Bad Request")
        return ()

    cluster.list_files = refused  # type: ignore[method-assign]
    snapshot = await take_snapshot(lab, default_stack("./probe.charm"))
    unlisted = [f for f in snapshot.files if f.container == "mysql-router"]
    assert unlisted
    assert all(f.digest == UNLISTED for f in unlisted)
    assert all("Handshake status 400" in (f.reason or "") for f in unlisted)


async def test_a_failed_probe_action_is_an_error_naming_the_unit() -> None:
    lab, juju, _ = stack_lab()
    juju.action_results[("probe/0", "dump-relations")] = ActionResult(
        "probe/0", "dump-relations", "failed", {}, message="hook failed"
    )
    with pytest.raises(HarnessError, match="dump-relations action failed on probe/0: hook failed"):
        await take_snapshot(lab, default_stack("./probe.charm"))


# --- the journal ------------------------------------------------------------------------------


async def test_read_journal_follows_the_cursor_across_pages() -> None:
    juju = FakeJuju()
    pages = [
        journal_result("probe/0", [entry(1, "install"), entry(2, "leader-elected")], 2, more=True),
        journal_result("probe/0", [entry(3, "config-changed")], 3),
    ]

    async def run_action(unit: str, action: str, params: Any = None) -> ActionResult:
        juju.actions.append((unit, action, dict(params or {})))
        return pages.pop(0)

    juju.run_action = run_action  # type: ignore[method-assign]
    entries, cursor = await read_journal(juju, "probe/0")
    assert [e.seq for e in entries] == [1, 2, 3]
    assert cursor == 3
    assert [p for _, _, p in juju.actions] == [{"since": 0}, {"since": 2}]


def test_journal_entries_become_hook_records_without_an_outcome() -> None:
    from harness.common.observations import JournalEntry

    entries = [
        JournalEntry.from_dict(entry(1, "install", buffered=True)),
        JournalEntry.from_dict(entry(2, "workload-pebble-ready")),
    ]
    records = hook_records(entries)
    assert [(r.unit, r.hook, r.kind, r.source, r.outcome) for r in records] == [
        ("probe/0", "install", "hook", "journal", None),
        ("probe/0", "workload-pebble-ready", "hook", "journal", None),
    ]
    assert "buffered" in records[0].detail
    assert records[0].time == "2026-01-02T03:01:00+00:00"


async def test_a_journal_that_is_not_json_says_the_charm_and_harness_disagree() -> None:
    juju = FakeJuju()
    juju.action_results[("probe/0", "journal")] = ActionResult(
        "probe/0", "journal", "completed", {"entries": "{not json", "cursor": "0"}
    )
    with pytest.raises(HarnessError, match="not JSON"):
        await read_journal(juju, "probe/0")


def test_clock_is_the_labs() -> None:
    lab, _, _ = stack_lab()
    assert isinstance(lab.clock, FakeClock)


async def test_a_unit_without_a_pod_has_its_watched_files_unlisted_not_absent() -> None:
    lab, _, cluster = stack_lab()
    cluster.pods_of["mysql-router-k8s"] = []  # its pod is gone and not yet replaced
    snapshot = await take_snapshot(lab, default_stack("./probe.charm"))
    router = [f for f in snapshot.files if f.unit == "mysql-router-k8s/0"]
    assert router
    assert {(f.digest, f.reason) for f in router} == {(UNLISTED, "the unit had no pod")}
