"""The twin's uniter: hook plans from the catalogue, events from ops.testing, failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ops
import pytest
from ops import testing

from harness.catalogue import load
from harness.common.errors import EnvironmentUnavailable, HarnessError, UnknownName, WaitTimeout
from harness.common.versions import JujuVersion
from harness.lab.ports import AppSpec
from harness.observe.debug_log import parse_lines
from harness.twin import TwinClock, make_lab
from harness.twin.charms import CharmSource
from harness.twin.hooks import NO_CONSTRUCTOR, Skip, event_for, plan

V36 = JujuVersion.parse("3.6")


def expect(name: str, variant: str | None = None) -> Any:
    return load().expect(name, V36, variant=variant)


def test_node_restart_runs_pebble_ready_on_every_fresh_agent() -> None:
    # The Pebble poller's boot ids are in memory: a fresh agent fires every pebble-ready.
    names: dict[str, Any] = {"containers": ["app"], "endpoints": [], "storages": []}
    restarted = plan(expect("node-restart"), leader=True, triggers=("pebble-ready",), **names)
    untouched = plan(expect("node-restart"), leader=True, **names)
    assert restarted == untouched == ("start", "app-pebble-ready")
    follower = plan(expect("node-restart"), leader=False, **names)
    assert follower == ("start", "leader-settings-changed", "app-pebble-ready")


def test_teardown_hooks_come_before_stop_and_remove_on_scale_down() -> None:
    hooks = plan(
        expect("scale-down-up"),
        containers=["app"],
        endpoints=["db"],
        storages=["data"],
        leader=True,
        triggers=("relation-departed", "relation-broken", "storage-detaching"),
    )
    assert hooks[-2:] == ("stop", "remove")
    assert {"db-relation-departed", "db-relation-broken", "data-storage-detaching"} <= set(
        hooks[:-2]
    )
    assert hooks.index("db-relation-departed") < hooks.index("db-relation-broken")


def test_every_hook_maps_to_an_ops_testing_event_or_says_why_not() -> None:
    ctx = testing.Context(ops.CharmBase, meta={"name": "x", "containers": {"app": {}}})
    state = testing.State(
        containers={testing.Container("app", can_connect=True)},
        relations={testing.Relation("db", id=7)},
        storages={testing.Storage("data")},
    )
    for hook in ("start", "stop", "upgrade-charm", "config-changed", "leader-elected"):
        assert not isinstance(event_for(ctx.on, hook, state), Skip)
    assert event_for(ctx.on, "app-pebble-ready", state).container.name == "app"
    assert event_for(ctx.on, "db-relation-changed", state).relation.id == 7
    assert event_for(ctx.on, "data-storage-attached", state).storage.name == "data"
    skipped = event_for(ctx.on, "leader-settings-changed", state)
    assert skipped == Skip("leader-settings-changed", NO_CONSTRUCTOR["leader-settings-changed"])
    assert isinstance(event_for(ctx.on, "cache-relation-joined", state), Skip)
    assert isinstance(event_for(ctx.on, "nginx-pebble-ready", state), Skip)


class FailsOnStart(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.start, self._fail)

    def _fail(self, event: ops.EventBase) -> None:
        raise RuntimeError("boom")


async def test_a_failing_hook_is_logged_as_failed_and_puts_the_unit_in_error(
    tmp_path: Path,
) -> None:
    source = CharmSource("fails", FailsOnStart, {"name": "fails"})
    lab = make_lab(workdir=tmp_path, charms={"fails": source})
    await lab.juju.deploy(AppSpec("fails", "fails"))
    records = list(parse_lines((await lab.juju.debug_log()).splitlines()))
    start = next(r for r in records if r.hook == "start")
    assert start.outcome == "failed"
    assert "boom" in start.detail
    (status,) = await lab.juju.statuses(("fails",))
    assert status.workload == "error"
    assert status.workload_message == 'hook failed: "start"'


async def test_unknown_charms_and_endpoints_are_one_line_errors(tmp_path: Path) -> None:
    lab = make_lab(workdir=tmp_path)
    with pytest.raises(UnknownName, match="cannot run charm 'postgresql-k8s'"):
        await lab.juju.deploy(AppSpec("pg", "postgresql-k8s"))
    await lab.juju.deploy(AppSpec("mysql-k8s", "mysql-k8s"))
    with pytest.raises(UnknownName, match="no endpoint 'nope'"):
        await lab.juju.integrate("mysql-k8s:nope", "mysql-k8s:database")


async def test_the_clock_only_moves_when_the_twin_does() -> None:
    clock = TwinClock()
    start = clock.now()
    await clock.sleep(30)
    assert (clock.now() - start).total_seconds() == pytest.approx(30.001)
    assert clock.monotonic() < clock.monotonic()


class PingPong(ops.CharmBase):
    """Writes a new value on every relation-changed: Juju would never settle either."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.link_relation_changed, self._bump)
        framework.observe(self.on.link_relation_created, self._bump)

    def _bump(self, event: ops.RelationEvent) -> None:
        bag = event.relation.data[self.unit]
        bag["n"] = str(int(bag.get("n", "0")) + 1)


