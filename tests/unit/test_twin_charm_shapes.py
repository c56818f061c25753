"""``run_disruption`` on small charms shaped like published third-party Kubernetes charms.

Each charm here is written for this file; its shape (where storage is mounted, where the
metadata lives, what the charm does in which hook) is the one a real charm put through the
twin had when the twin first broke on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ops
import pytest
from ops import testing
from samples import load_sample

from harness.catalogue.names import NAMES
from harness.common.errors import HarnessError
from harness.observe.debug_log import hook_names, parse_lines
from harness.twin import CharmHookError, Image, run_disruption
from harness.twin.disruption import REFUSED

DISRUPTIONS = [name for name in NAMES if name not in REFUSED]
POSITIONS = "/tmp/agent/data/positions.yaml"
AGENT_CONFIG = "/etc/agent.yaml"

# A telemetry agent: its storage volume is mounted *inside* a directory its image ships
# (/tmp/agent/data under /tmp), as grafana-agent-k8s mounts its "data" storage.
AGENT_META: dict[str, Any] = {
    "name": "agent",
    "containers": {
        "agent": {
            "resource": "agent-image",
            "mounts": [{"storage": "data", "location": "/tmp/agent/data"}],
        }
    },
    "storage": {"data": {"type": "filesystem"}},
    "peers": {"peers": {"interface": "agent_replica"}},
}


class Agent(ops.CharmBase):
    """Writes its config on every hook that can reach the workload; keeps its read
    positions on the storage volume."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        for event in (self.on.agent_pebble_ready, self.on.config_changed, self.on.upgrade_charm):
            framework.observe(event, self._configure)

    def _configure(self, event: ops.EventBase) -> None:
        container = self.unit.get_container("agent")
        if not container.can_connect():
            return
        container.push(AGENT_CONFIG, "server: {}\n", make_dirs=True)
        if not container.exists(POSITIONS):
            container.push(POSITIONS, "positions: {}\n", make_dirs=True)


def agent_unit(tmp_path: Path) -> testing.State:
    volume = tmp_path / "volume"
    volume.mkdir()
    (volume / "positions.yaml").write_text("positions: {app.log: 42}\n")
    agent = testing.Container(
        "agent",
        can_connect=True,
        mounts={"data": testing.Mount(location="/tmp/agent/data", source=volume)},
    )
    return testing.State(
        leader=True,
        containers={agent},
        storages={testing.Storage("data")},
        relations={testing.PeerRelation("peers", peers_data={1: {}})},
    )


@pytest.mark.parametrize("disruption", DISRUPTIONS)
def test_a_volume_mounted_inside_an_image_directory_outlives_every_disruption(
    disruption: str, tmp_path: Path
) -> None:
    ctx = testing.Context(Agent, meta=AGENT_META)
    result = run_disruption(
        ctx,
        agent_unit(tmp_path),
        disruption,
        images={"agent": Image.linux(["/tmp/agent"])},
        storage_mounts={"data"},
        workdir=tmp_path / "twin",
    )
    assert result.read_text("agent", POSITIONS) == "positions: {app.log: 42}\n"
    assert result.read_text("agent", AGENT_CONFIG) == "server: {}\n"
    # ops.testing's own look at the files sees the volume inside the image's directory.
    root = result.state.get_container("agent").get_filesystem(ctx)
    assert (root / POSITIONS[1:]).read_text() == "positions: {app.log: 42}\n"
    assert (root / AGENT_CONFIG[1:]).read_text() == "server: {}\n"
    # The state left behind runs further hooks, as an author's next assertion would.
    ctx.run(ctx.on.update_status(), result.state)


def test_a_volume_mounted_over_a_top_level_image_directory_hides_it(tmp_path: Path) -> None:
    volume = tmp_path / "volume"
    volume.mkdir()
    (volume / "kept").write_text("on the volume")
    state = testing.State(
        containers={
            testing.Container(
                "app",
                can_connect=True,
                mounts={"srv": testing.Mount(location="/srv", source=volume)},
            )
        },
        storages={testing.Storage("srv")},
    )
    meta = {"name": "app", "containers": {"app": {}}, "storage": {"srv": {"type": "filesystem"}}}
    ctx = testing.Context(ops.CharmBase, meta=meta)
    image = Image.linux(files={"/srv/from-image": "hidden under the volume"})
    result = run_disruption(
        ctx, state, "pod-delete", images={"app": image}, storage_mounts={"srv"}
    )
    assert result.read_text("app", "/srv/kept") == "on the volume"
    assert result.read_text("app", "/srv/from-image") is None


# An ingress proxy: it defers a route request while its workload's Pebble cannot be reached,
# as traefik-k8s does, and writes the route once it can.
PROXY_META: dict[str, Any] = {
    "name": "proxy",
    "containers": {"proxy": {"resource": "proxy-image"}},
    "provides": {"ingress": {"interface": "ingress"}},
}
ROUTE = "/etc/proxy/routes.yaml"


