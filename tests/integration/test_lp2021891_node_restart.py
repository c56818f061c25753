"""Juju bug 2021891, node restart: microk8s stop/start gives only start (+ pebble-ready).

https://bugs.launchpad.net/juju/+bug/2021891 — the pods keep their uids and their
containers restart with fresh root filesystems, but the charm directory (on the charm-data
EmptyDir) survives, so Juju sees a reboot, not a new charm: no upgrade-charm, and the
charm is never told that its workload files are gone.
"""

from __future__ import annotations

import pytest

from harness.checks import (
    assert_databags_kept,
    assert_no_deviation,
    databags,
    file_digest,
    hooks_seen,
    journal_entry,
    pod_pair,
)
from harness.scenario.stack import PROBE, PROBE_WORKLOAD_MARKER, ROUTER, ROUTER_MARKER
from harness.suite.session import Disrupter

SCENARIO = "lp2021891-node-restart"
BUG = "https://bugs.launchpad.net/juju/+bug/2021891"
ROUTER0, PROBE0 = f"{ROUTER}/0", f"{PROBE}/0"
POD_DELETE_HOOKS = ("stop", "upgrade-charm", "config-changed", "start")

pytestmark = [pytest.mark.disruptive, pytest.mark.node_restart]


async def test_lp2021891_node_restart_runs_only_start(disrupt: Disrupter) -> None:
    run = await disrupt(SCENARIO)
    assert_no_deviation(run, "hooks", f"{ROUTER0} [debug-log]")
    assert_no_deviation(run, "hooks", f"{PROBE0} [journal]")
    for unit in (ROUTER0, PROBE0):
        seen = hooks_seen(run, unit, "debug-log")
        assert "start" in seen, f"{unit} ran {seen}"
        assert not {"stop", "upgrade-charm", "install"} & set(seen), f"{unit} ran {seen}"


async def test_lp2021891_node_restart_keeps_pods_and_restarts_containers(
    disrupt: Disrupter,
) -> None:
    run = await disrupt(SCENARIO)
    assert_no_deviation(run, "pod-identity", ROUTER0)
    assert_no_deviation(run, "pod-identity", PROBE0)
    for unit in (ROUTER0, PROBE0):
        old, new = pod_pair(run, unit)
        assert old.uid == new.uid, f"{unit}: a new pod, not a restarted one"
        assert old.containers, f"{unit}: no container statuses observed"
        for container in old.containers:
            now = new.container(container.name)
            assert now is not None, f"{unit} {container.name}: container gone"
            assert now.restart_count > container.restart_count, (
                f"{unit} {container.name}: restart count "
                f"{container.restart_count} -> {now.restart_count}"
            )


async def test_lp2021891_node_restart_loses_workload_files_keeps_charm_dir(
    disrupt: Disrupter,
) -> None:
    run = await disrupt(SCENARIO)
    assert_no_deviation(run, "file", f"{ROUTER0} mysql-router:{ROUTER_MARKER}")
    assert_no_deviation(run, "file", f"{PROBE0} workload:{PROBE_WORKLOAD_MARKER}")
    assert file_digest(run.evidence.after, PROBE0, "workload", PROBE_WORKLOAD_MARKER) == "absent"
    old_entry = journal_entry(run.evidence.before, PROBE0)
    new_entry = journal_entry(run.evidence.after, PROBE0)
    assert new_entry.charm_dir_incarnation == old_entry.charm_dir_incarnation
    assert new_entry.root_incarnation != old_entry.root_incarnation
    assert new_entry.local_state_survived


async def test_lp2021891_node_restart_keeps_every_databag(disrupt: Disrupter) -> None:
    run = await disrupt(SCENARIO)
    assert_no_deviation(run, "relation")
    before, after = databags(run.evidence.before), databags(run.evidence.after)
    assert before, "no relation data was observed before the restart"
    assert_databags_kept(before, after)


@pytest.mark.known_bug(BUG)
async def test_lp2021891_node_restart_reporter_expects_pod_delete_hooks(
    disrupt: Disrupter,
) -> None:
    """The reporter: a node restart should tell the charm what a pod delete tells it."""
    run = await disrupt(SCENARIO)
    for unit in (ROUTER0, PROBE0):
        seen = hooks_seen(run, unit, "debug-log")
        if not seen:  # not an AssertionError: a missing observation must fail, not xfail
            pytest.fail(f"{unit}: no hooks recorded; see {run.report}")
        ran = tuple(hook for hook in seen if hook in POD_DELETE_HOOKS)
        assert ran == POD_DELETE_HOOKS, f"{unit} ran {seen}"
