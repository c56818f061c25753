"""The live JujuPort and the juju CLI runner, against autospecs of the real classes.

libjuju's ``Model`` and ``Application`` and pytest-operator's ``OpsTest`` are autospecced,
so a wrong method name or argument fails here; the CLI is driven through a fake runner
that asserts the exact argv for Juju 2.9 and 3.x and answers with recorded real output.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
from collections.abc import Sequence
from typing import Any
from unittest.mock import create_autospec

import pytest
from juju.application import Application
from juju.client import client as juju_client
from juju.model import Model
from live_fakes import FakeClock
from samples import load_sample

from harness.common.errors import EnvironmentUnavailable, UnknownName, WaitTimeout
from harness.common.logging_config import effective_level, keeps_ops_lines
from harness.lab.ports import AppSpec
from harness.live import juju_port
from harness.live.juju_cli import (
    DEBUG_LOG_FILTER,
    JujuCLI,
    JujuCLIError,
    SubprocessJuju,
    action_param,
)
from harness.live.juju_port import LiveJujuPort
from harness.live.model_config import (
    bounded_logging,
    chatty_modules,
    keeps_hook_lines,
    with_hook_lines,
)
from harness.live.process import Completed

LIBJUJU_MAJOR = int(importlib.metadata.version("juju").split(".")[0])
STATUS_29 = load_sample("status_json_2.9.32_k8s_prometheus_traefik.json")
STATUS_3 = load_sample("status_json_3.1.2_k8s_cos_lite.json")


class FakeRunner:
    """Answers ``juju <args>`` by the first matching argv prefix; records every argv."""

    def __init__(self, version: str = "3.6.1-genericlinux-amd64") -> None:
        self.calls: list[tuple[str, ...]] = []
        self.answers: list[tuple[tuple[str, ...], list[tuple[int, str, str]]]] = []
        self.answer(("version",), 0, version + "\n")

    def answer(self, prefix: tuple[str, ...], rc: int, out: str = "", err: str = "") -> None:
        for known, queue in self.answers:
            if known == prefix:
                queue.append((rc, out, err))
                return
        self.answers.append((prefix, [(rc, out, err)]))

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        self.calls.append(tuple(args))
        for prefix, queue in self.answers:
            if tuple(args[: len(prefix)]) == prefix:
                return queue.pop(0) if len(queue) > 1 else queue[0]
        return 0, "", ""

    def without_version(self) -> list[tuple[str, ...]]:
        return [c for c in self.calls if c != ("version",)]


def model_mock() -> Any:
    model = create_autospec(Model, instance=True)
    model.applications = {}
    return model


def port(runner: FakeRunner, model: Any = None, clock: FakeClock | None = None) -> LiveJujuPort:
    return LiveJujuPort(
        model if model is not None else model_mock(),
        JujuCLI(runner),
        model_name="test-model",
        clock=clock or FakeClock(),
        connect_name="ctl:admin/test-model",
    )


# --- the CLI runner: argv per Juju version ---------------------------------------------


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (
            "2.9.43-ubuntu-amd64",
            ("run-action", "probe/0", "journal", "since=0", "--wait=5m", "--format", "json"),
        ),
        (
            "3.6.1-genericlinux-amd64",
            ("run", "probe/0", "journal", "since=0", "--wait=5m", "--format", "json"),
        ),
    ],
)
async def test_run_action_argv_follows_the_detected_client_version(
    version: str, expected: tuple[str, ...]
) -> None:
    runner = FakeRunner(version)
    runner.answer(expected[:1], 0, '{"probe/0": {"status": "completed", "results": {}}}')
    await JujuCLI(runner).run_action("probe/0", "journal", {"since": 0})
    assert runner.without_version() == [expected]


@pytest.mark.parametrize(
    ("version", "verb", "confirm"),
    [
        ("2.9.49-ubuntu-amd64", "add-relation", "-y"),
        ("3.4.0-genericlinux-amd64", "integrate", "--no-prompt"),
    ],
)
async def test_relation_and_destroy_verbs_follow_the_client_version(
    version: str, verb: str, confirm: str
) -> None:
    runner = FakeRunner(version)
    cli = JujuCLI(runner)
    await cli.integrate("probe:database", "mysql-router-k8s:database")
    await cli.destroy_model("m1", timeout=60)
    assert runner.without_version() == [
        (verb, "probe:database", "mysql-router-k8s:database"),
        ("destroy-model", "m1", confirm, "--destroy-storage", "--force", "--no-wait"),
    ]


async def test_other_verbs_build_the_documented_argv() -> None:
    runner = FakeRunner()
    cli = JujuCLI(runner)
    await cli.trust("mysql-k8s")
    await cli.refresh("probe", path="/c/probe.charm", resources={"workload-image": "nginx:1"})
    await cli.refresh("mysql-k8s", channel="8.0/edge")
    await cli.scale_application("probe", 0)
    await cli.debug_log()
    await cli.add_model("m2")
    await cli.show_unit("probe/0")
    assert runner.without_version() == [
        ("trust", "mysql-k8s", "--scope=cluster"),
        ("refresh", "probe", "--path", "/c/probe.charm", "--resource", "workload-image=nginx:1"),
        ("refresh", "mysql-k8s", "--channel", "8.0/edge"),
        ("scale-application", "probe", "0"),
        ("debug-log", "--replay", "--no-tail", *DEBUG_LOG_FILTER),
        ("add-model", "m2", "--no-switch"),
        ("show-unit", "probe/0", "--format", "json"),
    ]
    assert cli.commands[0] == "juju trust mysql-k8s --scope=cluster"


def test_action_params_survive_yaml_parsing_as_the_types_given() -> None:
    import yaml

    cases = {"plain": "workload", "yes": "true", "number": "7", "empty": "", "colon": "a: b"}
    for key, value in cases.items():
        sent = action_param(key, value)
        assert sent.startswith(f"{key}=")
        assert yaml.safe_load(sent.split("=", 1)[1]) == value or (
            value == "" and sent == 'empty=""'
        )
    assert action_param("plain", "workload") == "plain=workload"
    assert action_param("yes", "true") == 'yes="true"'
    assert action_param("since", 3) == "since=3"
    assert action_param("paths", ["/a", "/b"]) == 'paths=["/a", "/b"]'


async def test_a_failed_command_carries_command_stdout_and_stderr_in_one_line() -> None:
    runner = FakeRunner()
    runner.answer(("trust",), 1, "partial\n", 'ERROR application "nope" not found\n')
    with pytest.raises(JujuCLIError) as raised:
        await JujuCLI(runner).trust("nope")
    error = raised.value
    assert error.command == "juju trust nope --scope=cluster"
    assert error.stdout == "partial\n"
    assert "not found" in error.stderr
    assert "\n" not in str(error)
    assert 'ERROR application "nope" not found' in str(error)


async def test_a_failed_3x_task_still_returns_its_json() -> None:
    runner = FakeRunner()
    failed = json.dumps({"probe/0": {"id": "2", "status": "failed", "message": "boom"}})
    runner.answer(("run",), 1, failed, "ERROR task failed\n")
    out, err = await JujuCLI(runner).run_action("probe/0", "journal")
    assert json.loads(out)["probe/0"]["status"] == "failed"
    assert "task failed" in err


async def test_missing_juju_binary_is_an_environment_error() -> None:
    runner = FakeRunner()
    runner.answer(("status",), 127, "", "juju: command not found")
    with pytest.raises(EnvironmentUnavailable, match="not on PATH"):
        await JujuCLI(runner).status()


async def test_subprocess_runner_binds_the_model_with_juju_model() -> None:
    seen: list[tuple[tuple[str, ...], dict[str, str] | None, float | None]] = []

    async def run(
        argv: Sequence[str], *, env: Any = None, timeout: float | None = None
    ) -> Completed:
        seen.append((tuple(argv), dict(env) if env else None, timeout))
        return Completed(tuple(argv), 0, "ok", "")

    rc, out, _ = await SubprocessJuju("ctl:admin/m1", run=run)(["status"], 30)
    assert (rc, out) == (0, "ok")
    assert seen == [(("juju", "status"), {"JUJU_MODEL": "ctl:admin/m1"}, 30)]


async def test_a_task_juju_could_not_schedule_says_why() -> None:
    """``juju run`` exits 0 with nothing on stdout when no task was made; stderr says why."""
    runner = FakeRunner()
    runner.answer(("run",), 0, "", 'ERROR unit "probe/0" is not alive\n')
    with pytest.raises(JujuCLIError) as raised:
        await JujuCLI(runner).run_action("probe/0", "journal")
    assert 'unit "probe/0" is not alive' in str(raised.value)
    assert raised.value.command.startswith("juju run probe/0 journal")


# --- the port: libjuju calls ------------------------------------------------------------


# Every spec field reaching Model.deploy: tests/unit/test_juju_port_contract.py (both drivers).


async def test_deploy_of_a_bundle_app_passes_revision_constraints_storage() -> None:
    # postgresql-k8s as canonical/postgresql-k8s-bundle releases/latest/k8s deploys it.
    model = model_mock()
    model.get_config.return_value = {
        "logging-config": juju_client.ConfigValue(value="<root>=INFO")
    }
    spec = AppSpec(
        "postgresql-k8s",
        "postgresql-k8s",
        channel="edge",
        trust=True,
        resources={"postgresql-image": "18"},
        revision=19,
        constraints="arch=amd64",
        storage={"pgdata": "kubernetes,1,1024"},
    )
    await port(FakeRunner(), model).deploy(spec)
    _, kwargs = model.deploy.await_args
    # libjuju sets a charmhub resource override as its revision: an int, not text.
    assert kwargs["resources"] == {"postgresql-image": 18}
    assert kwargs["revision"] == 19
    assert kwargs["constraints"] == "arch=amd64"
    assert kwargs["storage"] == {"pgdata": "kubernetes,1,1024"}


async def test_deploy_of_a_local_charm_uses_an_absolute_path_and_no_channel() -> None:
    model = model_mock()
    model.get_config.return_value = {
        "logging-config": juju_client.ConfigValue(value="<root>=INFO")
    }
    spec = AppSpec("probe", "./probe_ubuntu@22.04-amd64.charm", channel="latest/edge")
    await port(FakeRunner(), model).deploy(spec)
    (charm,), kwargs = model.deploy.await_args
    assert charm.startswith("/")
    assert charm.endswith("/probe_ubuntu@22.04-amd64.charm")
    assert "channel" not in kwargs


async def test_integrate_uses_integrate_on_libjuju_3_and_add_relation_on_29() -> None:
    if LIBJUJU_MAJOR >= 3:
        model = model_mock()
        await port(FakeRunner(), model).integrate("probe:database", "mysql-router-k8s:database")
        model.integrate.assert_awaited_once_with("probe:database", "mysql-router-k8s:database")
        model.add_relation.assert_not_awaited()

    old = model_mock()
    if hasattr(old, "integrate"):
        del old.integrate  # as libjuju 2.9's Model, which has none
    await port(FakeRunner("2.9.49-ubuntu-amd64"), old).integrate("a:x", "b:y")
    old.add_relation.assert_awaited_once_with("a:x", "b:y")


async def test_set_config_goes_through_application_set_config() -> None:
    model = model_mock()
    app = create_autospec(Application, instance=True)
    model.applications = {"probe": app}
    await port(FakeRunner(), model).set_config("probe", {"pod-template-annotation": "t1"})
    app.set_config.assert_awaited_once_with({"pod-template-annotation": "t1"})
    with pytest.raises(UnknownName, match=r"application nope does not exist.*applications: probe"):
        await port(FakeRunner(), model).set_config("nope", {"a": "b"})


async def test_trust_refresh_and_scale_use_the_cli() -> None:
    runner = FakeRunner()
    juju = port(runner)
    await juju.trust("mysql-k8s")
    await juju.refresh("probe", resources={"workload-image": "ubuntu/nginx:1.18-22.04_beta"})
    await juju.scale("probe", 2)
    assert runner.without_version() == [
        ("trust", "mysql-k8s", "--scope=cluster"),
        ("refresh", "probe", "--resource", "workload-image=ubuntu/nginx:1.18-22.04_beta"),
        ("scale-application", "probe", "2"),
    ]


# --- the port: reading ------------------------------------------------------------------


async def test_units_and_statuses_come_from_juju_status() -> None:
    runner = FakeRunner("2.9.32-ubuntu-amd64")
    runner.answer(("status",), 0, STATUS_29)
    juju = port(runner)
    assert await juju.units("prometheus-k8s") == ("prometheus-k8s/0", "prometheus-k8s/1")
    statuses = await juju.statuses(("traefik-k8s",))
    assert [(s.unit, s.agent, s.leader) for s in statuses] == [("traefik-k8s/0", "idle", True)]
    assert ("status", "--format", "json") in runner.calls


async def test_an_unknown_unit_is_named_with_the_units_that_exist() -> None:
    runner = FakeRunner("2.9.32-ubuntu-amd64")
    runner.answer(("status",), 0, STATUS_29)
    runner.answer(("run-action",), 1, "", 'ERROR unit "prometheus-k8s/7" not found\n')
    runner.answer(("show-unit",), 1, "", 'ERROR unit "prometheus-k8s/7" not found\n')
    juju = port(runner)
    expected = (
        "unit prometheus-k8s/7 does not exist in model test-model "
        "(units: prometheus-k8s/0, prometheus-k8s/1)"
    )
    with pytest.raises(UnknownName) as raised:
        await juju.run_action("prometheus-k8s/7", "journal")
    assert str(raised.value) == expected
    with pytest.raises(UnknownName) as raised:
        await juju.unit_relations("prometheus-k8s/7")
    assert str(raised.value) == expected


async def test_a_cli_failure_on_an_existing_unit_is_not_disguised() -> None:
    runner = FakeRunner("2.9.32-ubuntu-amd64")
    runner.answer(("status",), 0, STATUS_29)
    runner.answer(("run-action",), 1, "", "ERROR connection is shut down\n")
    with pytest.raises(JujuCLIError, match="connection is shut down"):
        await port(runner).run_action("prometheus-k8s/0", "journal")


async def test_run_action_parses_recorded_3x_output() -> None:
    runner = FakeRunner()
    runner.answer(
        ("run",), 0, load_sample("run_action_yaml_3.x_k8s_traefik_show_proxied_endpoints.txt")
    )
    result = await port(runner).run_action("traefik-k8s/0", "show-proxied-endpoints")
    assert result.unit == "traefik-k8s/0"
    assert result.action == "show-proxied-endpoints"
    assert result.status == "completed"
    assert json.loads(result.results["proxied-endpoints"])["traefik-k8s"] == {
        "url": "http://10.12.97.102"
    }


async def test_run_action_parses_recorded_29_output() -> None:
    runner = FakeRunner("2.9.38-ubuntu-amd64")
    runner.answer(
        ("run-action",), 0, load_sample("run_action_wait_yaml_2.9_mysql_k8s_get_set_password.txt")
    )
    result = await port(runner).run_action("mysql-k8s/0", "get-password")
    assert runner.without_version()[0][0] == "run-action"
    assert result.status == "completed"
    assert result.unit == "mysql-k8s/0"


async def test_unit_relations_parse_show_unit_json() -> None:
    runner = FakeRunner()
    runner.answer(("show-unit",), 0, load_sample("showunit_json_3.1.2_k8s_alertmanager0.json"))
    bags = await port(runner).unit_relations("alertmanager/0")
    assert ("show-unit", "alertmanager/0", "--format", "json") in runner.calls
    ingress = [b for b in bags if b.relation_id == 23 and b.scope == "app"]
    assert ingress
    assert ingress[0].data == {"ingress": "url: http://foo.com:80/clite-alertmanager\n"}
    assert {b.source for b in bags} == {"show-unit"}
    assert {b.seen_by for b in bags} == {"alertmanager/0"}


async def test_versions_name_client_controller_agent_and_charms() -> None:
    runner = FakeRunner("3.1.2-genericlinux-amd64")
    runner.answer(("status",), 0, STATUS_3)
    runner.answer(
        ("show-controller",),
        0,
        json.dumps({"mk8scloud": {"details": {"agent-version": "3.1.2", "cloud": "microk8s"}}}),
    )
    versions = await port(runner).versions()
    assert versions.juju_client == "3.1.2-genericlinux-amd64"
    assert versions.juju_controller == "3.1.2"
    assert versions.juju_agent == "3.1.2"
    alertmanager = next(c for c in versions.charms if c.app == "alertmanager")
    assert (alertmanager.charm, alertmanager.channel, alertmanager.revision) == (
        "alertmanager-k8s",
        "edge",
        69,
    )


async def test_debug_log_replays_the_whole_log() -> None:
    runner = FakeRunner()
    runner.answer(
        ("debug-log",),
        0,
        'unit-probe-0: 10:00:00 INFO juju.worker.uniter.operation ran "start" hook\n',
    )
    text = await port(runner).debug_log()
    assert 'ran "start" hook' in text


# --- reconnecting after a node restart ------------------------------------------------


async def test_reconnect_waits_for_the_api_then_reconnects_the_same_model() -> None:
    runner = FakeRunner()
    runner.answer(("status",), 1, "", "ERROR cannot connect to API: connection refused")
    runner.answer(("status",), 1, "", "ERROR cannot connect to API: connection refused")
    runner.answer(("status",), 0, "{}")
    model = model_mock()
    model.connect.side_effect = [OSError("refused"), None]
    clock = FakeClock()
    await port(runner, model, clock).reconnect()
    assert runner.calls.count(("status", "--format", "json")) == 3
    assert model.disconnect.await_count == 2
    model.connect.assert_awaited_with("ctl:admin/test-model")
    assert clock.elapsed > 0  # it waited on the fake clock, not on the wall


async def test_reconnect_gives_up_on_a_login_that_never_answers_and_connects_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Model.connect awaits libjuju's login RPC, whose reply is awaited with no timeout
    # (Connection.rpc -> _recv, juju/client/connection.py 3.6.1.3): a controller still
    # starting can take the websocket and never answer it.
    monkeypatch.setattr(juju_port, "CONNECT_TIMEOUT", 0.05, raising=False)
    runner = FakeRunner()
    runner.answer(("status",), 0, "{}")
    model = model_mock()
    attempts: list[str] = []

    async def connect(name: str) -> None:
        attempts.append(name)
        if len(attempts) == 1:
            await asyncio.Event().wait()  # the login RPC's reply never comes

    model.connect.side_effect = connect
    clock = FakeClock()
    # The old code awaited the first connect for ever: bounded so it fails, not hangs.
    await asyncio.wait_for(port(runner, model, clock).reconnect(), 5)
    assert attempts == ["ctl:admin/test-model", "ctl:admin/test-model"]
    assert model.disconnect.await_count == 2


async def test_reconnect_gives_up_with_the_last_error_seen() -> None:
    runner = FakeRunner()
    runner.answer(("status",), 1, "", "ERROR cannot connect to API: connection refused")
    juju = LiveJujuPort(
        model_mock(), JujuCLI(runner), model_name="m", clock=FakeClock(), reconnect_timeout=60
    )
    with pytest.raises(WaitTimeout) as raised:
        await juju.reconnect()
    assert "controller API" in raised.value.condition
    assert "connection refused" in raised.value.last_seen


# --- logging-config ---------------------------------------------------------------------


def test_effective_level_uses_the_longest_configured_prefix() -> None:
    config = "<root>=WARNING;juju.worker=ERROR;juju.worker.uniter.operation=INFO"
    assert effective_level(config, "juju.worker.uniter.operation") == "INFO"
    assert effective_level(config, "juju.worker.uniter") == "ERROR"
    assert effective_level(config, "juju.workers") == "WARNING"
    assert effective_level("", "juju.worker.uniter") == "WARNING"


@pytest.mark.parametrize(
    ("config", "keeps"),
    [
        ("<root>=INFO", True),
        ("<root>=DEBUG;unit=DEBUG", True),
        ("<root>=WARNING;unit=DEBUG", False),
        ("<root>=INFO;juju.worker.uniter.operation=ERROR", False),
        ("<root>=ERROR;juju.worker.uniter=INFO", True),
    ],
)
def test_keeps_hook_lines(config: str, keeps: bool) -> None:
    assert keeps_hook_lines(config) is keeps
    fixed = with_hook_lines(config)
    assert (fixed is None) is keeps
    if fixed is not None:
        assert keeps_hook_lines(fixed)


@pytest.mark.parametrize(
    ("config", "bounded"),
    [
        # a CI bootstrap's model-defaults: ops' DEBUG lines stay, no worker's DEBUG does
        ("<root>=DEBUG", "<root>=INFO;unit=DEBUG"),
        ("<root>=TRACE;unit=DEBUG", "<root>=INFO;unit=DEBUG"),
        ("<root>=INFO;juju.worker.dependency=DEBUG", "<root>=INFO;juju.worker.dependency=INFO"),
        ("<root>=INFO;unit.probe/0=TRACE", None),  # the charms' own lines are not chatter
        ("<root>=INFO", None),  # Juju's default
        ("<root>=WARNING", "<root>=WARNING;juju.worker.uniter=INFO"),  # hook lines kept
        (
            "<root>=DEBUG;juju.worker.uniter=ERROR",
            "<root>=INFO;juju.worker.uniter=INFO;unit=DEBUG",
        ),
    ],
)
def test_a_model_the_harness_creates_gets_hook_lines_and_no_chatter(
    config: str, bounded: str | None
) -> None:
    assert bounded_logging(config) == bounded
    result = bounded or config
    assert keeps_hook_lines(result)
    assert not chatty_modules(result)
    assert keeps_ops_lines(result) == keeps_ops_lines(config)


def logging_model(*values: str) -> Any:
    model = model_mock()
    model.get_config.side_effect = [
        {"logging-config": juju_client.ConfigValue(source="model", value=v)} for v in values
    ]
    return model


async def test_logging_config_is_raised_only_when_it_would_drop_hook_lines_and_restored() -> None:
    original = "<root>=WARNING;unit=DEBUG"
    ours = "<root>=WARNING;unit=DEBUG;juju.worker.uniter=INFO"
    model = logging_model(original, ours)
    juju = port(FakeRunner(), model)
    juju.adopt(created=True, juju_defaults=True)  # only a model it created is changed
    assert await juju.keep_hook_logging() == ours
    model.set_config.assert_awaited_once_with({"logging-config": ours})
    await juju.restore_logging()
    model.set_config.assert_awaited_with({"logging-config": original})
    assert model.set_config.await_count == 2


async def test_a_config_that_keeps_hook_lines_is_never_touched() -> None:
    model = logging_model("<root>=INFO;unit=DEBUG")
    juju = port(FakeRunner(), model)
    assert await juju.keep_hook_logging() is None
    await juju.restore_logging()
    model.set_config.assert_not_awaited()


async def test_a_config_changed_by_someone_else_is_not_restored() -> None:
    model = logging_model("<root>=WARNING", "<root>=DEBUG")
    juju = port(FakeRunner(), model)
    juju.adopt(created=True, juju_defaults=True)
    await juju.keep_hook_logging()
    await juju.restore_logging()
    assert model.set_config.await_count == 1  # only our own change


# --- the model's own settings are evidence ----------------------------------------------

# `juju model-config --format json` on a model a CI bootstrap made (actions-operator sets
# these as model-defaults, hence source "controller").
MODEL_CONFIG_CI = json.dumps(
    {
        "automatically-retry-hooks": {"Value": False, "Source": "controller"},
        "update-status-hook-interval": {"Value": "5m", "Source": "default"},
        "logging-config": {"Value": "<root>=DEBUG", "Source": "controller"},
        "test-mode": {"Value": True, "Source": "controller"},
    }
)


async def test_versions_record_the_model_settings_that_shape_hooks() -> None:
    runner = FakeRunner()
    runner.answer(("model-config",), 0, MODEL_CONFIG_CI)
    versions = await port(runner).versions()
    assert versions.model_config == (
        ("automatically-retry-hooks", "false (controller)"),
        ("update-status-hook-interval", "5m (default)"),
        ("logging-config", "<root>=DEBUG (controller)"),
    )
    assert ("model-config", "--format", "json") in runner.calls


async def test_the_harness_s_own_model_gets_juju_s_default_hook_settings() -> None:
    runner = FakeRunner()
    runner.answer(("model-config", "--format"), 0, MODEL_CONFIG_CI)
    changes = await port(runner).use_juju_defaults()
    assert changes == {"automatically-retry-hooks": "true"}
    assert ("model-config", "automatically-retry-hooks=true") in runner.calls
