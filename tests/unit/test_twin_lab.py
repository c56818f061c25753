"""The twin lab through the REAL probe charm: what each port call does to a unit.

Hooks are read the way the harness reads them on live: the debug-log through the real
debug-log parser, and the probe's journal through its ``journal`` action.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from harness.common.errors import EnvironmentUnavailable, HarnessError, UnknownName
from harness.common.observations import Databag, HookRecord, JournalEntry
from harness.lab.ports import Lab
from harness.observe.debug_log import parse_lines
from harness.observe.journal import read_journal
from harness.scenario.stack import PROBE, PROBE_PEER, PROBE_WORKLOAD_MARKER, ROUTER, default_stack
from harness.twin import make_lab
from harness.twin.juju import TwinJuju

PROBE_DIR = Path(__file__).resolve().parents[2] / "charms" / "probe"


def stack(probe_units: int = 1):  # type: ignore[no-untyped-def]
    base = default_stack(str(PROBE_DIR))
    apps = tuple(replace(s, units=probe_units) if s.app == PROBE else s for s in base.apps)
    return replace(base, apps=apps)


async def marked_lab(tmp_path: Path, probe_units: int = 1) -> Lab:
    """The stack deployed and related, with the probe's workload marker written."""
    lab = make_lab(stack(probe_units), workdir=tmp_path)
    for unit in await lab.juju.units(PROBE):
        result = await lab.juju.run_action(
            unit, "write-marker", {"path": PROBE_WORKLOAD_MARKER, "content": unit}
        )
        assert result.status == "completed"
    return lab


async def log_mark(lab: Lab) -> int:
    return len((await lab.juju.debug_log()).splitlines())


async def records_since(lab: Lab, mark: int) -> list[HookRecord]:
    lines = (await lab.juju.debug_log()).splitlines()[mark:]
    return list(parse_lines(lines))


async def hooks_since(lab: Lab, mark: int, unit: str) -> list[str]:
    return [
        str(r.hook)
        for r in await records_since(lab, mark)
        if r.unit == unit and r.kind == "hook" and r.outcome == "ok"
    ]


async def journal(lab: Lab, unit: str) -> tuple[JournalEntry, ...]:
    entries, _ = await read_journal(lab.juju, unit)
    return entries


async def every_databag(lab: Lab) -> list[Databag]:
    bags: list[Databag] = []
    for status in await lab.juju.statuses():
        bags.extend(await lab.juju.unit_relations(status.unit))
    return sorted(bags, key=lambda b: b.key)


async def test_pod_delete_replaces_the_pod_and_runs_the_pod_churn_hooks(tmp_path: Path) -> None:
    lab = await marked_lab(tmp_path)
    (before_pod,) = await lab.cluster.pods(PROBE)
    before_journal = await journal(lab, "probe/0")
    bags = await every_databag(lab)
    mark = await log_mark(lab)

    await lab.cluster.delete_pod("probe-0")

    hooks = await hooks_since(lab, mark, "probe/0")
    assert hooks == ["stop", "upgrade-charm", "config-changed", "start", "workload-pebble-ready"]
    (after_pod,) = await lab.cluster.pods(PROBE)
    assert (after_pod.name, after_pod.unit) == (before_pod.name, before_pod.unit)
    assert after_pod.uid != before_pod.uid
    assert all(c.restart_count == 0 for c in after_pod.containers)
    entries = (await journal(lab, "probe/0"))[len(before_journal) :]
    # The journal and the debug-log agree on what the probe saw.
    assert [e.event for e in entries] == hooks
    assert entries[-1].workload_marker == "absent"
    assert entries[0].event == "stop"
    assert entries[0].workload_marker == "present"
    assert entries[1].charm_dir_incarnation_new
    assert entries[-1].charm_dir_incarnation != before_journal[-1].charm_dir_incarnation
    assert not entries[1].local_state_survived
    assert entries[1].controller_state_survived
    assert await every_databag(lab) == bags


async def test_node_restart_keeps_the_pods_and_runs_start_only(tmp_path: Path) -> None:
    lab = await marked_lab(tmp_path)
    (before_pod,) = await lab.cluster.pods(PROBE)
    before_journal = await journal(lab, "probe/0")
    bags = await every_databag(lab)
    mark = await log_mark(lab)

    await lab.node.stop()
    with pytest.raises(EnvironmentUnavailable):
        await lab.juju.statuses()
    await lab.node.start()
    await lab.node.wait_ready(60)
    await lab.juju.reconnect()

    assert await hooks_since(lab, mark, "probe/0") == ["start", "workload-pebble-ready"]
    records = await records_since(lab, mark)
    assert any(r.kind == "reboot" and r.unit == "probe/0" for r in records)
    (after_pod,) = await lab.cluster.pods(PROBE)
    assert after_pod.uid == before_pod.uid
    for container in before_pod.containers:
        restarted = after_pod.container(container.name)
        assert restarted is not None
        assert restarted.restart_count == container.restart_count + 1
    entries = (await journal(lab, "probe/0"))[len(before_journal) :]
    assert entries[-1].workload_marker == "absent"
    assert entries[0].root_incarnation_new
    assert entries[-1].charm_dir_incarnation == before_journal[-1].charm_dir_incarnation
    assert not entries[0].charm_dir_incarnation_new
    assert await every_databag(lab) == bags


