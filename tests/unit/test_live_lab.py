"""Making live Labs: from a mocked pytest-operator OpsTest, and the CLI's own model."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import create_autospec

import pytest
import websockets
from controller_fakes import ControllerWorld, ops_test_for
from juju.client import client as juju_client
from juju.model import Model
from live_fakes import FakeClock, FakeJujuRunner, FakeNode
from pytest_operator.plugin import OpsTest

import harness.live.controller as controller_module
import harness.live.lab as lab_module
from harness.common.errors import EnvironmentUnavailable, HarnessError
from harness.disrupt.node_restart import NodeRestart
from harness.live.controller import controller_reachable
from harness.live.juju_cli import JujuCLI
from harness.live.juju_port import LiveJujuPort
from harness.live.lab import (
    check_versions,
    close_lab,
    connect_lab,
    lab_from_ops_test,
    open_lab,
    pytest_live_lab,
    pytest_operator_model_existed,
)
from harness.live.process import Completed
from harness.scenario.scenarios import Target


class ProcessRecorder:
    """A process runner that records (argv, env) and answers every command with success."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[str, ...], dict[str, str]]] = []

    async def __call__(
        self, argv: Sequence[str], *, env: Any = None, timeout: float | None = None
    ) -> Completed:
        self.calls.append((tuple(argv), dict(env or {})))
        out = "3.6.1-genericlinux-amd64\n" if tuple(argv[1:]) == ("version",) else "{}"
        return Completed(tuple(argv), 0, out, "")


def world_cli(world: ControllerWorld) -> Any:
    """The `juju` CLI against the world: refused while the controller is down."""

    async def run(argv: Sequence[str], *, env: Any = None, timeout: float | None = None) -> Any:
        args = tuple(argv[1:])
        if args == ("version",):
            return Completed(tuple(argv), 0, "3.6.1-genericlinux-amd64\n", "")
        if not world.up:
            return Completed(tuple(argv), 1, "", "ERROR cannot connect to API: refused\n")
        if args[0] == "destroy-model":
            name = args[1].rpartition(":")[2]
            if name in world.models:
                world.models.remove(name)
        return Completed(tuple(argv), 0, "{}", "")

    return run


class WorldNode(FakeNode):
    """A node whose stop takes the controller down with it."""

    def __init__(self, world: ControllerWorld) -> None:
        super().__init__()
        self.world = world

    async def stop(self) -> None:
        await super().stop()
        await self.world.stop()

    async def start(self) -> None:
        await super().start()
        self.world.start()


async def connected_ops_test(world: ControllerWorld, tmp_path: Path) -> Any:
    ops_test = ops_test_for(world, tmp_path, "test-node-restart-ab12")
    await ops_test._controller.connect("mk8s")
    await ops_test.model.connect("mk8s:test-node-restart-ab12")
    return ops_test


async def test_a_node_restart_kills_libjujus_connections_for_good() -> None:
    """What the fake pins down about libjuju: after the watcher's failed reconnect,
    ``reconnect()`` returns at once and every RPC raises until a new connection is made."""
    world = ControllerWorld()
    conn = await world.open_connection()
    await world.stop()
    assert conn.monitor.close_called.is_set()
    world.start()
    await conn.reconnect()  # returns at once: close_called is set
    assert not conn.is_open
    # libjuju 2.9.49.1 builds its ConnectionClosed with an argument list websockets 13 no
    # longer takes, so there the dead RPC raises TypeError instead: raises all the same.
    with pytest.raises((websockets.exceptions.ConnectionClosed, TypeError)):
        await conn.rpc({"type": "ModelManager", "request": "ListModels"})


async def test_teardown_after_a_node_restart_destroys_the_model(tmp_path: Path) -> None:
    world = ControllerWorld()
    ops_test = await connected_ops_test(world, tmp_path)
    lab = lab_from_ops_test(ops_test, clock=FakeClock(), run=world_cli(world))
    lab = dataclasses.replace(lab, node=WorldNode(world))
    await NodeRestart().apply(lab, Target("probe"))
    await close_lab(lab)
    await ops_test._cleanup_models()  # pytest-operator's own teardown, unchanged
    assert world.models == []
    assert any(m.get("request") == "DestroyModels" for m in world.sent)


