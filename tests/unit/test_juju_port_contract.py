"""One contract for both live Juju drivers: python-libjuju (2.9, 3.x) and jubilant (3.x, 4.x).

Every test runs on each (driver, Juju) pair a real controller could give it: libjuju on
3.6, jubilant on 3.6 and on 4.0. libjuju's ``Model`` and jubilant's ``Juju`` are autospecced,
so a wrong method name or argument fails here; every ``juju`` command either driver runs
goes through one recorded CLI that checks the argv and answers with real output
(tests/data/samples, each with its source). No 4.0 JSON of status, show-unit or actions has
been published that we could find: the 4.0 rows answer with the 3.x samples, whose shapes
the 4.0 CLI still prints (cmd/juju/status/formatted.go, cmd/juju/application/showunit.go
and cmd/juju/action/common.go on juju's main branch), and the 4.0 differences that are
documented (show-unit's application-data side) are asserted on top.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest.mock import create_autospec

import jubilant
import pytest
from juju.client import client as juju_client
from juju.model import Model
from live_fakes import FakeClock
from samples import load_sample

from harness.common.errors import HarnessError, UnknownName, WaitTimeout
from harness.lab.ports import AppSpec
from harness.live.drivers import choose_driver
from harness.live.jubilant_port import JubilantJujuPort
from harness.live.juju_cli import DEBUG_LOG_FILTER, JujuCLI, SubprocessJuju
from harness.live.juju_port import LiveJujuPort
from harness.live.model_config import HOOK_LOG_MODULES
from harness.live.process import Completed

STATUS_3 = load_sample("status_json_3.1.2_k8s_cos_lite.json")
SHOW_UNIT_3 = load_sample("showunit_json_3.1.2_k8s_alertmanager0.json")
ACTION_3 = load_sample("run_action_yaml_3.x_k8s_traefik_show_proxied_endpoints.txt")
DEBUG_LOG_40 = load_sample("debuglog_4.0.1_mysql_test_app_install_queued_excerpt.txt")

VERSION_OUT = {"3.6": "3.6.1-genericlinux-amd64", "4.0": "4.0.1-ubuntu-amd64"}
AGENT = {"3.6": "3.6.1", "4.0": "4.0.1"}


class RecordedCLI:
    """``juju <args>`` answered by the first matching argv prefix; every call recorded.

    Both drivers run the ``juju`` CLI through a ``JujuRunner``: this is one.
    """

    def __init__(self, juju: str) -> None:
        self.calls: list[tuple[str, ...]] = []
        self._answers: list[tuple[tuple[str, ...], list[tuple[int, str, str]]]] = []
        self.effects: dict[tuple[str, ...], Callable[[], None]] = {}
        self.answer(("version",), 0, VERSION_OUT[juju] + "\n")
        details = {"agent-version": AGENT[juju], "cloud": "microk8s"}
        self.answer(("show-controller",), 0, json.dumps({"mk8s": {"details": details}}))
        self.answer(("status",), 0, STATUS_3)

    def answer(self, prefix: tuple[str, ...], rc: int, out: str = "", err: str = "") -> None:
        for known, queue in self._answers:
            if known == prefix:
                queue.append((rc, out, err))
                return
        self._answers.insert(0, (prefix, [(rc, out, err)]))

    def script(self, prefix: tuple[str, ...], *answers: tuple[int, str, str]) -> None:
        """From now on answer ``prefix`` with ``answers`` in turn (the last one repeats)."""
        self._answers = [a for a in self._answers if a[0] != prefix]
        self._answers.insert(0, (prefix, list(answers)))

    def lookup(self, args: Sequence[str]) -> tuple[int, str, str]:
        self.calls.append(tuple(args))
        effect = self.effects.get(tuple(args))
        if effect is not None:
            effect()
        for prefix, queue in self._answers:
            if tuple(args[: len(prefix)]) == prefix:
                return queue.pop(0) if len(queue) > 1 else queue[0]
        return 0, "", ""

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        return self.lookup(args)

    def verbs(self) -> list[tuple[str, ...]]:
        return [c for c in self.calls if c[0] not in ("version", "show-controller")]


@dataclass
class Driven:
    """One driver's port over the recorded CLI, and what its library was asked to do."""

    driver: str
    juju: str
    port: LiveJujuPort
    cli: RecordedCLI
    library: Any  # the autospecced libjuju Model or jubilant Juju
    clock: FakeClock
    model_config: dict[str, str] = field(default_factory=dict)

    def deployed(self) -> Mapping[str, Any]:
        """The last deploy, as (charm, app, channel, units, trust, base, config, resources)."""
        if self.driver == "libjuju":
            (charm,), kw = self.library.deploy.await_args
            return {
                "charm": charm,
                "app": kw["application_name"],
                "channel": kw.get("channel"),
                "units": kw["num_units"],
                "trust": kw["trust"],
                "base": kw.get("base"),
                "config": kw.get("config") or {},
                "resources": kw.get("resources") or {},
            }
        (charm, app), kw = self.library.deploy.call_args
        return {
            "charm": charm,
            "app": app,
            "channel": kw["channel"],
            "units": kw["num_units"],
            "trust": kw["trust"],
            "base": kw["base"],
            "config": kw["config"] or {},
            "resources": kw["resources"] or {},
        }

    def refreshed(self) -> tuple[str, str | None, Mapping[str, str]]:
        """The last refresh as (app, --path, resources): the CLI's on libjuju; jubilant's
        ``Juju.refresh`` on jubilant, which copies a local charm where a snap juju reads it."""
        if self.driver == "libjuju":
            (argv,) = [v for v in self.cli.verbs() if v[0] == "refresh"]
            path = argv[argv.index("--path") + 1] if "--path" in argv else None
            pairs = [argv[i + 1] for i, a in enumerate(argv) if a == "--resource"]
            return argv[1], path, dict(p.split("=", 1) for p in pairs)
        (app,), kw = self.library.refresh.call_args
        return app, kw["path"], kw["resources"] or {}

    def integrated(self) -> tuple[str, str]:
        method = self.library.integrate
        args = method.await_args if self.driver == "libjuju" else method.call_args
        return tuple(args.args)  # type: ignore[return-value]


