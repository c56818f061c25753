"""``run_disruption`` as a charm author uses it, with only the public API.

Each test is a place where the twin let an author down on a real charm (mysql-router-k8s
at three revisions, traefik-k8s; issue 25): the charms here are small ones of our own, of
the shape that broke.
"""

from __future__ import annotations

import inspect
import re
import warnings
from pathlib import Path
from typing import Any

import ops
import pytest
from ops import testing

from harness.common.errors import HarnessError
from harness.twin import CharmHookError, ExecCall, ExecResult, run_disruption

README = Path(__file__).resolve().parents[2] / "harness" / "twin" / "README.md"

APP_META: dict[str, Any] = {"name": "app", "containers": {"app": {}}}


def app_unit() -> testing.State:
    return testing.State(leader=True, containers={testing.Container("app", can_connect=True)})


def test_charm_source_is_importable_from_the_package_as_the_readme_says() -> None:
    from harness import twin

    assert "CharmSource" in twin.__all__
    assert twin.CharmSource.__name__ == "CharmSource"


def test_a_juju_version_that_is_not_one_is_a_one_line_harness_error() -> None:
    ctx = testing.Context(ops.CharmBase, meta=APP_META)
    with pytest.raises(HarnessError) as raised:
        run_disruption(ctx, app_unit(), "pod-delete", juju_version="banana")
    assert "not a Juju version: 'banana'" in str(raised.value)
    assert "juju_version=" in raised.value.fix
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("version", ["4.1", "5.0"])
def test_a_juju_version_past_the_catalogue_says_it_is_an_extrapolation(version: str) -> None:
    ctx = testing.Context(ops.CharmBase, meta=APP_META)
    with pytest.warns(UserWarning, match=rf"Juju {version}\.0 .*an extrapolation"):
        result = run_disruption(ctx, app_unit(), "pod-delete", juju_version=version)
    assert result.extrapolation is not None
    assert "extrapolat" in repr(result)


def test_a_version_the_catalogue_names_is_no_extrapolation() -> None:
    ctx = testing.Context(ops.CharmBase, meta=APP_META)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = run_disruption(ctx, app_unit(), "pod-delete", juju_version="3.6.5")
    assert result.extrapolation is None


def documented_signature(name: str) -> list[str]:
    """The parameter names of the signature the twin README shows for ``name``."""
    text = README.read_text()
    found = re.search(rf"```\n{name}\((.*?)\)(?: ->[^\n]*)?\n```", text, flags=re.DOTALL)
    assert found is not None, f"the README shows no signature for {name}"
    words = [part.strip() for part in found.group(1).split(",")]
    return [w.split("=")[0].strip() for w in words if w and w != "*"]


def test_run_disruption_takes_exactly_the_parameters_the_readme_documents() -> None:
    actual = list(inspect.signature(run_disruption).parameters)
    assert actual == documented_signature("run_disruption")


class Migrates(ops.CharmBase):
    """Runs its workload's migration on start, and a version command nobody handles."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.start, self._start)

    def _start(self, event: ops.EventBase) -> None:
        container = self.unit.get_container("app")
        container.exec(["app", "migrate", "--all"], environment={"MODE": "x"}).wait()
        container.exec(["app", "--version"]).wait_output()


def test_exec_history_holds_the_commands_a_handler_answered_too() -> None:
    ctx = testing.Context(Migrates, meta=APP_META)
    state = testing.State(
        containers={
            testing.Container(
                "app", can_connect=True, execs={testing.Exec(["app", "--version"], stdout="1")}
            )
        }
    )
    run_disruption(ctx, state, "node-restart", exec_handlers={"app": {"app migrate": lambda c: 0}})
    history = ctx.exec_history["app"]
    assert [args.command for args in history] == [
        ["app", "migrate", "--all"],
        ["app", "--version"],
    ]
    assert history[0].environment == {"MODE": "x"}


class FailsToStart(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.stop, self._stop)
        framework.observe(self.on.start, self._start)

    def _stop(self, event: ops.EventBase) -> None:
        self.unit.status = ops.MaintenanceStatus("stopping")

    def _start(self, event: ops.EventBase) -> None:
        self.unit.status = ops.ActiveStatus("never committed")
        raise RuntimeError("no database")


def test_a_failed_hooks_trace_shows_the_status_juju_shows_after_it() -> None:
    ctx = testing.Context(FailsToStart, meta=APP_META)
    with pytest.raises(CharmHookError) as raised:
        run_disruption(ctx, app_unit(), "pod-delete")
    stop, *_, failed = raised.value.partial.trace
    assert stop.status == "maintenance: stopping"
    assert failed.hook == "start"
    assert failed.outcome == "failed"
    # Juju puts the unit in error; what the hook set is never committed.
    assert failed.status == 'error: hook failed: "start"'


class PushesIntoAMissingDirectory(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.app_pebble_ready, self._ready)

    def _ready(self, event: ops.EventBase) -> None:
        self.unit.get_container("app").push("/opt/app/conf/app.yaml", "port: 80\n")


def test_a_failed_push_names_its_path() -> None:
    ctx = testing.Context(PushesIntoAMissingDirectory, meta=APP_META)
    with pytest.raises(CharmHookError) as raised:
        run_disruption(ctx, app_unit(), "node-restart")
    assert "/opt/app/conf/app.yaml" in str(raised.value)
    failed = raised.value.partial.trace[-1]
    assert failed.pushed == (("app", "/opt/app/conf/app.yaml"),)
    assert "push app:/opt/app/conf/app.yaml failed" in failed.brief()


# A database: its storage volume is mounted in the workload container at /var/lib/mysql,
# as mysql-k8s declares it.
DB_META: dict[str, Any] = {
    "name": "db",
    "containers": {"mysql": {"mounts": [{"storage": "database", "location": "/var/lib/mysql"}]}},
    "storage": {"database": {"type": "filesystem", "location": "/var/lib/mysql"}},
}
MARKER = "/var/lib/mysql/initialised"


class Initialises(ops.CharmBase):
    """Initialises its data directory once: on the first start that finds it empty."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.start, self._start)

    def _start(self, event: ops.EventBase) -> None:
        container = self.unit.get_container("mysql")
        if container.can_connect() and not container.exists(MARKER):
            container.push(MARKER, f"by {self.unit.name}\n", make_dirs=True)