class Proxy(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.ingress_relation_changed, self._route)
        framework.observe(self.on.proxy_pebble_ready, self._ready)

    def _ready(self, event: ops.EventBase) -> None:
        self.unit.status = ops.ActiveStatus("serving")

    def _route(self, event: ops.RelationChangedEvent) -> None:
        container = self.unit.get_container("proxy")
        if not container.can_connect():
            event.defer()
            return
        container.push(ROUTE, f"port: {event.relation.data[event.app]['port']}\n", make_dirs=True)


def proxy_waiting_for_its_workload() -> tuple[testing.Context[Proxy], testing.State]:
    ctx = testing.Context(Proxy, meta=PROXY_META)
    ingress = testing.Relation("ingress", remote_app_data={"port": "8080"})
    state = testing.State(
        leader=True,
        containers={testing.Container("proxy", can_connect=False)},
        relations={ingress},
    )
    state = ctx.run(ctx.on.relation_changed(ingress, remote_unit=0), state)
    assert [d.name for d in state.deferred] == ["ingress_relation_changed"]
    return ctx, state


@pytest.mark.parametrize("disruption", ["node-restart", "container-restart"])
def test_a_restarted_container_has_pebble_up_and_the_deferred_request_is_served(
    disruption: str,
) -> None:
    ctx, state = proxy_waiting_for_its_workload()
    result = run_disruption(ctx, state, disruption)
    assert result.state.get_container("proxy").can_connect
    assert result.read_text("proxy", ROUTE) == "port: 8080\n"
    assert result.state.deferred == []
    assert result.state.unit_status == testing.ActiveStatus("serving")


def test_a_new_pod_loses_the_deferred_request_but_its_container_is_reachable() -> None:
    ctx, state = proxy_waiting_for_its_workload()
    result = run_disruption(ctx, state, "pod-delete")
    assert result.state.deferred == []  # the charm directory went with the old pod
    assert result.read_text("proxy", ROUTE) is None  # nothing asks for the route again
    assert result.state.unit_status == testing.ActiveStatus("serving")


# A web server whose Pebble layer has a health check, and which reports its status from
# collect-status, as most Canonical Kubernetes charms now do.
WEB_META: dict[str, Any] = {"name": "web", "containers": {"web": {"resource": "web-image"}}}
WEB_LAYER = ops.pebble.Layer(
    {
        "services": {"web": {"override": "replace", "command": "web", "startup": "enabled"}},
        "checks": {
            "alive": {
                "override": "replace",
                "level": "alive",
                "http": {"url": "http://localhost:8080/"},
            }
        },
    }
)


class Web(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.web_pebble_ready, self._plan)
        framework.observe(self.on.collect_unit_status, self._status)

    def _plan(self, event: ops.EventBase) -> None:
        container = self.unit.get_container("web")
        container.add_layer("web", WEB_LAYER, combine=True)
        container.replan()

    def _status(self, event: ops.CollectStatusEvent) -> None:
        container = self.unit.get_container("web")
        if not container.can_connect() or "web" not in container.get_plan().services:
            event.add_status(ops.WaitingStatus("waiting for the web service"))
        event.add_status(ops.ActiveStatus())


def web_serving() -> testing.State:
    web = testing.Container(
        "web",
        can_connect=True,
        layers={"web": WEB_LAYER},
        service_statuses={"web": ops.pebble.ServiceStatus.ACTIVE},
        check_infos={testing.CheckInfo("alive", level=ops.pebble.CheckLevel.ALIVE)},
    )
    return testing.State(leader=True, containers={web})


@pytest.mark.parametrize("disruption", DISRUPTIONS)
def test_a_layer_with_checks_is_planned_again_after_every_disruption(disruption: str) -> None:
    ctx = testing.Context(Web, meta=WEB_META)
    result = run_disruption(ctx, web_serving(), disruption)
    web = result.state.get_container("web")
    assert "alive" in web.layers["web"].checks
    # Only checks of the plan have results (ops.testing refuses others on the next run).
    assert {check.name for check in web.check_infos} <= {"alive"}
    assert result.state.unit_status == testing.ActiveStatus()
    ctx.run(ctx.on.update_status(), result.state)


# prometheus-k8s as deployed in the sample debuglog_2.9.32_k8s_prometheus_unit_lifecycle.txt:
# one container, a storage volume, a peer relation, a leader.
PROMETHEUS_META: dict[str, Any] = {
    "name": "prom",
    "containers": {
        "prometheus": {"mounts": [{"storage": "database", "location": "/var/lib/prometheus"}]}
    },
    "storage": {"database": {"type": "filesystem"}},
    "peers": {"prometheus-peers": {"interface": "prometheus_peers"}},
}