def _libjuju(juju: str) -> Driven:
    cli = RecordedCLI(juju)
    model = create_autospec(Model, instance=True)
    model.applications = {}
    driven = Driven("libjuju", juju, None, cli, model, FakeClock())  # type: ignore[arg-type]

    async def get_config() -> dict[str, Any]:
        value = driven.model_config.get("logging-config", "")
        return {"logging-config": juju_client.ConfigValue(source="model", value=value)}

    async def set_config(values: Mapping[str, str]) -> None:
        driven.model_config.update(values)

    model.get_config.side_effect = get_config
    model.set_config.side_effect = set_config
    cli.effects[("model-config", "--reset", "logging-config")] = lambda: driven.model_config.pop(
        "logging-config", None
    )
    driven.port = LiveJujuPort(
        model,
        JujuCLI(cli),
        model_name="test-model",
        clock=driven.clock,
        connect_name="mk8s:admin/test-model",
        reconnect_timeout=120,
    )
    return driven


def autospec_juju(cli: RecordedCLI, config: dict[str, str], model: str) -> Any:
    """jubilant's ``Juju`` autospecced: its CLI answered by ``cli``, model config in ``config``."""
    library = create_autospec(jubilant.Juju, instance=True)
    library.model = model
    library.cli_binary = "/snap/bin/juju"
    library.cli.side_effect = AssertionError("the CLI runs through run_process, not Juju.cli")

    def model_config(
        values: Mapping[str, str] | None = None, reset: str | Sequence[str] = ()
    ) -> Mapping[str, str] | None:
        if values is None and not reset:
            return dict(config)
        config.update(values or {})
        for key in [reset] if isinstance(reset, str) else reset:
            config.pop(key, None)
        return None

    library.model_config.side_effect = model_config
    return library


def _jubilant(juju: str) -> Driven:
    cli = RecordedCLI(juju)
    config: dict[str, str] = {}
    library = autospec_juju(cli, config, "mk8s:admin/test-model")
    driven = Driven("jubilant", juju, None, cli, library, FakeClock(), config)  # type: ignore[arg-type]
    driven.port = JubilantJujuPort(
        library, clock=driven.clock, cli=JujuCLI(cli), reconnect_timeout=120
    )
    return driven


PAIRS = [("libjuju", "3.6"), ("jubilant", "3.6"), ("jubilant", "4.0")]


