"""``harness.twin.run_disruption`` on small charms written here (not the probe).

The README's example (the mysql-router-k8s story) is run by ``test_twin_readme.py``; a
charm of that shape goes through every disruption in ``test_twin_router_charm.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ops
import pytest
from ops import testing

from harness.catalogue import load
from harness.common.errors import HarnessError, UnknownName
from harness.common.versions import JujuVersion
from harness.twin import CharmHookError, ExecCall, ExecResult, Image, run_disruption

CONFIG = "/etc/mysqlrouter/mysqlrouter.conf"
META: dict[str, Any] = {
    "name": "router",
    "containers": {"router": {}, "sidecar": {}},
    "peers": {"peers": {"interface": "router-peers"}},
    "requires": {"backend": {"interface": "mysql_client"}},
}


class WritesOnInstall(ops.CharmBase):
    """The bug: the config is written once, on install, and never again."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.install, self._write)

    def _write(self, event: ops.EventBase) -> None:
        container = self.unit.get_container("router")
        if container.can_connect():
            container.push(CONFIG, "bootstrapped", make_dirs=True)


class WritesWhenReady(WritesOnInstall):
    """The fix: write it whenever the container (re)starts."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.router_pebble_ready, self._write)


class Counts(ops.CharmBase):
    """Counts the hooks it saw in local StoredState."""

    _stored = ops.StoredState()

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        self._stored.set_default(seen=0)
        for event in (self.on.stop, self.on.upgrade_charm, self.on.config_changed, self.on.start):
            framework.observe(event, self._count)

    def _count(self, event: ops.EventBase) -> None:
        self._stored.seen += 1


def deployed(tmp_path: Path, *, leader: bool = True) -> testing.State:
    """A unit as it is after deploy: its config file is in the router container."""
    etc = tmp_path / "etc"
    (etc / "mysqlrouter").mkdir(parents=True)
    (etc / "mysqlrouter" / "mysqlrouter.conf").write_text("bootstrapped")
    sidecar = tmp_path / "sidecar"
    sidecar.mkdir()
    (sidecar / "kept.txt").write_text("sidecar file")
    return testing.State(
        leader=leader,
        containers={
            testing.Container(
                "router",
                can_connect=True,
                mounts={"etc": testing.Mount(location="/etc", source=etc)},
            ),
            testing.Container(
                "sidecar",
                can_connect=True,
                mounts={"data": testing.Mount(location="/data", source=sidecar)},
            ),
        },
        relations={
            testing.Relation("backend", remote_app_name="mysql", local_unit_data={"k": "v"}),
            testing.PeerRelation("peers", peers_data={1: {"p": "1"}}),
        },
    )


def test_a_charm_that_writes_its_config_only_on_install_loses_it_on_pod_delete(
    tmp_path: Path,
) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    result = run_disruption(ctx, deployed(tmp_path), "pod-delete")
    assert result.hooks[:4] == ("stop", "upgrade-charm", "config-changed", "start")
    assert result.read_text("router", CONFIG) is None  # the bug: nothing writes it again
    # The test's own files are copied, never changed.
    assert (tmp_path / "etc" / "mysqlrouter" / "mysqlrouter.conf").read_text() == "bootstrapped"


def test_a_charm_that_writes_it_when_the_container_is_ready_keeps_it(tmp_path: Path) -> None:
    ctx = testing.Context(WritesWhenReady, meta=META)
    result = run_disruption(ctx, deployed(tmp_path), "pod-delete")
    assert "router-pebble-ready" in result.hooks
    assert result.read_text("router", CONFIG) == "bootstrapped"
    assert result.simulated is True


def test_hooks_are_the_catalogues_for_the_juju_version(tmp_path: Path) -> None:
    ctx = testing.Context(WritesWhenReady, meta=META)
    result = run_disruption(ctx, deployed(tmp_path), "pod-delete", juju_version="3.4")
    expected = (
        load()
        .expect("pod-delete", JujuVersion.parse("3.4"))
        .expected_sequence(["router", "sidecar"], ["backend", "peers"], [], leader=True)
    )
    assert result.hooks == expected
    assert result.juju_version == "3.4.0"


def test_node_restart_runs_start_only_and_every_container_root_is_fresh(tmp_path: Path) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    result = run_disruption(ctx, deployed(tmp_path), "node-restart")
    assert result.hooks == ("start", "router-pebble-ready", "sidecar-pebble-ready")
    assert result.read_text("router", CONFIG) is None
    assert result.read_text("sidecar", "/data/kept.txt") is None


def test_container_restart_touches_only_that_container(tmp_path: Path) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    result = run_disruption(ctx, deployed(tmp_path), "container-restart", container="router")
    assert result.hooks == ("router-pebble-ready",)
    assert result.read_text("router", CONFIG) is None
    assert result.read_text("sidecar", "/data/kept.txt") == "sidecar file"


def test_storage_mounts_survive_a_new_pod(tmp_path: Path) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    result = run_disruption(ctx, deployed(tmp_path), "pod-delete", storage_mounts={"data"})
    assert result.read_text("sidecar", "/data/kept.txt") == "sidecar file"
    assert result.read_text("router", CONFIG) is None
    # Scaled down and up: the new unit (same name) gets the old unit's volume again.
    (tmp_path / "again").mkdir()
    again = run_disruption(
        ctx, deployed(tmp_path / "again"), "scale-down-up", storage_mounts={"data"}
    )
    assert again.read_text("sidecar", "/data/kept.txt") == "sidecar file"


def test_local_stored_state_is_lost_with_the_pod_and_kept_by_a_node_restart(
    tmp_path: Path,
) -> None:
    ctx = testing.Context(Counts, meta=META)
    before = testing.State(
        leader=True,
        stored_states={testing.StoredState(owner_path="Counts", content={"seen": 100})},
    )

    def seen(disruption: str, **kwargs: Any) -> int:
        state = run_disruption(ctx, before, disruption, **kwargs).state
        return int(state.get_stored_state("_stored", owner_path="Counts").content["seen"])

    assert seen("pod-delete") == 3  # upgrade-charm, config-changed, start on the new pod
    assert seen("node-restart") == 101
    assert seen("pod-delete", use_juju_for_storage=True) == 104


def test_relation_data_and_leadership_survive_pod_churn(tmp_path: Path) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    state = deployed(tmp_path)
    result = run_disruption(ctx, state, "pod-spec-change")
    backend = next(r for r in result.state.relations if r.endpoint == "backend")
    assert backend.local_unit_data["k"] == "v"
    assert result.state.leader is True


def test_leader_settings_changed_is_reported_as_skipped_never_dropped(tmp_path: Path) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    result = run_disruption(ctx, deployed(tmp_path, leader=False), "pod-delete")
    assert "leader-settings-changed" not in result.hooks
    hooks = dict(result.skipped)
    assert "ops.testing" in hooks["leader-settings-changed"]


def test_scale_down_up_removes_the_unit_and_runs_a_new_ones_deploy(tmp_path: Path) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    result = run_disruption(ctx, deployed(tmp_path), "scale-down-up")
    assert (
        result.hooks.index("stop") < result.hooks.index("remove") < result.hooks.index("install")
    )
    # The old unit tears its relations down, the new one joins them again.
    assert "backend-relation-broken" in result.hooks
    # The relations it arrives in are created right after install, joined after start.
    arrived = result.hooks[result.hooks.index("install") :]
    assert arrived[1:3] == ("backend-relation-created", "peers-relation-created")
    assert arrived[-2:] == ("peers-relation-joined", "peers-relation-changed")
    backend = next(r for r in result.state.relations if r.endpoint == "backend")
    assert "k" not in backend.local_unit_data  # a new unit, a new unit databag
    assert result.read_text("router", CONFIG) == "bootstrapped"  # install wrote it again


@pytest.mark.parametrize("name", ["resource-refresh", "charm-pod-spec-change"])
def test_live_only_disruptions_are_refused_in_one_line(name: str) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    with pytest.raises(HarnessError) as caught:
        run_disruption(ctx, testing.State(), name)
    assert "\n" not in str(caught.value)
    assert name in str(caught.value)


def test_unknown_disruptions_and_containers_name_the_choices(tmp_path: Path) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    with pytest.raises(UnknownName, match="pod-delete"):
        run_disruption(ctx, testing.State(), "pod-explode")
    with pytest.raises(UnknownName, match="router"):
        run_disruption(ctx, deployed(tmp_path), "container-restart", container="nginx")


class PushesWithoutMakeDirs(ops.CharmBase):
    """A correct charm that relies on its image: /tmp and /etc/app exist there."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.app_pebble_ready, self._write)

    def _write(self, event: ops.EventBase) -> None:
        container = self.unit.get_container("app")
        container.push("/tmp/scratch", "tmp")
        container.push("/etc/app/app.conf", "written by the charm")