def db_unit(mounts: dict[str, testing.Mount]) -> testing.State:
    return testing.State(
        leader=True,
        containers={testing.Container("mysql", can_connect=True, mounts=mounts)},
        storages={testing.Storage("database")},
    )


def test_a_mount_where_the_metadata_mounts_storage_is_a_volume_without_storage_mounts(
    tmp_path: Path,
) -> None:
    datadir = tmp_path / "datadir"
    datadir.mkdir()
    (datadir / "ibdata1").write_text("rows")
    ctx = testing.Context(Initialises, meta=DB_META)
    state = db_unit({"datadir": testing.Mount(location="/var/lib/mysql", source=datadir)})
    result = run_disruption(ctx, state, "pod-delete")
    assert result.read_text("mysql", "/var/lib/mysql/ibdata1") == "rows"


def test_storage_the_state_does_not_mount_is_a_volume_all_the_same() -> None:
    ctx = testing.Context(Initialises, meta=DB_META)
    first = run_disruption(ctx, db_unit({}), "node-restart")
    assert first.read_text("mysql", MARKER) == "by db/0\n"
    second = run_disruption(ctx, first.state, "pod-delete")
    assert second.read_text("mysql", MARKER) == "by db/0\n"
    # Found on the volume: not initialised again over a wiped data directory.
    assert [t.pushed for t in second.trace if t.pushed] == []