@pytest.fixture(params=PAIRS, ids=[f"{d}-juju{j}" for d, j in PAIRS])
def driven(request: pytest.FixtureRequest) -> Driven:
    driver, juju = request.param
    assert choose_driver(driver, juju) == driver  # each pair is one a controller allows
    return _libjuju(juju) if driver == "libjuju" else _jubilant(juju)


# --- lifecycle ------------------------------------------------------------------------


async def test_deploy_passes_every_spec_field(driven: Driven) -> None:
    driven.model_config["logging-config"] = "<root>=INFO"
    spec = AppSpec(
        "mysql-k8s",
        "mysql-k8s",
        channel="8.0/edge",
        trust=True,
        units=3,
        config={"profile": "testing"},
        resources={"mysql-image": "ghcr.io/canonical/charmed-mysql:8.0"},
        base="ubuntu@22.04",
    )
    await driven.port.deploy(spec)
    assert driven.deployed() == {
        "charm": "mysql-k8s",
        "app": "mysql-k8s",
        "channel": "8.0/edge",
        "units": 3,
        "trust": True,
        "base": "ubuntu@22.04",
        "config": {"profile": "testing"},
        "resources": {"mysql-image": "ghcr.io/canonical/charmed-mysql:8.0"},
    }


async def test_a_local_charm_is_deployed_by_absolute_path_without_channel(driven: Driven) -> None:
    driven.model_config["logging-config"] = "<root>=INFO"
    await driven.port.deploy(AppSpec("probe", "probe_amd64.charm", channel="latest/edge"))
    deployed = driven.deployed()
    # Juju 4.0 deploys only a packed .charm, and jubilant reads a path only from "/" or ".".
    assert deployed["charm"].startswith("/")
    assert deployed["charm"].endswith("/probe_amd64.charm")
    assert deployed["channel"] is None


async def test_integrate_relates_the_two_endpoints(driven: Driven) -> None:
    await driven.port.integrate("probe:database", "mysql-router-k8s:database")
    assert driven.integrated() == ("probe:database", "mysql-router-k8s:database")


async def test_trust_and_scale_run_the_same_cli_verbs(driven: Driven) -> None:
    await driven.port.trust("mysql-k8s")
    await driven.port.scale("probe", 0)
    assert driven.cli.verbs() == [
        ("trust", "mysql-k8s", "--scope=cluster"),
        ("scale-application", "probe", "0"),
    ]


async def test_refresh_reaches_juju_with_the_charm_and_resources(driven: Driven) -> None:
    await driven.port.refresh("probe", path="/c/probe.charm", resources={"workload-image": "x:1"})
    assert driven.refreshed() == ("probe", "/c/probe.charm", {"workload-image": "x:1"})


# --- reading ------------------------------------------------------------------------------


async def test_statuses_come_from_status_json_with_no_selector(driven: Driven) -> None:
    statuses = await driven.port.statuses(("alertmanager",))
    assert [s.unit for s in statuses] == ["alertmanager/0"]
    assert await driven.port.units("alertmanager") == ("alertmanager/0",)
    # Juju 4.0 refuses `juju status <selector>` ("patterns are not implemented",
    # juju/juju issue 21271): the harness asks for the whole model and filters itself.
    assert set(c for c in driven.cli.calls if c[0] == "status") == {("status", "--format", "json")}


async def test_run_action_parses_recorded_output(driven: Driven) -> None:
    driven.cli.answer(("run",), 0, ACTION_3)
    result = await driven.port.run_action("traefik-k8s/0", "show-proxied-endpoints", {"x": 1})
    assert driven.cli.verbs()[-1] == (
        "run", "traefik-k8s/0", "show-proxied-endpoints", "x=1", "--wait=5m", "--format", "json"
    )  # fmt: skip
    assert result.status == "completed"
    assert json.loads(result.results["proxied-endpoints"])["traefik-k8s"] == {
        "url": "http://10.12.97.102"
    }


async def test_a_failed_action_is_a_result_not_an_error(driven: Driven) -> None:
    failed = json.dumps({"probe/0": {"id": "2", "status": "failed", "message": "boom"}})
    driven.cli.answer(("run",), 1, failed, "ERROR task failed\n")
    result = await driven.port.run_action("probe/0", "journal")
    assert (result.status, result.message) == ("failed", "boom")
    assert "task failed" in result.stderr