APP_META: dict[str, Any] = {"name": "app", "containers": {"app": {}}}


def app_unit() -> testing.State:
    return testing.State(leader=True, containers={testing.Container("app", can_connect=True)})


def test_a_restarted_container_comes_back_as_its_image(tmp_path: Path) -> None:
    ctx = testing.Context(PushesWithoutMakeDirs, meta=APP_META)
    image = Image.linux(["/etc/app"], files={"/etc/app/defaults": "from the image"})
    result = run_disruption(ctx, app_unit(), "container-restart", images={"app": image})
    assert result.read_text("app", "/tmp/scratch") == "tmp"
    assert result.read_text("app", "/etc/app/defaults") == "from the image"
    # What the charm wrote does not survive the next restart; the image does.
    again = run_disruption(
        testing.Context(ops.CharmBase, meta=APP_META),
        result.state,
        "node-restart",
        images={"app": image},
    )
    assert again.read_text("app", "/etc/app/app.conf") is None
    assert again.read_text("app", "/etc/app/defaults") == "from the image"


def test_without_an_image_the_usual_linux_directories_are_there(tmp_path: Path) -> None:
    ctx = testing.Context(PushesWithoutMakeDirs, meta=APP_META)
    result = run_disruption(
        ctx, app_unit(), "pod-delete", images={"app": Image.linux(["/etc/app"])}
    )
    assert result.read_text("app", "/tmp/scratch") == "tmp"
    plain = run_disruption(testing.Context(ops.CharmBase, meta=APP_META), app_unit(), "pod-delete")
    for directory in ("/etc", "/tmp", "/var/lib", "/usr/bin", "/root"):
        assert plain.path("app", directory).is_dir(), directory