def test_the_unit_that_comes_back_runs_its_deploy_hooks_in_the_order_juju_logged() -> None:
    """A new unit's relation-created hooks (for relations that exist when it arrives) run
    right after install, and storage-attached before config-changed, as the recorded
    debug-logs show (2.9.32 here; 3.0-beta4 and 3.6.3 samples agree)."""
    records = parse_lines(
        load_sample("debuglog_2.9.32_k8s_prometheus_unit_lifecycle.txt").splitlines()
    )
    logged = hook_names(records, "prom/0")
    deployed = logged[: logged.index("prometheus-pebble-ready") + 1]
    assert deployed[:2] == ("install", "prometheus-peers-relation-created")

    volume_state = testing.State(
        leader=True,
        containers={testing.Container("prometheus", can_connect=True)},
        storages={testing.Storage("database")},
        relations={testing.PeerRelation("prometheus-peers", peers_data={})},
    )
    ctx = testing.Context(ops.CharmBase, meta=PROMETHEUS_META)
    result = run_disruption(ctx, volume_state, "scale-down-up", juju_version="2.9.32")
    arrived = result.hooks[result.hooks.index("remove") + 1 :]
    assert arrived == deployed


def test_storage_mounts_naming_no_mount_of_the_state_is_a_one_line_error(tmp_path: Path) -> None:
    """traefik-k8s's own tests key the Mount of its "configurations" volume "opt": naming the
    storage instead of the key made the volume a plain directory, lost with the pod."""
    meta = {
        "name": "proxy",
        "containers": {"proxy": {"mounts": [{"storage": "configurations", "location": "/opt/p"}]}},
        "storage": {"configurations": {"type": "filesystem"}},
    }
    proxy = testing.Container(
        "proxy",
        can_connect=True,
        mounts={"opt": testing.Mount(location="/opt/p/", source=tmp_path)},
    )
    state = testing.State(containers={proxy}, storages={testing.Storage("configurations")})
    ctx = testing.Context(ops.CharmBase, meta=meta)
    with pytest.raises(HarnessError, match="configurations") as caught:
        run_disruption(ctx, state, "pod-delete", storage_mounts=("configurations",))
    assert "\n" not in str(caught.value)
    assert "proxy: opt at /opt/p/" in str(caught.value)


class KeepsItsKeyInASecret(ops.CharmBase):
    """Stores a private key in a Juju secret on config-changed, as traefik-k8s's TLS library
    does: that needs Juju 3.0.2 or later."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.config_changed, self._keep)

    def _keep(self, event: ops.EventBase) -> None:
        try:
            self.model.get_secret(label="private-key")
        except ops.SecretNotFoundError:
            self.app.add_secret({"private-key": "pem"}, label="private-key")


def test_a_charm_that_needs_a_newer_juju_fails_naming_where_the_version_is_set() -> None:
    ctx = testing.Context(KeepsItsKeyInASecret, meta={"name": "proxy"})
    with pytest.raises(CharmHookError) as caught:
        run_disruption(ctx, testing.State(leader=True), "pod-delete", juju_version="2.9.43")
    error = caught.value
    assert (error.disruption, error.hook, error.juju_version) == (
        "pod-delete",
        "config-changed",
        "2.9.43",
    )
    assert error.step == "after: new pod"
    # ops.testing's own advice (set Context.juju_version) would be overridden by the twin.
    assert "run_disruption(juju_version=...)" in str(error)
    assert "\n" not in str(error)
    # The same charm on a Juju with secrets goes through.
    assert "config-changed" in run_disruption(ctx, testing.State(leader=True), "pod-delete").hooks


# A unit test's state often names none of the charm's containers (grafana-agent-k8s's own
# tests start from State()); in a pod every declared container is there.
TWO_CONTAINERS_META: dict[str, Any] = {
    "name": "portal",
    "containers": {"nginx": {"resource": "nginx-image"}, "app": {"resource": "app-image"}},
}


class Portal(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.upgrade_charm, self._check)
        for name in ("nginx", "app"):
            framework.observe(self.on[name].pebble_ready, self._configure)

    def _check(self, event: ops.EventBase) -> None:
        self.unit.get_container("app").can_connect()

    def _configure(self, event: ops.PebbleReadyEvent) -> None:
        event.workload.push("/etc/ready", event.workload.name)


def test_containers_the_state_leaves_out_are_in_the_pod_and_start_with_it() -> None:
    ctx = testing.Context(Portal, meta=TWO_CONTAINERS_META)
    bare = testing.State(leader=True)
    restarted = run_disruption(ctx, bare, "node-restart")
    assert restarted.hooks[0] == "start"
    assert sorted(restarted.hooks[1:]) == ["app-pebble-ready", "nginx-pebble-ready"]
    assert restarted.read_text("app", "/etc/ready") == "app"
    replaced = run_disruption(ctx, bare, "pod-delete")
    assert replaced.hooks[:2] == ("stop", "upgrade-charm")
    assert replaced.read_text("nginx", "/etc/ready") == "nginx"


def test_container_restart_defaults_to_the_first_container_the_charm_declares() -> None:
    ctx = testing.Context(Portal, meta=TWO_CONTAINERS_META)
    result = run_disruption(ctx, testing.State(leader=True), "container-restart")
    assert result.hooks == ("nginx-pebble-ready",)  # declared first, as the bundle path picks
    assert result.variant != "charm"