async def test_an_unknown_unit_is_named_with_the_units_that_exist(driven: Driven) -> None:
    driven.cli.answer(("run",), 1, "", 'ERROR unit "alertmanager/7" not found\n')
    with pytest.raises(UnknownName, match=r"alertmanager/7 does not exist.*alertmanager/0"):
        await driven.port.run_action("alertmanager/7", "journal")


async def test_show_unit_application_data_side_follows_the_juju_version(driven: Driven) -> None:
    driven.cli.answer(("show-unit",), 0, SHOW_UNIT_3)
    bags = await driven.port.unit_relations("alertmanager/0")
    assert ("show-unit", "alertmanager/0", "--format", "json") in driven.cli.calls
    ingress = next(b for b in bags if b.relation_id == 23 and b.scope == "app")
    assert ingress.data == {"ingress": "url: http://foo.com:80/clite-alertmanager\n"}
    # 3.6 prints the other side's application databag; 4.0 the unit's own application's
    # (juju/juju docs/howto/upgrade-your-juju-deployment-from-36-to-40.md, item 5).
    # (Here the other side is a cross-model offer, named remote-<hash> in this model.)
    remote = "remote-38811d7f76ad47ac84be46b165e53828"
    assert ingress.owner == ("alertmanager" if driven.juju == "4.0" else remote)


async def test_debug_log_replays_the_model_log_at_info_in_utc(driven: Driven) -> None:
    driven.cli.answer(("debug-log",), 0, DEBUG_LOG_40)
    assert "found queued" in await driven.port.debug_log()
    assert driven.cli.verbs() == [("debug-log", "--replay", "--no-tail", *DEBUG_LOG_FILTER)]


async def test_versions_record_which_driver_ran(driven: Driven) -> None:
    versions = await driven.port.versions()
    assert versions.juju_driver == driven.driver
    assert versions.juju_client == VERSION_OUT[driven.juju]
    assert versions.juju_controller == AGENT[driven.juju]


# --- the model's logging-config ----------------------------------------------------------


def config_writes(driven: Driven) -> int:
    """Every write of the model's config either driver made (reads not counted)."""
    resets = sum(1 for v in driven.cli.verbs() if v[0] == "model-config" and "--reset" in v)
    if driven.driver == "libjuju":
        return int(driven.library.set_config.await_count) + resets
    calls = driven.library.model_config.call_args_list
    return sum(1 for c in calls if c.args or c.kwargs) + resets


async def test_hook_logging_is_raised_then_restored(driven: Driven) -> None:
    driven.port.adopt(created=True, juju_defaults=True)
    driven.model_config["logging-config"] = "<root>=WARNING"
    wanted = await driven.port.keep_hook_logging()
    assert wanted is not None
    assert driven.model_config["logging-config"] == wanted
    await driven.port.restore_logging()
    assert driven.model_config.get("logging-config") == "<root>=WARNING"


async def test_an_unset_logging_config_is_reset_not_set_to_empty(driven: Driven) -> None:
    driven.port.adopt(created=True, juju_defaults=True)
    await driven.port.keep_hook_logging()
    await driven.port.restore_logging()
    assert not driven.model_config.get("logging-config")


@pytest.mark.parametrize("inherit", [False, True])
async def test_a_model_it_created_at_root_debug_keeps_no_chatter_then_gets_it_back(
    driven: Driven, inherit: bool
) -> None:
    """Issue 23, point 10: every DEBUG line the controller stores is walked by each settle
    look; on a model the harness created only the charms' own DEBUG lines are kept."""
    driven.port.adopt(created=True, juju_defaults=not inherit)
    driven.model_config["logging-config"] = "<root>=DEBUG"
    assert await driven.port.keep_hook_logging() == "<root>=INFO;unit=DEBUG"
    assert driven.model_config["logging-config"] == "<root>=INFO;unit=DEBUG"
    await driven.port.restore_logging()
    assert driven.model_config["logging-config"] == "<root>=DEBUG"


async def test_a_logging_config_the_user_asked_for_keeps_its_chatter(driven: Driven) -> None:
    """pytest-operator's --model-config set logging-config: only hook lines are ensured."""
    driven.port.adopt(created=True, juju_defaults=True, user_set=frozenset({"logging-config"}))
    driven.model_config["logging-config"] = "<root>=DEBUG"
    assert await driven.port.keep_hook_logging() is None
    assert driven.model_config["logging-config"] == "<root>=DEBUG"