def test_images_and_handlers_for_unknown_containers_are_one_line_errors() -> None:
    ctx = testing.Context(ops.CharmBase, meta=APP_META)
    with pytest.raises(HarnessError, match="use one of: app") as caught:
        run_disruption(ctx, app_unit(), "pod-delete", images={"nginx": Image()})
    assert "\n" not in str(caught.value)
    with pytest.raises(HarnessError, match="use one of: app"):
        run_disruption(ctx, app_unit(), "pod-delete", exec_handlers={"web": {"ls": print}})
    with pytest.raises(HarnessError, match="absolute"):
        Image.linux(["etc/app"])


class RunsAVersionCommand(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.start, self._start)

    def _start(self, event: ops.EventBase) -> None:
        container = self.unit.get_container("app")
        out, _ = container.exec(["app", "--version"]).wait_output()
        self.unit.set_workload_version(out.strip())
        try:
            container.exec(["app", "migrate"], stdin="plan").wait()
        except ops.pebble.ExecError as e:
            self.unit.status = ops.BlockedStatus(f"migrate failed: {e.exit_code}")


def test_an_exec_handler_keeps_state_chooses_exit_codes_and_sees_the_filesystem() -> None:
    calls: list[tuple[str, ...]] = []

    def app(call: ExecCall) -> ExecResult | int:
        calls.append(call.command)
        if call.command[1] == "--version":
            return ExecResult(stdout=f"1.{len(calls)}\n")
        assert call.stdin == "plan"
        call.path("/var/lib/app").mkdir(exist_ok=True)
        call.path("/var/lib/app/migrated").write_text("half")
        return 3

    ctx = testing.Context(RunsAVersionCommand, meta=APP_META)
    first = run_disruption(ctx, app_unit(), "node-restart", exec_handlers={"app": {"app": app}})
    assert first.state.workload_version == "1.1"
    assert first.state.unit_status == testing.BlockedStatus("migrate failed: 3")
    assert first.read_text("app", "/var/lib/app/migrated") == "half"
    (start,) = (t for t in first.trace if t.hook == "start")
    assert [r.brief() for r in start.commands] == [
        "app: app --version -> 0",
        "app: app migrate -> 3",
    ]
    second = run_disruption(ctx, first.state, "node-restart", exec_handlers={"app": {"app": app}})
    assert second.state.workload_version == "1.3"  # the handler counted across runs