async def test_teardown_reconnects_when_the_run_stopped_before_reconnecting(
    tmp_path: Path,
) -> None:
    world = ControllerWorld()
    ops_test = await connected_ops_test(world, tmp_path)
    lab = lab_from_ops_test(ops_test, clock=FakeClock(), run=world_cli(world))
    await world.stop()
    world.start()  # the node came back, but the run raised before lab.juju.reconnect()
    await close_lab(lab)
    await ops_test._cleanup_models()
    assert world.models == []


async def test_a_controller_that_stays_down_is_destroyed_by_cli_or_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    world = ControllerWorld()
    ops_test = await connected_ops_test(world, tmp_path)
    clock = FakeClock()
    lab = lab_from_ops_test(ops_test, clock=clock, run=world_cli(world))
    await world.stop()  # and it never comes back
    await close_lab(lab)
    await ops_test._cleanup_models()  # must not raise on the dead connection
    assert clock.elapsed >= 300  # a bounded wait on the Lab's clock, not forever
    assert "juju destroy-model mk8s:test-node-restart-ab12 --force" in caplog.text


CONTROLLER = json.dumps({"mk8s": {"details": {"agent-version": "3.6.1", "cloud": "microk8s"}}})


def libjuju_model(*logging_values: str) -> Any:
    model = create_autospec(Model, instance=True)
    model.applications = {}
    values = logging_values or ("<root>=WARNING", "<root>=WARNING;juju.worker.uniter=INFO")
    model.get_config.side_effect = [
        {"logging-config": juju_client.ConfigValue(source="model", value=v)} for v in values
    ]
    return model


def ops_test_mock() -> Any:
    ops_test = create_autospec(OpsTest, instance=True)
    ops_test.model = libjuju_model()
    ops_test.model_name = "test-pod-delete-ab12"
    ops_test.model_full_name = "mk8s:admin/test-pod-delete-ab12"
    ops_test.jujudata = SimpleNamespace(path="/tmp/juju-data")
    return ops_test


# --- from pytest-operator ---------------------------------------------------------------------