async def test_a_model_it_did_not_create_is_never_changed(
    driven: Driven, caplog: pytest.LogCaptureFixture
) -> None:
    driven.port.adopt(created=False, juju_defaults=True)
    driven.model_config["logging-config"] = "<root>=DEBUG"
    with caplog.at_level("WARNING"):
        assert await driven.port.keep_hook_logging() is None
    await driven.port.restore_logging()
    assert driven.model_config["logging-config"] == "<root>=DEBUG"
    assert config_writes(driven) == 0
    assert "keeps <root> below INFO" in caplog.text  # what it costs, said once


async def test_a_model_it_did_not_create_that_drops_hook_lines_is_refused_untouched(
    driven: Driven,
) -> None:
    driven.model_config["logging-config"] = "<root>=WARNING"  # nothing adopted: not ours
    with pytest.raises(HarnessError) as refused:
        await driven.port.keep_hook_logging()
    assert driven.model_config["logging-config"] == "<root>=WARNING"
    assert config_writes(driven) == 0
    assert "\n" not in str(refused.value)
    assert str(refused.value).endswith(
        "(keep them: juju model-config -m test-model "
        "logging-config='<root>=WARNING;juju.worker.uniter=INFO')"
    )


# --- after a node restart -------------------------------------------------------------


async def test_reconnect_waits_for_the_controller_to_answer_again(driven: Driven) -> None:
    refused = "ERROR cannot connect to API: dial tcp 10.152.183.5:17070: connection refused"
    driven.cli.script(("status",), (1, "", refused), (1, "", refused), (0, "{}", ""))
    await driven.port.reconnect()
    assert driven.cli.calls.count(("status", "--format", "json")) == 3
    assert driven.clock.elapsed > 0  # it waited on the (fake) clock
    if driven.driver == "libjuju":
        driven.library.connect.assert_awaited_with("mk8s:admin/test-model")


async def test_reconnect_gives_up_naming_the_last_error(driven: Driven) -> None:
    driven.cli.script(("status",), (1, "", "ERROR cannot connect to API: connection refused"))
    with pytest.raises(WaitTimeout) as raised:
        await driven.port.reconnect()
    assert "connection refused" in raised.value.last_seen


# --- jubilant only: what the thread and the model flag do ------------------------------


async def test_jubilant_binds_the_cli_to_its_own_binary_and_model() -> None:
    library = autospec_juju(RecordedCLI("4.0"), {}, "mk8s:admin/test-model")
    seen: list[tuple[tuple[str, ...], Mapping[str, str] | None, float | None]] = []

    async def run(
        argv: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float | None = None
    ) -> Completed:
        seen.append((tuple(argv), env, timeout))
        return Completed(tuple(argv), 0, STATUS_3, "")

    port = JubilantJujuPort(library, clock=FakeClock())
    assert isinstance(port.cli.runner, SubprocessJuju)
    port.cli.runner._run = run  # the process runner, which kills what overruns its timeout
    await port.statuses()
    ((argv, env, timeout),) = seen
    assert argv == ("/snap/bin/juju", "status", "--format", "json")
    assert env == {"JUJU_MODEL": "mk8s:admin/test-model"}
    assert timeout is not None


async def test_jubilant_calls_run_off_the_event_loop() -> None:
    driven = _jubilant("4.0")
    in_loop: list[bool] = []

    def deploy(*args: Any, **kwargs: Any) -> None:
        try:
            asyncio.get_running_loop()
            in_loop.append(True)
        except RuntimeError:
            in_loop.append(False)

    driven.library.deploy.side_effect = deploy
    driven.model_config["logging-config"] = "<root>=INFO"
    await driven.port.deploy(AppSpec("probe", "/c/probe.charm"))
    assert in_loop == [False]


def test_jubilant_needs_a_model() -> None:
    library = create_autospec(jubilant.Juju, instance=True)
    library.model = None
    with pytest.raises(UnknownName, match="bound to no model"):
        JubilantJujuPort(library, clock=FakeClock())


async def test_jubilant_set_config_on_an_unknown_app_names_the_apps() -> None:
    driven = _jubilant("4.0")
    driven.library.config.side_effect = jubilant.CLIError(
        1, ["juju", "config", "nope"], "", 'ERROR application "nope" not found\n'
    )
    with pytest.raises(UnknownName, match=r"application nope does not exist.*alertmanager"):
        await driven.port.set_config("nope", {"a": "b"})