PING_META = {"name": "ping", "provides": {"link": {"interface": "pp"}}}
PONG_META = {"name": "pong", "requires": {"link": {"interface": "pp"}}}


async def test_a_relation_changed_loop_is_stopped_with_a_one_line_error(tmp_path: Path) -> None:
    charms = {
        "ping": CharmSource("ping", PingPong, PING_META),
        "pong": CharmSource("pong", PingPong, PONG_META),
    }
    lab = make_lab(workdir=tmp_path, charms=charms)
    await lab.juju.deploy(AppSpec("ping", "ping"))
    await lab.juju.deploy(AppSpec("pong", "pong"))
    with pytest.raises(HarnessError, match="relation-changed kept firing") as caught:
        await lab.juju.integrate("ping:link", "pong:link")
    assert "\n" not in str(caught.value)


async def test_bad_port_calls_are_one_line_errors(tmp_path: Path) -> None:
    charms = {"ping": CharmSource("ping", PingPong, PING_META)}
    lab = make_lab(workdir=tmp_path, charms=charms)
    await lab.juju.deploy(AppSpec("ping", "ping"))
    await lab.juju.deploy(AppSpec("mysql-k8s", "mysql-k8s"))
    with pytest.raises(HarnessError, match="already deployed"):
        await lab.juju.deploy(AppSpec("ping", "ping"))
    with pytest.raises(HarnessError, match="mysql_client"):
        await lab.juju.integrate("ping:link", "mysql-k8s:database")
    with pytest.raises(HarnessError, match="no config option"):
        await lab.juju.set_config("ping", {"colour": "red"})
    with pytest.raises(UnknownName, match="ping-0"):
        await lab.cluster.delete_pod("ping-7")
    await lab.node.stop()
    with pytest.raises(WaitTimeout, match="node"):
        await lab.node.wait_ready(30)
    with pytest.raises(EnvironmentUnavailable, match="node"):
        await lab.cluster.pods("ping")
    await lab.node.start()
    await lab.node.wait_ready(30)


async def test_write_file_lands_in_the_containers_current_root(tmp_path: Path) -> None:
    lab = make_lab(workdir=tmp_path)
    await lab.juju.deploy(AppSpec("mysql-router-k8s", "mysql-router-k8s"))
    path = "/etc/mysqlrouter/.harness-marker"
    await lab.cluster.write_file("mysql-router-k8s-0", "mysql-router", path, "x")
    (found,) = await lab.cluster.list_files("mysql-router-k8s-0", "mysql-router", [path])
    assert found.digest.startswith("sha256:")
    await lab.cluster.kill_pid1("mysql-router-k8s-0", "mysql-router")
    (gone,) = await lab.cluster.list_files("mysql-router-k8s-0", "mysql-router", [path])
    assert gone.digest == "absent"


async def test_the_twin_refuses_a_charm_whose_assumes_its_juju_would_refuse(
    tmp_path: Path,
) -> None:
    meta = {"name": "fails", "assumes": ["k8s-api", "juju >= 3.4"]}
    source = CharmSource("fails", FailsOnStart, meta)
    lab = make_lab(workdir=tmp_path, charms={"fails": source}, juju_version="2.9.44")
    with pytest.raises(HarnessError, match=r"SIMULATED: Juju 2\.9\.44 would refuse to deploy"):
        await lab.juju.deploy(AppSpec("fails", "fails"))
    with pytest.raises(UnknownName, match="none deployed"):  # nothing was half-deployed
        await lab.juju.statuses(("fails",))
    # On a Juju the block admits, it deploys (and fails in start, as the charm does).
    lab = make_lab(workdir=tmp_path / "3.6", charms={"fails": source}, juju_version="3.6")
    await lab.juju.deploy(AppSpec("fails", "fails"))