def test_a_mount_above_the_storage_location_seeds_the_volume(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    (lib / "mysql").mkdir(parents=True)
    (lib / "mysql" / "ibdata1").write_text("rows")
    (lib / "apt").mkdir()
    ctx = testing.Context(Initialises, meta=DB_META)
    state = db_unit({"lib": testing.Mount(location="/var/lib", source=lib)})
    result = run_disruption(ctx, state, "pod-delete")
    assert result.read_text("mysql", "/var/lib/mysql/ibdata1") == "rows"
    assert not (lib / "mysql" / "initialised").exists()  # the test's directory is untouched


CONF = "/etc/app/app.conf"


class WritesItsConfigWhenReady(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.app_pebble_ready, self._ready)

    def _ready(self, event: ops.EventBase) -> None:
        event.workload.push(CONF, "port: 80\n", make_dirs=True)  # type: ignore[attr-defined]


def test_get_filesystem_shows_the_root_the_charm_sees_after_a_disruption() -> None:
    ctx = testing.Context(WritesItsConfigWhenReady, meta=APP_META)
    result = run_disruption(ctx, app_unit(), "pod-delete")
    root = result.state.get_container("app").get_filesystem(ctx)
    assert (root / "etc" / "app" / "app.conf").read_text() == "port: 80\n"
    assert (root / "usr" / "bin").is_dir()  # the image's directories are there too


def test_get_filesystem_shows_a_lost_file_as_lost_in_a_root_that_is_not_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    etc = tmp_path / "etc"
    (etc / "app").mkdir(parents=True)
    (etc / "app" / "app.conf").write_text("port: 80\n")
    state = testing.State(
        containers={
            testing.Container(
                "app", can_connect=True, mounts={"etc": testing.Mount(location="/etc", source=etc)}
            )
        }
    )
    ctx = testing.Context(ops.CharmBase, meta=APP_META)  # writes nothing again
    result = run_disruption(ctx, state, "pod-delete")
    root = result.state.get_container("app").get_filesystem(ctx)
    assert (root / "etc").is_dir()
    assert not (root / "etc" / "app" / "app.conf").exists()  # really gone: the bug shows
    # The next run on the state starts from that filesystem, without ops.testing's warning
    # about a leftover one.
    again = run_disruption(ctx, result.state, "node-restart")
    assert "non-empty filesystem" not in caplog.text
    assert (again.state.get_container("app").get_filesystem(ctx) / "usr").is_dir()


class ChecksItsWorkload(ops.CharmBase):
    """Asks its workload for its health on every update-status, through Pebble exec."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.update_status, self._check)

    def _check(self, event: ops.EventBase) -> None:
        out, _ = self.unit.get_container("app").exec(["app", "health"]).wait_output()
        self.unit.status = ops.ActiveStatus(out.strip())


def test_the_exec_handlers_can_be_kept_for_further_runs_on_the_result() -> None:
    calls: list[tuple[str, ...]] = []

    def app(call: ExecCall) -> ExecResult:
        calls.append(call.command)
        return ExecResult(stdout="healthy\n")

    ctx = testing.Context(ChecksItsWorkload, meta=APP_META)
    result = run_disruption(ctx, app_unit(), "node-restart", exec_handlers={"app": {"app": app}})
    with result.workload():
        out = ctx.run(ctx.on.update_status(), result.state)
    assert out.unit_status == testing.ActiveStatus("healthy")
    assert calls == [("app", "health")]
    # Outside the block, ops.testing answers as it always does.
    with pytest.raises(testing.errors.UncaughtCharmError, match="mock for cmd"):
        ctx.run(ctx.on.update_status(), result.state)


# A router: bootstraps its workload with the database's credentials on the command line,
# as mysql-router-k8s does (its own logs redact the password).
ROUTER_META: dict[str, Any] = {
    "name": "router",
    "containers": {"mysql-router": {}},
    "peers": {"router-peers": {"interface": "router_peers"}},
    "requires": {"backend-database": {"interface": "mysql_client", "limit": 1}},
}
PASSWORD = "s3cret-pw-from-the-database"


class Bootstraps(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.mysql_router_pebble_ready, self._bootstrap)

    def _bootstrap(self, event: ops.EventBase) -> None:
        relation = self.model.get_relation("backend-database")
        assert relation is not None
        assert relation.app is not None
        data = relation.data[relation.app]
        server = f"{data['username']}:{data['password']}@{data['endpoints']}"
        self.unit.get_container("mysql-router").exec(["mysqlrouter", "--bootstrap", server]).wait()
        self.unit.status = ops.ActiveStatus()


def router_unit() -> testing.State:
    database = testing.Relation(
        "backend-database",
        remote_app_data={"username": "router", "password": PASSWORD, "endpoints": "mysql:3306"},
    )
    return testing.State(
        leader=True,
        containers={testing.Container("mysql-router", can_connect=True)},
        relations={database, testing.PeerRelation("router-peers", peers_data={1: {}})},
    )


def test_the_repr_is_brief_and_neither_it_nor_the_trace_prints_a_password() -> None:
    ctx = testing.Context(Bootstraps, meta=ROUTER_META)
    handlers = {"mysql-router": {"mysqlrouter --bootstrap": lambda call: 0}}
    result = run_disruption(ctx, router_unit(), "scale-down-up", exec_handlers=handlers)
    brief = repr(result)
    assert brief.startswith("TwinResult(SIMULATED scale-down-up on Juju 3.6.0, router/")
    assert "\n" not in brief
    assert len(brief) < 300
    shown = str(result)  # what print(result) shows: each hook, one per line
    assert len(shown.splitlines()) == len(result.trace) + 1
    assert "exec mysql-router: mysqlrouter --bootstrap" in shown
    assert PASSWORD not in shown + brief
    assert "router:<redacted sha256:" in shown


def test_a_failed_commands_password_stays_out_of_the_error() -> None:
    ctx = testing.Context(Bootstraps, meta=ROUTER_META)
    handlers = {"mysql-router": {"mysqlrouter --bootstrap": lambda call: 1}}
    with pytest.raises(CharmHookError) as raised:
        run_disruption(ctx, router_unit(), "node-restart", exec_handlers=handlers)
    assert "ExecError" in str(raised.value)
    assert PASSWORD not in str(raised.value)
    assert PASSWORD not in str(raised.value.partial) + repr(raised.value.partial)