def test_hook_lines_on_401_come_from_the_module_we_keep_at_info() -> None:
    # 4.0.1's uniter still logs as juju.worker.uniter (and, on main, its operation child
    # logs `ran "<hook>" hook`: internal/worker/uniter/uniter.go Logger.Child("operation")).
    modules = {line.split()[3] for line in DEBUG_LOG_40.splitlines() if line.startswith("unit-")}
    assert "juju.worker.uniter" in modules
    assert "juju.worker.uniter" in HOOK_LOG_MODULES


CHOICES: list[tuple[str, str | None, str]] = [
    ("auto", "2.9.49", "libjuju"),
    ("auto", "3.6.1", "libjuju"),
    ("auto", "4.0.1", "jubilant"),
    ("auto", None, "libjuju"),
    ("jubilant", "3.6.1", "jubilant"),
    ("libjuju", "3.6.1", "libjuju"),
]


@pytest.mark.parametrize(("requested", "juju", "expected"), CHOICES)
def test_the_driver_follows_the_controller_unless_forced(
    requested: str, juju: str | None, expected: str
) -> None:
    assert choose_driver(requested, juju) == expected


@pytest.mark.parametrize(
    ("requested", "juju", "message"),
    [
        ("libjuju", "4.0.1", r"python-libjuju cannot drive Juju 4.0.1.*--juju-driver jubilant"),
        ("jubilant", "2.9.49", r"jubilant cannot drive Juju 2.9.49.*--juju-driver libjuju"),
        ("pylibjuju", "3.6", r"unknown Juju driver 'pylibjuju'.*auto, libjuju, jubilant"),
    ],
)
def test_a_driver_that_cannot_talk_to_the_controller_is_refused(
    requested: str, juju: str, message: str
) -> None:
    from harness.common.errors import HarnessError

    with pytest.raises(HarnessError, match=message):
        choose_driver(requested, juju)


async def test_a_node_restart_on_juju_40_waits_for_the_controller_through_the_cli() -> None:
    from live_fakes import FakeCluster, FakeNode

    from harness.disrupt import get
    from harness.lab.ports import Lab
    from harness.scenario.scenarios import Target

    driven = _jubilant("4.0")
    down = (1, "", "ERROR cannot connect to API: dial tcp 10.152.183.5:17070: connect: refused")
    starting = (1, "", "ERROR opening API connection: 503 Service Unavailable")
    node = FakeNode(
        on_stop=lambda: driven.cli.script(("status",), down, down, starting, (0, STATUS_3, ""))
    )
    lab = Lab("live", driven.port, FakeCluster(), node, driven.clock)
    steps = await get("node-restart").apply(lab, Target("alertmanager"))
    assert node.calls == ["stop", "start", "wait_ready"]
    assert steps[-1].name == "wait for the Juju controller and reconnect"
    assert driven.cli.calls.count(("status", "--format", "json")) == 4
    # No websocket to revive, nothing of jubilant's to reconnect: each look is a new process.
    driven.library.cli.assert_not_called()


async def test_show_unit_as_juju_405_printed_it_reads_every_bag_as_the_units_own() -> None:
    # Recorded on 4.0.5, where show-unit printed local-unit (and no related-units) on every
    # relation (juju issue 22539, fixed by PR 22720): each bag is the shown unit's own, and
    # the application databag is its own application's.
    driven = _jubilant("4.0")
    driven.cli.answer(
        ("show-unit",), 0, load_sample("showunit_yaml_4.0.5_k8s_grafana_agent0.yaml")
    )
    bags = await driven.port.unit_relations("grafana-agent-k8s/0")
    assert {(b.relation_id, b.scope, b.owner) for b in bags} == {
        (1, "app", "grafana-agent-k8s"),
        (1, "unit", "grafana-agent-k8s/0"),
        (2, "app", "grafana-agent-k8s"),
        (2, "unit", "grafana-agent-k8s/0"),
    }
    unit_bag = next(b for b in bags if b.relation_id == 2 and b.scope == "unit")
    assert unit_bag.data == {"ingress-address": "10.152.183.148"}