async def test_pod_spec_change_rolls_highest_ordinal_first_and_keeps_every_databag(
    tmp_path: Path,
) -> None:
    lab = await marked_lab(tmp_path, probe_units=2)
    before = {p.unit: p for p in await lab.cluster.pods(PROBE)}
    bags = await every_databag(lab)
    mark = await log_mark(lab)

    await lab.cluster.patch_pod_template(PROBE, {"example.com/token": "1"})

    after = {p.unit: p for p in await lab.cluster.pods(PROBE)}
    assert sorted(after) == sorted(before) == ["probe/0", "probe/1"]
    assert all(after[u].uid != before[u].uid for u in after)
    assert {u: p.name for u, p in after.items()} == {u: p.name for u, p in before.items()}
    stops = [r.unit for r in await records_since(lab, mark) if r.hook == "stop"]
    assert stops == ["probe/1", "probe/0"]
    assert await every_databag(lab) == bags
    # The same template again is no change to Kubernetes: nothing rolls.
    again = await log_mark(lab)
    await lab.cluster.patch_pod_template(PROBE, {"example.com/token": "1"})
    assert await records_since(lab, again) == []


async def test_a_hook_ops_testing_cannot_dispatch_is_logged_as_not_run(tmp_path: Path) -> None:
    lab = await marked_lab(tmp_path, probe_units=2)
    mark = await log_mark(lab)
    await lab.cluster.delete_pod("probe-1")  # a non-leader: leader-settings-changed too
    lines = (await lab.juju.debug_log()).splitlines()[mark:]
    assert any('"leader-settings-changed" hook not run' in line for line in lines)
    assert "leader-settings-changed" not in await hooks_since(lab, mark, "probe/1")
    assert isinstance(lab.juju, TwinJuju)
    skipped = [r for r in lab.juju.hook_records() if r.outcome == "skipped"]
    assert any(
        r.unit == "probe/1" and r.hook == "leader-settings-changed" and "ops.testing" in r.detail
        for r in skipped
    )


async def test_container_restart_of_the_workload_keeps_the_pod_and_charm_container(
    tmp_path: Path,
) -> None:
    lab = await marked_lab(tmp_path)
    before_journal = await journal(lab, "probe/0")
    mark = await log_mark(lab)

    await lab.cluster.kill_pid1("probe-0", "workload")

    assert await hooks_since(lab, mark, "probe/0") == ["workload-pebble-ready"]
    (pod,) = await lab.cluster.pods(PROBE)
    restarts = {c.name: c.restart_count for c in pod.containers}
    assert restarts == {"charm": 0, "workload": 1}
    workload = pod.container("workload")
    assert workload is not None
    assert workload.last_termination is not None
    last = (await journal(lab, "probe/0"))[-1]
    assert last.workload_marker == "absent"
    assert last.root_incarnation == before_journal[-1].root_incarnation


async def test_container_restart_of_the_charm_container_runs_stop_then_start(
    tmp_path: Path,
) -> None:
    lab = await marked_lab(tmp_path)
    before_journal = await journal(lab, "probe/0")
    mark = await log_mark(lab)

    await lab.cluster.kill_pid1("probe-0", "charm")

    # SIGTERM to PID 1: the agent runs stop; the restarted agent runs start and every
    # workload container's pebble-ready (the catalogue's container-restart/charm).
    assert await hooks_since(lab, mark, "probe/0") == ["stop", "start", "workload-pebble-ready"]
    entries = await journal(lab, "probe/0")
    started = next(e for e in reversed(entries) if e.event == "start")
    assert started.root_incarnation_new
    last = entries[-1]
    assert last.workload_marker == "present"
    assert last.charm_dir_incarnation == before_journal[-1].charm_dir_incarnation
    with pytest.raises(UnknownName, match="workload"):
        await lab.cluster.kill_pid1("probe-0", "nginx")


async def test_sigkill_of_the_charm_container_runs_no_stop(tmp_path: Path) -> None:
    lab = await marked_lab(tmp_path)
    mark = await log_mark(lab)
    await lab.cluster.kill_pid1("probe-0", "charm", "KILL")
    # The catalogue's container-restart/charm-kill: start and every pebble-ready, no stop.
    assert await hooks_since(lab, mark, "probe/0") == ["start", "workload-pebble-ready"]


