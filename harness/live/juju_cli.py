"""The ``juju`` CLI, bound to one model: argv building, JSON output, errors with context.

One small runner interface with two implementations: ``SubprocessJuju`` (``juju`` with
``JUJU_MODEL`` set, for the ``repro`` CLI) and ``OpsTestJuju`` (pytest-operator's
``ops_test.juju``, which sets ``JUJU_MODEL`` and ``JUJU_DATA`` itself). ``JujuCLI`` mirrors
the CLI verbs we use one to one, alphabetically, and branches on the detected client version
where 2.9 and 3.x differ (``run-action --wait`` vs ``run``, ``add-relation`` vs
``integrate``, ``-y`` vs ``--no-prompt``).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import yaml

from harness.common.errors import EnvironmentUnavailable, HarnessError
from harness.common.versions import JujuVersion
from harness.live.local_charm import for_juju
from harness.live.process import NOT_FOUND, ProcessRunner, run_process

DEFAULT_TIMEOUT = 600.0
ACTION_WAIT = "5m"
INSTALL_JUJU = "install it: sudo snap install juju, then juju bootstrap microk8s"
DEBUG_LOG_TIMEOUT = 120.0

# How the controller filters `juju debug-log` (the same in Juju 2.9, 3.6 and 4.0): each
# --include-module M keeps module M and its children at a dot boundary, the pattern
# `^(M1|M2)(\..+)?$` (makeModulePattern in state/logs.go@juju-2.9.31 and @3.6, and in
# internal/logtailer/tailer.go@main, 4.0); --level is one minimum for every line kept
# (MinLevel); --lines N is the last N lines that pass both, and N above 10000 is refused
# ("too many lines requested (N) maximum is 10000": maxInitialLines, same files).
#
# The modules whose lines say which hooks ran: the uniter (hook results, "reboot
# detected"), a podspec operator's uniter, and the agent's "running containerAgent" start
# line (juju.cmd). Dated, UTC, milliseconds: the milliseconds keep consecutive lines
# distinct, which the log cursor relies on.
HOOK_LOG_MODULES = ("juju.worker.uniter", "juju.worker.caasoperator", "juju.cmd")
_DATED = ("--date", "--utc", "--ms")
DEBUG_LOG_FILTER = (
    *(arg for module in HOOK_LOG_MODULES for arg in ("--include-module", module)),
    *_DATED,
    "--level",
    "INFO",
)
# ops' "Emitting Juju event <name>." lines are DEBUG lines a charm logs through juju-log,
# whose module is `unit.<app>/<n>.juju-log` (worker/uniter/runner/jujuc/juju-log.go@2.9.31
# and @3.6, internal/worker/uniter/runner/jujuc/juju-log.go@main). One --level serves a
# whole request, so they are read apart from the uniter's lines (which stay at INFO: the
# uniter's DEBUG lines are the chattiest part of a model's log): `unit` and its children
# at DEBUG, every charm's juju-log lines, of which the client keeps ops' event lines.
OPS_LOG_MODULE = "unit"
OPS_LOG_FILTER = ("--include-module", OPS_LOG_MODULE, *_DATED, "--level", "DEBUG")
MAX_LINES = 10_000  # the most `--lines` Juju answers (maxInitialLines)


def debug_log_plan(model: str) -> tuple[str, ...]:
    """The debug-log reads of a run on ``model``, as a dry run prints them."""
    read = ["juju", "debug-log", "-m", model]
    return (
        shlex.join([*read, "--replay", "--no-tail", *DEBUG_LOG_FILTER]),
        "# ops' event lines, only where logging-config keeps unit DEBUG lines (Juju's "
        "default, <root>=INFO, does not), read back to the disruption's start:",
        shlex.join([*read, "--no-tail", "--lines", "N", *OPS_LOG_FILTER]),
    )


class JujuRunner(Protocol):
    """Runs ``juju <args>`` against one model; returns (exit code, stdout, stderr)."""

    async def __call__(
        self, args: Sequence[str], timeout: float | None
    ) -> tuple[int, str, str]: ...


class SubprocessJuju:
    """``juju`` as a subprocess with ``JUJU_MODEL`` set (the ``repro`` CLI's runner)."""

    def __init__(
        self, model: str | None, *, binary: str = "juju", run: ProcessRunner = run_process
    ) -> None:
        self.model = model
        self.binary = binary
        self._run = run

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        env = {"JUJU_MODEL": self.model} if self.model else {}
        done = await self._run([self.binary, *args], env=env, timeout=timeout)
        return done.returncode, done.stdout, done.stderr


class OpsTestJuju:
    """``juju`` bound to pytest-operator's model, as ``ops_test.juju`` binds it.

    ``OpsTest.run`` waits on ``communicate()`` with no timeout, and cancelling it leaves the
    process running (pytest-operator 0.43.2, ``plugin.py``). So the command runs here, with
    the environment ``OpsTest.run`` would give it (``JUJU_DATA``, ``JUJU_MODEL``), through
    ``run_process``, which kills it when it overruns.
    """

    def __init__(
        self, ops_test: Any, *, binary: str = "juju", run: ProcessRunner = run_process
    ) -> None:
        self._ops_test = ops_test
        self.binary = binary
        self._run = run

    def env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        jujudata = getattr(self._ops_test, "jujudata", None)
        if jujudata is not None and getattr(jujudata, "path", None):
            env["JUJU_DATA"] = str(jujudata.path)
        if self._ops_test.model_full_name:
            env["JUJU_MODEL"] = str(self._ops_test.model_full_name)
        return env

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        done = await self._run([self.binary, *args], env=self.env(), timeout=timeout)
        return done.returncode, done.stdout, done.stderr


class JujuCLIError(HarnessError):
    """A ``juju`` command failed; carries the command, its exit code, stdout and stderr."""

    def __init__(self, args: Sequence[str], returncode: int, stdout: str, stderr: str) -> None:
        self.args_ = tuple(args)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        lines = (stderr.strip() or stdout.strip() or "no output").splitlines()
        super().__init__(
            f"`{self.command}` failed (exit {returncode}): {lines[-1].strip()}",
            "its full stdout and stderr are on the error; run it by hand to see more",
        )

    @property
    def command(self) -> str:
        return shlex.join(["juju", *self.args_])


def action_param(key: str, value: object) -> str:
    """``key=value`` for ``juju run``/``run-action``, which read each value as YAML.

    Strings that YAML would turn into something else (``true``, ``7``, ``""``, ``a: b``) are
    sent as JSON strings, which YAML reads back verbatim; other values go as JSON.
    """
    if isinstance(value, str):
        try:
            same = yaml.safe_load(value) == value
        except yaml.YAMLError:
            same = False
        return f"{key}={value if same and value.strip() == value else json.dumps(value)}"
    return f"{key}={json.dumps(value)}"


def action_args(
    major: int, unit: str, action: str, params: Mapping[str, object] | None = None
) -> list[str]:
    """``juju`` arguments that run an action and wait for it, as JSON, on Juju ``major``."""
    pairs = [action_param(k, v) for k, v in (params or {}).items()]
    verb = "run-action" if major < 3 else "run"
    return [verb, unit, action, *pairs, f"--wait={ACTION_WAIT}", "--format", "json"]


def relate_verb(major: int) -> str:
    return "add-relation" if major < 3 else "integrate"


class JujuCLI:
    """The ``juju`` verbs the live backend uses, on one runner (one model)."""

    def __init__(self, runner: JujuRunner, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.runner = runner
        self.timeout = timeout
        self._version: JujuVersion | None = None
        self.commands: list[str] = []  # every command run, for the evidence

    async def run(self, *args: str, timeout: float | None = None, check: bool = True) -> str:
        """Run ``juju *args``; stdout, or JujuCLIError (unless ``check=False``)."""
        rc, out, err = await self.raw(*args, timeout=timeout)
        if check and rc != 0:
            raise JujuCLIError(args, rc, out, err)
        return out

    async def raw(self, *args: str, timeout: float | None = None) -> tuple[int, str, str]:
        self.commands.append(shlex.join(["juju", *args]))
        rc, out, err = await self.runner(args, timeout if timeout is not None else self.timeout)
        if rc == NOT_FOUND and "not found" in err:
            raise EnvironmentUnavailable("the `juju` CLI is not on PATH", INSTALL_JUJU)
        return rc, out, err

    async def run_json(self, *args: str, timeout: float | None = None) -> Any:
        out = await self.run(*args, "--format", "json", timeout=timeout)
        return json.loads(out) if out.strip() else None

    # The verbs, alphabetically.

    async def add_model(self, name: str) -> None:
        await self.run("add-model", name, "--no-switch")

    async def debug_log(self) -> str:
        """The whole hook-related log at INFO and above, dated in UTC (hook lines are INFO).

        Filtered on the controller (``--include-module``), so the log of a model that has
        run for hours is not downloaded to find its hook lines.
        """
        return await self.run(
            "debug-log", "--replay", "--no-tail", *DEBUG_LOG_FILTER, timeout=DEBUG_LOG_TIMEOUT
        )

    async def debug_log_recent(self, lines: int) -> str:
        """The most recent ``lines`` hook-related lines (``--lines N --no-tail``)."""
        return await self._recent(lines, DEBUG_LOG_FILTER)

    async def ops_log_recent(self, lines: int) -> str:
        """The most recent ``lines`` lines of the charms' juju-log modules, DEBUG and up."""
        return await self._recent(lines, OPS_LOG_FILTER)

    async def _recent(self, lines: int, log_filter: Sequence[str]) -> str:
        count = str(min(max(1, lines), MAX_LINES))
        return await self.run(
            "debug-log", "--no-tail", "--lines", count, *log_filter, timeout=DEBUG_LOG_TIMEOUT
        )

    async def destroy_model(self, name: str, *, timeout: float) -> None:
        """Force-destroy without waiting (pod deletions can make it hang otherwise)."""
        confirm = "-y" if (await self.version()).major < 3 else "--no-prompt"
        await self.run(
            "destroy-model",
            name,
            confirm,
            "--destroy-storage",
            "--force",
            "--no-wait",
            timeout=timeout,
        )

    async def integrate(self, endpoint_a: str, endpoint_b: str) -> None:
        await self.run(relate_verb((await self.version()).major), endpoint_a, endpoint_b)

    async def model_config(self) -> Mapping[str, tuple[str, str]]:
        """Every model setting as (value, source): ``juju model-config --format json``."""
        data = await self.run_json("model-config", timeout=60)
        found: dict[str, tuple[str, str]] = {}
        for key, entry in (data or {}).items():
            if isinstance(entry, dict):
                value = entry.get("Value", entry.get("value"))
                source = str(entry.get("Source", entry.get("source", "")) or "")
            else:
                value, source = entry, ""
            text = json.dumps(value) if isinstance(value, bool) else str(value)
            found[str(key)] = (text, source)
        return found

    async def models(self) -> tuple[str, ...]:
        """Short names of the models of the current controller."""
        data = await self.run_json("models")
        names = []
        for model in (data or {}).get("models", []):
            name = str(model.get("short-name") or model.get("name", ""))
            names.append(name.rsplit("/", 1)[-1])
        return tuple(names)

    async def refresh(
        self,
        app: str,
        *,
        path: str | None = None,
        channel: str | None = None,
        resources: Mapping[str, str] | None = None,
    ) -> None:
        """``juju refresh``; a local charm (and local resource files) are handed to a snap
        ``juju`` as a copy it can read (``local_charm.for_juju``), as jubilant does."""
        binary = str(getattr(self.runner, "binary", "juju"))
        with for_juju(binary, path, resources) as (readable, given):
            args = ["refresh", app]
            if readable is not None:
                args += ["--path", readable]
            if channel is not None:
                args += ["--channel", channel]
            for name, value in given.items():
                args += ["--resource", f"{name}={value}"]
            await self.run(*args)

    async def run_action(
        self, unit: str, action: str, params: Mapping[str, object] | None = None
    ) -> tuple[str, str]:
        """Run an action and wait; (stdout, stderr) of the JSON output, also when it failed.

        3.x: ``juju run UNIT ACTION k=v --format json --wait=5m``; a failed task exits 1
        with the JSON still on stdout. 2.9: ``juju run-action UNIT ACTION k=v --wait=5m
        --format json``, keyed by unit tag.
        """
        args = action_args((await self.version()).major, unit, action, params)
        rc, out, err = await self.raw(*args)
        if rc != 0 and not out.lstrip().startswith("{"):
            raise JujuCLIError(args, rc, out, err)
        if not out.strip():
            # A task Juju could not schedule: exit 0, nothing on stdout, the reason on stderr.
            raise JujuCLIError(args, rc, out, err or "no task result and no reason given")
        return out, err

    async def scale_application(self, app: str, scale: int) -> None:
        await self.run("scale-application", app, str(scale))

    async def show_controller(self) -> Mapping[str, Any]:
        """The current controller's details (``agent-version``, ``cloud``...)."""
        data = await self.run_json("show-controller", timeout=60)
        if not isinstance(data, dict) or not data:
            raise EnvironmentUnavailable(
                "no Juju controller is reachable", "bootstrap one: `juju bootstrap microk8s`"
            )
        first = next(iter(data.values()))
        return dict(first.get("details", {})) if isinstance(first, dict) else {}

    async def show_unit(self, unit: str) -> str:
        return await self.run("show-unit", unit, "--format", "json")

    async def status(self, *, timeout: float | None = None) -> str:
        return await self.run("status", "--format", "json", timeout=timeout)

    async def trust(self, app: str) -> None:
        await self.run("trust", app, "--scope=cluster")

    async def version(self) -> JujuVersion:
        """The client's version (``juju version``), asked once."""
        if self._version is None:
            out = await self.run("version", timeout=60)
            self._version = JujuVersion.parse(out.strip())
        return self._version

    async def version_text(self) -> str:
        return (await self.run("version", timeout=60)).strip()