def test_the_trace_and_the_printed_result_say_what_each_hook_did() -> None:
    ctx = testing.Context(PushesWithoutMakeDirs, meta=APP_META)
    result = run_disruption(
        ctx, app_unit(), "pod-delete", images={"app": Image.linux(["/etc/app"])}
    )
    assert [t.hook for t in result.trace] == list(result.hooks)
    ready = result.trace[-1]
    assert ready.pushed == (("app", "/tmp/scratch"), ("app", "/etc/app/app.conf"))
    assert ready.step == "after: new pod"
    assert result.trace[0].step == "before: new pod"  # stop, in the old pod
    text = str(result)
    assert text.startswith("TwinResult(SIMULATED pod-delete on Juju 3.6.0, app/0:")
    assert "app-pebble-ready [after: new pod] ok; push app:/tmp/scratch" in text
    assert len(text.splitlines()) == len(result.hooks) + 1


def test_reading_an_unknown_container_names_the_ones_there(tmp_path: Path) -> None:
    ctx = testing.Context(WritesOnInstall, meta=META)
    result = run_disruption(ctx, deployed(tmp_path), "node-restart")
    with pytest.raises(UnknownName, match="containers: router, sidecar") as caught:
        result.read_text("mysql-router", CONFIG)
    assert "\n" not in str(caught.value)


def test_a_failing_exec_handler_is_named_as_the_handler_not_the_charm() -> None:
    def broken(call: ExecCall) -> None:
        raise KeyError("oops")

    ctx = testing.Context(RunsAVersionCommand, meta=APP_META)
    with pytest.raises(CharmHookError, match=r"the exec handler for app: 'app --version' raised"):
        run_disruption(ctx, app_unit(), "node-restart", exec_handlers={"app": {"app": broken}})


def test_a_charm_whose_assumes_exclude_the_juju_version_is_refused_as_juju_would() -> None:
    meta = {**META, "assumes": ["k8s-api", {"any-of": ["juju >= 3.4.3", "juju < 3"]}]}
    ctx = testing.Context(WritesWhenReady, meta=meta)
    state = testing.State(leader=True, containers={testing.Container("router", can_connect=True)})
    with pytest.raises(HarnessError) as raised:
        run_disruption(ctx, state, "pod-delete", juju_version="3.1.8")
    text = str(raised.value)
    assert "SIMULATED" in text
    assert "Juju 3.1.8 would refuse to deploy router" in text
    assert "charm requires Juju version >= 3.4.3, model has version 3.1.8" in text
    assert "juju_version=" in raised.value.fix
    # A version the block admits runs as before.
    assert "start" in run_disruption(ctx, state, "pod-delete", juju_version="3.6").hooks