async def test_the_probe_patching_its_own_template_needs_trust(tmp_path: Path) -> None:
    lab = await marked_lab(tmp_path)
    (before,) = await lab.cluster.pods(PROBE)

    await lab.juju.set_config(PROBE, {"pod-template-annotation": "t1"})
    (status,) = await lab.juju.statuses((PROBE,))
    assert status.workload == "blocked"
    assert "juju trust" in status.workload_message
    assert (await lab.cluster.pods(PROBE))[0].uid == before.uid

    mark = await log_mark(lab)
    await lab.juju.trust(PROBE)
    (after,) = await lab.cluster.pods(PROBE)
    assert after.uid != before.uid
    hooks = await hooks_since(lab, mark, "probe/0")
    assert hooks[:2] == ["config-changed", "stop"]
    assert hooks[2:6] == ["upgrade-charm", "config-changed", "start", "workload-pebble-ready"]
    assert (await lab.juju.statuses((PROBE,)))[0].workload == "active"


async def test_the_router_stand_in_loses_its_config_after_a_pod_delete(tmp_path: Path) -> None:
    lab = await marked_lab(tmp_path)
    config = ["/etc/mysqlrouter"]
    present = await lab.cluster.list_files("mysql-router-k8s-0", "mysql-router", config)
    assert next(f.digest for f in present) == "dir"
    assert len(present) == 2

    await lab.cluster.delete_pod("mysql-router-k8s-0")

    (gone,) = await lab.cluster.list_files("mysql-router-k8s-0", "mysql-router", config)
    assert gone.digest == "absent"
    statuses = {s.unit: s for s in await lab.juju.statuses()}
    assert statuses["mysql-router-k8s/0"].workload == "active"
    assert "SIMULATED" in statuses["mysql-router-k8s/0"].workload_message
    assert "db creds ok" in statuses["probe/0"].workload_message


async def test_scale_down_up_gives_new_units_with_the_ordinal_names(tmp_path: Path) -> None:
    lab = await marked_lab(tmp_path)
    await lab.juju.scale(PROBE_PEER, 0)
    assert await lab.juju.units(PROBE_PEER) == ()
    assert await lab.cluster.pods(PROBE_PEER) == ()
    await lab.juju.scale(PROBE_PEER, 1)
    # UnitIntroduction names the unit after the pod's ordinal: the name is reused.
    assert await lab.juju.units(PROBE_PEER) == ("probe-peer/0",)
    (pod,) = await lab.cluster.pods(PROBE_PEER)
    assert pod.name == "probe-peer-0"
    owners = {b.owner for b in await lab.juju.unit_relations("probe/0")}
    assert "probe-peer/0" in owners


async def test_everything_a_person_reads_says_simulated(tmp_path: Path) -> None:
    lab = await marked_lab(tmp_path)
    versions = await lab.juju.versions()
    assert lab.backend == "twin"
    assert lab.simulated
    assert "simulated" in lab.juju.model_name
    for text in (versions.juju_client, versions.juju_controller, versions.juju_agent):
        assert text is not None
        assert "simulated" in text
    assert versions.microk8s == versions.kubernetes == "simulated"
    assert await lab.cluster.server_version() == "simulated"
    charms = {c.app: c.charm for c in versions.charms}
    assert "simulated" in charms[ROUTER]
    with pytest.raises(HarnessError, match="simulated"):
        await lab.cluster.exec("probe-0", "workload", ["ls"])


async def test_actions_report_failure_and_typed_params(tmp_path: Path) -> None:
    lab = await marked_lab(tmp_path)
    failed = await lab.juju.run_action("probe/0", "write-marker", {"path": "relative"})
    assert failed.status == "failed"
    assert "absolute" in failed.message
    page = await lab.juju.run_action("probe/0", "journal", {"since": "1", "limit": "2"})
    assert page.status == "completed"
    assert page.results["cursor"] == "3"
    with pytest.raises(UnknownName, match="journal"):
        await lab.juju.run_action("probe/0", "explode")


async def test_the_same_run_gives_the_same_observations(tmp_path: Path) -> None:
    async def run(folder: Path) -> tuple[object, ...]:
        lab = await marked_lab(folder)
        await lab.cluster.delete_pod("probe-0")
        await lab.node.stop()
        await lab.node.start()
        return (
            await lab.juju.debug_log(),
            await lab.cluster.pods(PROBE),
            await every_databag(lab),
            await journal(lab, "probe/0"),
            await lab.cluster.list_files("probe-0", "charm", ["/tmp/probe"]),
        )

    assert await run(tmp_path / "a") == await run(tmp_path / "b")


async def test_deleting_every_pod_at_once_leaves_none_running_for_a_moment(
    tmp_path: Path,
) -> None:
    from harness.disrupt.steps import delete_every_pod_at_once
    from harness.scenario.scenarios import SCENARIOS

    lab = await marked_lab(tmp_path)
    (before,) = await lab.cluster.pods(PROBE)
    step, none_running = await delete_every_pod_at_once(lab, PROBE)
    assert none_running
    assert step.detail == "probe-0; running and Ready right after: 0"
    (after,) = await lab.cluster.pods(PROBE)  # the StatefulSet re-created it
    assert after.uid != before.uid
    # Every lp1830745 scenario goes through that moment.
    lp1830745 = [s for s in SCENARIOS if s.name.startswith("lp1830745-")]
    assert lp1830745
    assert all(t.zero_pods for s in lp1830745 for t in s.targets)