async def test_lab_from_ops_test_wraps_its_model_and_its_juju(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ops_test = ops_test_mock()
    runner = ProcessRecorder()
    lab = lab_from_ops_test(ops_test, clock=FakeClock(), run=runner)
    assert lab.backend == "live"
    assert not lab.simulated
    assert lab.juju.model_name == "test-pod-delete-ab12"
    assert lab.cluster.namespace == "test-pod-delete-ab12"
    assert isinstance(lab.juju, LiveJujuPort)
    assert lab.juju.model is ops_test.model
    await lab.juju.trust("mysql-k8s")
    assert runner.calls[-1] == (
        ("juju", "trust", "mysql-k8s", "--scope=cluster"),
        {"JUJU_DATA": "/tmp/juju-data", "JUJU_MODEL": "mk8s:admin/test-pod-delete-ab12"},
    )
    assert "mk8s:admin/test-pod-delete-ab12" in capsys.readouterr().err


async def test_reconnect_reconnects_ops_tests_own_model_in_place() -> None:
    ops_test = ops_test_mock()
    runner = ProcessRecorder()
    lab = lab_from_ops_test(ops_test, clock=FakeClock(), run=runner)
    await lab.juju.reconnect()
    assert ("juju", "status", "--format", "json") in [argv for argv, _ in runner.calls]
    ops_test.model.disconnect.assert_awaited_once_with()
    ops_test.model.connect.assert_awaited_once_with("mk8s:admin/test-pod-delete-ab12")


async def test_open_and_close_keep_hook_lines_then_restore() -> None:
    ops_test = ops_test_mock()
    lab = lab_from_ops_test(ops_test, clock=FakeClock(), run=ProcessRecorder())
    lab.juju.adopt(created=True, juju_defaults=True)  # type: ignore[attr-defined]
    await open_lab(lab)
    await close_lab(lab)
    calls = [c.args[0]["logging-config"] for c in ops_test.model.set_config.await_args_list]
    assert calls == ["<root>=WARNING;juju.worker.uniter=INFO", "<root>=WARNING"]


def test_no_model_yet_is_one_line() -> None:
    ops_test = create_autospec(OpsTest, instance=True)
    ops_test.model = None
    with pytest.raises(EnvironmentUnavailable, match="pytest-operator has no model"):
        lab_from_ops_test(ops_test)


# --- from the current controller ----------------------------------------------------------


class Controller:
    """A fake controller behind the CLI: models appear on add-model and go on destroy."""

    def __init__(
        self, *, destroy_works: bool = True, version: str = "3.6.1-genericlinux-amd64"
    ) -> None:
        self.models = ["welcome"]
        self.destroy_works = destroy_works
        self.runners: dict[str | None, FakeJujuRunner] = {}
        self.version = version

    def cli_for(self, name: str | None) -> JujuCLI:
        runner = FakeJujuRunner(self.version)
        runner.answer(("show-controller",), 0, CONTROLLER)
        controller = self

        class Live(FakeJujuRunner):
            async def __call__(self, args: Any, timeout: float | None) -> tuple[int, str, str]:
                if args[0] == "add-model":
                    controller.models.append(args[1])
                if args[0] == "destroy-model" and controller.destroy_works:
                    controller.models.remove(args[1])
                if args[0] == "models":
                    listing = [{"name": f"admin/{m}", "short-name": m} for m in controller.models]
                    self.calls.append(tuple(args))
                    return 0, json.dumps({"models": listing}), ""
                return await runner(args, timeout)

        live = Live(self.version)
        live.calls = runner.calls
        self.runners[name] = live
        return JujuCLI(live)

    def calls(self, name: str | None = None) -> list[tuple[str, ...]]:
        return [c for c in self.runners[name].calls if c[0] != "version"]


def connect_to(controller: Controller, model: str | None, lines: list[str], libjuju: Any) -> Any:
    """``connect_lab`` on ``controller``: a model it makes is not kept; ``lines`` get its echo."""
    return connect_lab(
        model,
        False,
        echo=lines.append,
        clock=FakeClock(),
        cli_for=controller.cli_for,
        model_factory=lambda: libjuju,
    )


async def test_a_new_model_is_created_printed_and_destroyed_with_force() -> None:
    controller = Controller()
    model = libjuju_model()
    lines: list[str] = []
    async with connect_to(controller, None, lines, model) as lab:
        name = lab.juju.model_name
        assert name.startswith("repro-")
        assert name in controller.models
        model.connect.assert_awaited_once_with(name)
        assert lab.cluster.namespace == name
    assert lines[0] == f"live model: {name} (created; namespace {name})"
    assert lines[-1] == f"model {name} destroyed"
    root = controller.calls(None)
    assert ("add-model", name, "--no-switch") in root
    assert (
        "destroy-model",
        name,
        "--no-prompt",
        "--destroy-storage",
        "--force",
        "--no-wait",
    ) in root
    assert name not in controller.models
    model.disconnect.assert_awaited()
    # the logging-config it raised was put back before leaving
    assert model.set_config.await_args_list[-1].args[0] == {"logging-config": "<root>=WARNING"}


async def test_a_failed_connect_still_destroys_the_model_it_created() -> None:
    controller = Controller()
    model = libjuju_model()
    model.connect.side_effect = ConnectionRefusedError(111, "Connection refused")
    lines: list[str] = []
    with pytest.raises(ConnectionRefusedError):
        async with connect_to(controller, None, lines, model):
            pass
    created = [c[1] for c in controller.calls(None) if c[0] == "add-model"]
    assert created
    assert created[0] not in controller.models
    assert lines[-1] == f"model {created[0]} destroyed"


async def test_only_a_model_it_created_gets_juju_s_default_hook_settings() -> None:
    controller = Controller()
    async with connect_lab(
        None,
        True,
        echo=print,
        clock=FakeClock(),
        cli_for=controller.cli_for,
        model_factory=libjuju_model,
    ) as lab:
        name = lab.juju.model_name
    assert (
        "model-config",
        "automatically-retry-hooks=true",
        "update-status-hook-interval=5m",
    ) in controller.calls(name)
    controller = Controller()
    async with connect_lab(
        "welcome",
        False,
        echo=print,
        clock=FakeClock(),
        cli_for=controller.cli_for,
        model_factory=lambda: libjuju_model("<root>=INFO"),
    ):
        pass
    assert not [c for c in controller.calls("welcome") if c[0] == "model-config" and "=" in c[-1]]


async def test_keep_leaves_the_new_model_and_says_how_to_remove_it() -> None:
    controller = Controller()
    lines: list[str] = []
    async with connect_lab(
        None,
        True,
        echo=lines.append,
        clock=FakeClock(),
        cli_for=controller.cli_for,
        model_factory=libjuju_model,
    ) as lab:
        name = lab.juju.model_name
    assert name in controller.models
    assert not any(c[0] == "destroy-model" for c in controller.calls(None))
    assert lines[-1] == f"model {name} kept (remove it with: juju destroy-model {name})"


async def test_an_existing_model_is_used_and_never_destroyed() -> None:
    controller = Controller()
    lines: list[str] = []
    async with connect_to(controller, "welcome", lines, libjuju_model("<root>=INFO")) as lab:
        assert lab.juju.model_name == "welcome"
    root = controller.calls(None)
    assert not any(c[0] in ("add-model", "destroy-model") for c in root)
    assert lines == ["live model: welcome (existing; namespace welcome)"]


async def test_an_existing_model_that_drops_hook_lines_is_refused_and_left_as_it_was() -> None:
    """Issue 23, point 10: a model the harness did not create is never reconfigured."""
    controller = Controller()
    model = libjuju_model("<root>=WARNING")
    with pytest.raises(HarnessError, match="drops the uniter's hook lines") as refused:
        async with connect_to(controller, "welcome", [], model):
            raise AssertionError("a lab on a model where no hook can be seen")
    assert "juju model-config -m welcome logging-config=" in str(refused.value)
    model.set_config.assert_not_awaited()
    assert not [c for c in controller.calls("welcome") if c[0] == "model-config" and "=" in c[-1]]
    assert "welcome" in controller.models


async def test_a_model_that_will_not_go_is_named_with_the_command_to_remove_it() -> None:
    controller = Controller(destroy_works=False)
    lines: list[str] = []
    clock = FakeClock()
    async with connect_lab(
        None,
        False,
        echo=lines.append,
        clock=clock,
        cli_for=controller.cli_for,
        model_factory=libjuju_model,
        destroy_timeout=120,
    ) as lab:
        name = lab.juju.model_name
    assert lines[-1].startswith(f"model {name} was left behind")
    assert f"juju destroy-model {name} --force --no-wait --destroy-storage" in lines[-1]
    assert 120 <= clock.elapsed < 130  # bounded, on the Lab's clock


async def test_no_controller_is_one_line_that_says_how_to_bootstrap() -> None:
    def cli_for(name: str | None) -> JujuCLI:
        runner = FakeJujuRunner()
        runner.answer(("show-controller",), 1, "", "ERROR No controllers registered.")
        return JujuCLI(runner)

    with pytest.raises(EnvironmentUnavailable) as raised:
        async with connect_lab(None, False, cli_for=cli_for, clock=FakeClock()):
            pass
    assert str(raised.value) == (
        "no Juju controller is reachable (bootstrap one: `juju bootstrap microk8s`)"
    )


async def test_a_client_that_cannot_drive_the_controller_is_refused() -> None:
    controller = Controller(version="2.9.49-ubuntu-amd64")
    with pytest.raises(EnvironmentUnavailable, match=r"cannot drive this 3\.6\.1 controller"):
        async with connect_lab(
            None, False, cli_for=controller.cli_for, clock=FakeClock(), model_factory=libjuju_model
        ):
            pass
    assert not any(c[0] == "add-model" for c in controller.calls(None))


# --- the fast check for --backend auto ---------------------------------------------------


def test_controller_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    answers: dict[str, subprocess.CompletedProcess[str]] = {}

    def run(argv: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        return answers[argv[1]]

    monkeypatch.setattr(controller_module.shutil, "which", lambda _: "/snap/bin/juju")
    monkeypatch.setattr(controller_module.subprocess, "run", run)
    answers["show-controller"] = subprocess.CompletedProcess([], 0, CONTROLLER, "")
    answers["models"] = subprocess.CompletedProcess([], 0, '{"models": []}', "")
    assert controller_reachable() is True

    answers["models"] = subprocess.CompletedProcess([], 1, "", "ERROR cannot connect to API")
    assert controller_reachable() is False

    answers["show-controller"] = subprocess.CompletedProcess([], 1, "", "ERROR No controllers")
    assert controller_reachable() is False

    def hang(argv: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        raise subprocess.TimeoutExpired(argv, 20)

    monkeypatch.setattr(controller_module.subprocess, "run", hang)
    assert controller_reachable() is False

    monkeypatch.setattr(controller_module.shutil, "which", lambda _: None)
    assert controller_reachable() is False


class StrictController(Controller):
    """Refuses add-model as Juju does: a qualified name is no model name; a name taken is."""

    def cli_for(self, name: str | None) -> JujuCLI:
        cli = super().cli_for(name)
        inner = cli.runner
        controller = self

        async def strict(args: Any, timeout: float | None) -> tuple[int, str, str]:
            if args[0] == "add-model":
                inner.calls.append(tuple(args))
                if "/" in args[1] or ":" in args[1]:
                    return (
                        1,
                        "",
                        f'ERROR "{args[1]}" is not a valid name: model names may only contain'
                        " lowercase letters, digits and hyphens\n",
                    )
                if args[1] in controller.models or args[1] in controller.hidden:
                    return (
                        1,
                        "",
                        f'ERROR failed to create new model: model "{args[1]}" for admin'
                        " already exists (already exists)\n",
                    )
            return await inner(args, timeout)

        strict.calls = inner.calls  # type: ignore[attr-defined]
        return JujuCLI(strict)

    hidden: tuple[str, ...] = ()


@pytest.mark.parametrize("given", ["admin/welcome", "lab:admin/welcome", "lab:welcome"])
async def test_a_qualified_name_of_an_existing_model_is_used_never_destroyed(given: str) -> None:
    controller = StrictController()
    model = libjuju_model("<root>=INFO")
    lines: list[str] = []
    async with connect_to(controller, given, lines, model) as lab:
        assert lab.cluster.namespace == "welcome"
        model.connect.assert_awaited_once_with(given)
    verbs = [c[0] for c in controller.calls(None)]
    assert "add-model" not in verbs
    assert "destroy-model" not in verbs
    assert controller.models == ["welcome"]


async def test_a_model_that_appears_meanwhile_is_not_destroyed_as_if_made_here() -> None:
    controller = StrictController()
    controller.hidden = ("racing",)  # made by someone else after `juju models` answered
    lines: list[str] = []
    with pytest.raises(HarnessError, match="already exists"):
        async with connect_to(controller, "racing", lines, libjuju_model()):
            pass
    assert "destroy-model" not in [c[0] for c in controller.calls(None)]


async def test_a_qualified_name_that_does_not_exist_is_refused_before_anything_is_made() -> None:
    controller = StrictController()
    with pytest.raises(HarnessError, match=r"no model admin/nope .* plain name") as raised:
        async with connect_to(controller, "admin/nope", [], libjuju_model()):
            pass
    assert "\n" not in str(raised.value)
    verbs = [c[0] for c in controller.calls(None)]
    assert "add-model" not in verbs
    assert "destroy-model" not in verbs


def pytestconfig_with(**options: object) -> Any:
    """pytest's config as a fixture gives it, with pytest-operator's options set."""
    return SimpleNamespace(getoption=lambda name, default=None: options.get(name, default))


def ops_test_on_new_model(model_name: str | None, config_file: Path | None) -> Any:
    """``ops_test`` after ``_setup_model``: ``model_config`` is then the model's WHOLE config
    (pytest-operator sets it from ``Model.get_config()``, in _add_model and
    _connect_to_model alike), never the user's ``--model-config`` file."""
    ops_test = ops_test_mock()
    ops_test.model = libjuju_model("<root>=INFO")  # Juju's default: keeps hook lines
    ops_test._init_model_name = model_name
    ops_test._init_model_config = str(config_file) if config_file else None
    ops_test.read_model_config = OpsTest.read_model_config  # the real static method
    ops_test.model_config = {
        "automatically-retry-hooks": False,
        "update-status-hook-interval": "10s",
        "logging-config": "<root>=INFO",
        "default-series": "",
    }
    return ops_test


def model_config_answer(retry_source: str, interval_source: str) -> FakeJujuRunner:
    runner = FakeJujuRunner()
    runner.answer(
        ("model-config",),
        0,
        json.dumps(
            {
                "automatically-retry-hooks": {"Value": False, "Source": retry_source},
                "update-status-hook-interval": {"Value": "10s", "Source": interval_source},
            }
        ),
    )
    return runner


async def open_ops_test_lab(
    monkeypatch: pytest.MonkeyPatch,
    runner: FakeJujuRunner,
    fixture: Any,
    **options: Any,
) -> tuple[Any, list[str]]:
    """Open the pytest-operator lab on ``fixture``'s fixtures: its evidence's versions, and
    each ``key=value`` the harness set with ``juju model-config``."""
    monkeypatch.setattr(lab_module, "OpsTestJuju", lambda *_a, **_k: runner)
    with pytest_live_lab("libjuju", fixture, controller_version=lambda: "3.6.1", **options) as lab:
        await open_lab(lab)
        versions = await lab.juju.versions()
    sets = sorted(a for c in runner.calls if c[0] == "model-config" for a in c if "=" in a)
    return versions, sets


async def test_keys_the_users_model_config_file_sets_are_kept_and_said(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # pytest-operator --model-config sets update-status-hook-interval on the model it makes;
    # the harness sets Juju's default for the other key only, and the evidence says so.
    monkeypatch.setattr(lab_module, "live_prerequisites_missing", lambda **_: None)
    config_file = tmp_path / "model-config.yaml"
    config_file.write_text("update-status-hook-interval: 10s\n")
    ops_test = ops_test_on_new_model(None, config_file)  # pytest-operator made the model
    runner = model_config_answer("controller", "model")
    given = {"ops_test": ops_test, "juju": None, "pytestconfig": pytestconfig_with(model=None)}
    versions, sets = await open_ops_test_lab(
        monkeypatch, runner, given.get, existed_before=lambda: False
    )
    assert sets == ["automatically-retry-hooks=true"]
    assert versions.model_config_from == "juju-defaults-except-user"


async def test_a_model_made_without_a_config_file_gets_all_of_juju_s_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ops_test.model_config holds every key of the model; none of them is the user's.
    monkeypatch.setattr(lab_module, "live_prerequisites_missing", lambda **_: None)
    ops_test = ops_test_on_new_model(None, None)
    runner = model_config_answer("controller", "controller")
    given = {"ops_test": ops_test, "juju": None, "pytestconfig": pytestconfig_with(model=None)}
    versions, sets = await open_ops_test_lab(
        monkeypatch, runner, given.get, existed_before=lambda: False
    )
    assert sets == ["automatically-retry-hooks=true", "update-status-hook-interval=5m"]
    assert versions.model_config_from == "juju-defaults"


@pytest.mark.parametrize(
    ("before", "existed"),
    [
        # `--model repro-mine` that the controller did not have: pytest-operator adds it.
        (("controller", "other"), False),
        # It was there: pytest-operator connects to it (and, from 0.43, records its cloud
        # as it does for a model it adds, so its state cannot tell them apart afterwards).
        (("controller", "repro-mine"), True),
        # Whether it was there is unknown (`juju models` failed or hung): not ours to change.
        (None, True),
    ],
)
def test_a_named_model_existed_when_its_controller_listed_it_or_cannot_say(
    before: tuple[str, ...] | None, existed: bool
) -> None:
    asked: list[str | None] = []

    def models_before(controller: str | None) -> tuple[str, ...] | None:
        asked.append(controller)
        return before

    config = pytestconfig_with(model="repro-mine", controller="mk8s")
    assert pytest_operator_model_existed(config, models_before) is existed
    assert asked == ["mk8s"]


def test_without_model_pytest_operator_adds_one_and_nothing_is_asked() -> None:
    def models_before(controller: str | None) -> tuple[str, ...] | None:
        raise AssertionError("no --model: nothing to look up")

    assert pytest_operator_model_existed(pytestconfig_with(model=None), models_before) is False


@pytest.mark.parametrize(
    ("existed", "origin"), [(False, "juju-defaults"), (True, "existing-model")]
)
async def test_only_a_model_that_did_not_exist_gets_juju_s_defaults(
    monkeypatch: pytest.MonkeyPatch, existed: bool, origin: str
) -> None:
    monkeypatch.setattr(lab_module, "live_prerequisites_missing", lambda **_: None)
    ops_test = ops_test_on_new_model("repro-mine", None)
    runner = model_config_answer("controller", "controller")
    given = {"ops_test": ops_test, "juju": None}
    versions, sets = await open_ops_test_lab(
        monkeypatch, runner, given.get, existed_before=lambda: existed
    )
    assert versions.model_config_from == origin
    if origin == "juju-defaults":
        assert sets == ["automatically-retry-hooks=true", "update-status-hook-interval=5m"]
    else:
        assert sets == [], "a model someone else made keeps its own settings"


@pytest.mark.parametrize("controllers_yaml", ["current-controller: mk8s-a\n", None])
def test_without_controller_the_models_are_asked_of_pytest_operators_controller(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, controllers_yaml: str | None
) -> None:
    # pytest-operator connects to controllers.yaml's current-controller (libjuju's
    # FileJujuData); the `juju` CLI would prefer JUJU_MODEL's or JUJU_CONTROLLER's, where
    # the user's model may be absent, and the harness would then change its settings.
    monkeypatch.setenv("JUJU_DATA", str(tmp_path))
    monkeypatch.setenv("JUJU_CONTROLLER", "mk8s-b")
    if controllers_yaml is not None:
        (tmp_path / "controllers.yaml").write_text(controllers_yaml)
    asked: list[str | None] = []

    def models_before(controller: str | None) -> tuple[str, ...] | None:
        asked.append(controller)
        return () if controller == "mk8s-b" else ("users-model",)

    config = pytestconfig_with(model="users-model")
    assert pytest_operator_model_existed(config, models_before) is True
    assert asked == (["mk8s-a"] if controllers_yaml else [])


# An agent version may carry a fourth, build number (juju issue 22024 shows a 4.0 model at
# "4.0.4.1"); snap tracks are <major>.<minor> (`snap info juju` in canonical/operator PR
# 2186: "4.0/stable: 4.0.0").
@pytest.mark.parametrize(
    ("agent", "channel"),
    [
        ("3.6.1", "3.6/stable"),
        ("4.0.4.1", "4.0/stable"),
        ("2.9.49", "2.9/stable"),
        # Tracks 3.0 to 3.5 are closed (canonical/concierge PR 122); a 3.6 client drives any
        # 3.x controller ("same major series ... are compatible": Juju docs, "Juju component
        # cross-version compatibility").
        ("3.4.2", "3.6/stable"),
        ("3.1.8", "3.6/stable"),
    ],
)
def test_the_fix_for_a_mismatched_client_names_the_controllers_snap_track(
    agent: str, channel: str
) -> None:
    with pytest.raises(EnvironmentUnavailable) as raised:
        check_versions(7, agent)
    assert f"--channel={channel}" in str(raised.value)
    assert "\n" not in str(raised.value)