@pytest.mark.parametrize(
    ("juju", "binary", "refused"),
    [
        ("4.0", "/usr/local/bin/juju", "Juju 4 deploys only a packed charm"),
        ("3.6", "/snap/bin/juju", "with a snap juju deploys only a packed charm"),
        ("3.6", "/usr/local/bin/juju", ""),
    ],
)
async def test_juju_4_is_not_asked_to_deploy_a_charm_directory(
    tmp_path: Path, juju: str, binary: str, refused: str
) -> None:
    from harness.common.errors import HarnessError

    driven = _jubilant(juju)
    driven.library.cli_binary = binary
    driven.model_config["logging-config"] = "<root>=INFO"
    spec = AppSpec("probe", str(tmp_path))
    if refused:
        with pytest.raises(HarnessError, match=rf"{refused}.*charmcraft"):
            await driven.port.deploy(spec)
        driven.library.deploy.assert_not_called()
    else:
        await driven.port.deploy(spec)
        assert driven.deployed()["charm"] == str(tmp_path)


async def test_a_bundle_apps_revision_constraints_and_storage_reach_the_driver(
    driven: Driven,
) -> None:
    # postgresql-k8s as canonical/postgresql-k8s-bundle (releases/latest/k8s) deploys it.
    driven.model_config["logging-config"] = "<root>=INFO"
    await driven.port.deploy(
        AppSpec(
            "postgresql-k8s",
            "postgresql-k8s",
            channel="edge",
            revision=19,
            constraints="arch=amd64 mem=2G",
            storage={"pgdata": "kubernetes,1,1024"},
        )
    )
    call = driven.library.deploy.await_args if driven.driver == "libjuju" else None
    kw = (call or driven.library.deploy.call_args).kwargs
    assert kw["revision"] == 19
    assert kw["storage"] == {"pgdata": "kubernetes,1,1024"}
    # libjuju parses a constraints string itself; jubilant takes a mapping.
    wanted: Any = (
        "arch=amd64 mem=2G" if driven.driver == "libjuju" else {"arch": "amd64", "mem": "2G"}
    )
    assert kw["constraints"] == wanted


REFUSED = load_sample("deploy_error_3.1.8_k8s_assumes_unmet_mysql-k8s.txt")


async def test_a_charm_whose_assumes_juju_refuses_is_one_line_naming_app_reason_and_fix(
    driven: Driven,
) -> None:
    from juju.errors import JujuError

    from harness.common.errors import HarnessError

    driven.model_config["logging-config"] = "<root>=INFO"
    if driven.driver == "libjuju":
        # libjuju raises the Deploy facade's error messages joined (juju/model Model._deploy).
        server = REFUSED.split("cannot deploy bundle: ", 1)[1]
        driven.library.deploy.side_effect = JujuError(server)
    else:
        driven.library.deploy.side_effect = jubilant.CLIError(
            1, ["juju", "deploy", "mysql-k8s"], "", REFUSED
        )
    spec = AppSpec("mysql-k8s", "mysql-k8s", channel="8.0/edge", trust=True)
    with pytest.raises(HarnessError) as raised:
        await driven.port.deploy(spec)
    text = str(raised.value)
    assert "\n" not in text
    assert "mysql-k8s 8.0/edge" in text
    # Juju's own reasons, not its last line ('"juju": the version of Juju used by the model').
    assert 'charm requires feature "juju" (version >= 3.5.2)' in text
    assert "--mysql-channel" in str(raised.value.fix)


async def test_a_refresh_juju_refuses_for_the_charms_assumes_is_one_line_with_the_reason(
    driven: Driven,
) -> None:
    # juju refresh checks the new charm's assumes as deploy does (mysql-operator docs,
    # "Juju upgrades"); its last line alone is only the reasons' header.
    from harness.common.errors import HarnessError

    refused = load_sample("refresh_error_3.1.4_machine_assumes_unmet_mysql.txt")
    if driven.driver == "libjuju":
        driven.cli.answer(("refresh",), 1, "", refused)
    else:
        driven.library.refresh.side_effect = jubilant.CLIError(
            1, ["juju", "refresh", "probe"], "", refused
        )
    with pytest.raises(HarnessError) as raised:
        await driven.port.refresh("probe", path="/c/probe.charm")
    text = str(raised.value)
    assert "\n" not in text
    assert "Juju refused to refresh probe (/c/probe.charm)" in text
    assert 'charm requires feature "juju" (version >= 3.1.5)' in text
    # The fix is the charm or the Juju version, not "run it by hand to see more".
    assert "upgrade the model's Juju" in str(raised.value.fix)
