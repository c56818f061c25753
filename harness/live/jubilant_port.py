"""The jubilant JujuPort: jubilant's ``Juju`` bound to one model, for Juju 3.x and 4.x.

python-libjuju stops at Juju 3.6; jubilant wraps the ``juju`` CLI, whose verbs and JSON its
maintainers keep the same between 3.x and 4.x. jubilant is synchronous, so each of its calls
runs in a worker thread (``asyncio.to_thread``) and never blocks the event loop.

What libjuju does in ``LiveJujuPort`` (deploy, integrate, application and model config,
reconnecting a websocket) goes through jubilant's typed methods here, and so does
``refresh``: jubilant copies a local charm where a snap ``juju`` can read it, for a refresh
as for the deploy before it. Everything else both drivers do alike (status, show-unit,
actions, debug-log, trust, scale) is the ``CLIModel`` this port holds, as the libjuju port
holds one: ``juju`` processes run on the jubilant ``Juju``'s own binary and model
(``SubprocessJuju``: ``JUJU_MODEL``, as jubilant's ``--model``), so both drivers parse the
same recorded JSON with the same parsers. They do not go through ``Juju.cli``: it takes no
timeout, and a ``juju`` that hangs (a controller half up after a node restart) must be
killed at its deadline, which ``run_process`` does. The typed verbs take no timeout either,
so ``_call`` gives each one a deadline and kills the ``juju`` it started when the deadline
passes or the call is cancelled.
"""

from __future__ import annotations

import asyncio
import errno
import importlib.metadata
import itertools
import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import jubilant

from harness.common.errors import EnvironmentUnavailable, HarnessError, UnknownName
from harness.common.observations import Databag, UnitStatus
from harness.common.versions import Versions
from harness.lab.ports import ActionResult, AppSpec, Clock
from harness.live.charm_refusal import deploy_refusal, refresh_refusal
from harness.live.cli_model import CLIModel
from harness.live.juju_cli import DEFAULT_TIMEOUT, JujuCLI, JujuCLIError, SubprocessJuju
from harness.live.local_charm import absolute_path, is_local_charm, is_snap
from harness.live.process import (
    KILL_WAIT,
    ProcessTimeout,
    argument_too_long,
    kill_pids,
    running_children,
)

log = logging.getLogger(__name__)

T = TypeVar("T")
POLL = 0.2  # seconds between looks for a juju the call started after its deadline

# jubilant 1.5 bounds temp_model's destroy-model (10 min; before, a destroy MicroK8s hangs
# waits forever) and 1.6 copies a local charm where a snap juju can read it
# (Juju._deploy_tempdir), which deploy and refresh rely on: read in each release's wheel.
MIN_JUBILANT = (1, 6)


def installed_jubilant() -> str | None:
    """The installed jubilant's version, or None when its metadata cannot be read."""
    try:
        return importlib.metadata.version("jubilant")
    except importlib.metadata.PackageNotFoundError:
        return None


def require_jubilant(version: str | None) -> None:
    """EnvironmentUnavailable when jubilant ``version`` is older than MIN_JUBILANT."""
    found = re.match(r"(\d+)\.(\d+)", version or "")
    if found is None or (int(found[1]), int(found[2])) >= MIN_JUBILANT:
        return  # unknown (no metadata) is not refused: nothing says it is too old
    floor = ".".join(map(str, MIN_JUBILANT))
    raise EnvironmentUnavailable(
        f"jubilant {version} is too old for the jubilant driver, which needs {floor}+ "
        "(a local charm copied where a snap juju can read it, a bounded temporary-model "
        "teardown)",
        f"pip install 'jubilant>={floor}'",
    )


def cli_for_jubilant(juju: jubilant.Juju) -> JujuCLI:
    """The ``juju`` CLI on the same binary and model as a jubilant ``Juju``."""
    return JujuCLI(SubprocessJuju(juju.model, binary=juju.cli_binary))


def _as_arguments(values: Sequence[object]) -> list[str]:
    """A call's arguments as jubilant puts them on the command line (a mapping as k=v)."""
    words: list[str] = []
    for value in values:
        if isinstance(value, Mapping):
            words.extend(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, str):
            words.append(value)
    return words


def short_model_name(model: str | None) -> str:
    """``ctl:admin/m1`` -> ``m1`` (the Kubernetes namespace is the bare model name)."""
    return (model or "").rpartition(":")[2].rpartition("/")[2]


class JubilantJujuPort:
    """One Juju model through jubilant: typed verbs where libjuju was, the CLI elsewhere."""

    driver = "jubilant"

    def __init__(
        self,
        juju: jubilant.Juju,
        *,
        clock: Clock,
        cli: JujuCLI | None = None,
        reconnect_timeout: float = 900.0,
        call_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        require_jubilant(installed_jubilant())
        if not juju.model:
            raise UnknownName(
                "the jubilant Juju is bound to no model",
                "pass one made with jubilant.Juju(model=...) or pytest-jubilant's juju fixture",
            )
        self.juju = juju
        self.call_timeout = call_timeout
        self.cli = cli or cli_for_jubilant(juju)
        self.cli_model = CLIModel(
            self.cli,
            model_name=short_model_name(juju.model),
            driver=self.driver,
            clock=clock,
            reconnect_timeout=reconnect_timeout,
            read_logging=self._logging_config,
            write_logging=self._set_logging_config,
        )
        self._logging_checked = False  # keep_hook_logging has run (deploy checks it first)

    @property
    def model_name(self) -> str:
        return self.cli_model.model_name

    @property
    def own_model(self) -> bool:
        """A model the harness made for itself: its hook settings are set to Juju's defaults."""
        return self.cli_model.own_model

    def _ours(self, argv: tuple[str, ...]) -> bool:
        """A ``juju`` jubilant started for this model: it passes ``--model <model>``.

        The port's own CLI reads pass the model in ``JUJU_MODEL`` instead, so they never match.
        """
        return any(a == "--model" and b == self.juju.model for a, b in itertools.pairwise(argv))

    async def _call(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run one jubilant call in a thread, within ``call_timeout``.

        Its CLIError becomes our JujuCLIError. At the deadline, or when the call is cancelled
        (a signal, an outer timeout), the ``juju`` it started is killed, so neither the
        process nor the worker thread outlives the call.
        """
        before = set(running_children(self._ours))
        work = asyncio.ensure_future(asyncio.to_thread(method, *args, **kwargs))
        try:
            return await asyncio.wait_for(asyncio.shield(work), self.call_timeout)
        except jubilant.CLIError as error:
            raise JujuCLIError(
                [str(a) for a in (error.cmd or ())][1:],
                error.returncode,
                str(error.stdout or ""),
                str(error.stderr or ""),
            ) from None
        except asyncio.TimeoutError:
            killed = await self._stop(work, before)
            name = getattr(method, "__name__", "call")
            raise ProcessTimeout(
                killed or (self.juju.cli_binary, name), self.call_timeout
            ) from None
        except asyncio.CancelledError:
            await self._stop(work, before)
            raise
        except OSError as error:  # after TimeoutError, which is one
            if error.errno == errno.E2BIG:  # jubilant passes config values as arguments
                name = getattr(method, "__name__", "call")
                words = _as_arguments((*args, *kwargs.values()))
                raise argument_too_long([str(self.juju.cli_binary), name, *words]) from None
            raise

    async def _stop(self, work: asyncio.Future[Any], before: set[int]) -> tuple[str, ...]:
        """Until the call's thread ends (at most ``KILL_WAIT``), kill each ``juju`` it starts.

        A ``juju`` may start after the deadline (jubilant copies a local charm first), so
        this looks again until the thread is done. A signal meanwhile is not swallowed: it
        is raised once no ``juju`` of this call is left.
        """
        killed: list[tuple[str, ...]] = []

        def kill_new() -> None:
            started = running_children(self._ours)
            for pid, argv in sorted(started.items()):
                if pid not in before:
                    before.add(pid)
                    kill_pids([pid])
                    killed.append(argv)
                    log.warning("killed `%s`: it did not answer in time", " ".join(argv))

        loop = asyncio.get_running_loop()
        until = loop.time() + KILL_WAIT
        signalled = False
        while not work.done() and loop.time() < until:
            kill_new()
            try:
                await asyncio.wait_for(asyncio.shield(work), min(POLL, until - loop.time()))
            except asyncio.CancelledError:
                signalled = True  # a signal: honoured once no juju of this call is left
            except (Exception, asyncio.TimeoutError):
                pass  # its own error (the killed juju's CLIError) is the caller's to replace
        kill_new()
        if work.done() and not work.cancelled():
            work.exception()  # retrieved here: the caller raises its own error
        elif not work.done():
            log.warning("the jubilant call still runs after %.0fs; it is left", KILL_WAIT)
        if signalled:
            raise asyncio.CancelledError
        return killed[0] if killed else ()

    # Lifecycle through jubilant's typed verbs.

    async def deploy(self, spec: AppSpec) -> None:
        if not self._logging_checked:
            await self.keep_hook_logging()
        local = is_local_charm(spec.charm)
        if local:
            await self._refuse_charm_directory(spec.charm)
        # jubilant reads a charm as a local file only when it starts with "/" or ".".
        charm = absolute_path(spec.charm) if local else spec.charm
        log.info("deploy %s as %s", charm, spec.app)
        with deploy_refusal(spec):
            await self._call(
                self.juju.deploy,
                charm,
                spec.app,
                base=spec.base,
                channel=None if local else spec.channel,
                config=dict(spec.config) or None,
                num_units=spec.units,
                resources=dict(spec.resources) or None,
                trust=spec.trust,
                revision=None if local else spec.revision,
                # jubilant takes constraints as a mapping ("arch=amd64 mem=2G" -> two keys).
                constraints=dict(
                    item.split("=", 1) for item in (spec.constraints or "").split() if "=" in item
                )
                or None,
                storage=dict(spec.storage) or None,
            )

    async def _refuse_charm_directory(self, charm: str) -> None:
        """A HarnessError when ``charm`` is a directory that this juju cannot be given.

        A snap juju cannot read /tmp, so jubilant copies a local charm into
        ~/snap/juju/common as one file (jubilant 1.6 to 1.14 Juju._deploy_tempdir,
        shutil.copy), which a directory breaks; and Juju 4.0 removed deploying a charm
        directory (juju/juju docs/howto/upgrade-your-juju-deployment-from-36-to-40.md).
        """
        if not await asyncio.to_thread(os.path.isdir, charm):
            return
        if is_snap(self.juju.cli_binary):
            why = "the jubilant driver with a snap juju deploys only a packed charm"
        elif await self.juju_major() >= 4:
            why = "Juju 4 deploys only a packed charm"
        else:
            return
        raise HarnessError(
            f"{why}, and {charm} is a directory",
            "run `charmcraft pack` in it and deploy the .charm file it makes",
        )

    async def integrate(self, endpoint_a: str, endpoint_b: str) -> None:
        await self._call(self.juju.integrate, endpoint_a, endpoint_b)

    async def refresh(
        self,
        app: str,
        *,
        path: str | None = None,
        channel: str | None = None,
        resources: Mapping[str, str] | None = None,
    ) -> None:
        """``juju refresh`` through jubilant, as ``deploy``: it copies a local charm where a
        snap juju can read it (the probe deployed from /tmp is refreshed from /tmp too)."""
        if path is not None:
            await self._refuse_charm_directory(path)
        with refresh_refusal(app, path, channel):
            await self._call(
                self.juju.refresh,
                app,
                # jubilant copies a path only when it starts with "/" or ".".
                path=absolute_path(path) if path is not None else None,
                channel=channel,
                resources=dict(resources) if resources else None,
            )

    async def set_config(self, app: str, values: Mapping[str, str]) -> None:
        try:
            await self._call(self.juju.config, app, {k: str(v) for k, v in values.items()})
        except JujuCLIError:
            apps = sorted({s.unit.rpartition("/")[0] for s in await self.statuses()})
            if app not in apps:
                raise UnknownName(
                    f"application {app} does not exist in model {self.model_name}",
                    f"applications: {', '.join(apps) or 'none'}",
                ) from None
            raise

    # What both drivers do alike: the CLIModel's.

    async def trust(self, app: str) -> None:
        await self.cli_model.trust(app)

    async def scale(self, app: str, units: int) -> None:
        await self.cli_model.scale(app, units)

    async def statuses(self, apps: Sequence[str] = ()) -> tuple[UnitStatus, ...]:
        return await self.cli_model.statuses(apps)

    async def units(self, app: str) -> tuple[str, ...]:
        return await self.cli_model.units(app)

    async def run_action(
        self, unit: str, action: str, params: Mapping[str, object] | None = None
    ) -> ActionResult:
        return await self.cli_model.run_action(unit, action, params)

    async def unit_relations(self, unit: str) -> tuple[Databag, ...]:
        return await self.cli_model.unit_relations(unit)

    async def juju_major(self) -> int:
        return await self.cli_model.juju_major()

    async def debug_log(self) -> str:
        return await self.cli_model.debug_log()

    async def debug_log_recent(self, lines: int) -> str:
        return await self.cli_model.debug_log_recent(lines)

    async def ops_log_recent(self, lines: int) -> str:
        return await self.cli_model.ops_log_recent(lines)

    async def keeps_ops_lines(self) -> bool:
        return await self.cli_model.keeps_ops_lines()

    async def versions(self) -> Versions:
        return await self.cli_model.versions()

    async def hook_settings(self) -> tuple[tuple[str, str], ...]:
        return await self.cli_model.hook_settings()

    def adopt(
        self, *, created: bool, juju_defaults: bool, user_set: frozenset[str] = frozenset()
    ) -> None:
        self.cli_model.adopt(created=created, juju_defaults=juju_defaults, user_set=user_set)

    async def use_juju_defaults(self) -> dict[str, str]:
        return await self.cli_model.use_juju_defaults()

    # After a node restart: no websocket to revive; each CLI call connects anew.

    async def reconnect(self) -> None:
        """Wait until the controller answers ``juju status`` through the CLI again."""
        await self.wait_for_api()

    async def wait_for_api(self) -> None:
        await self.cli_model.wait_for_api()

    async def ready_for_teardown(self, timeout: float = 300.0) -> None:
        """Nothing to revive: every jubilant call is a new ``juju`` process."""

    # The model's logging-config, through ``juju model-config``.

    async def keep_hook_logging(self) -> str | None:
        """Raise the uniter's modules to INFO if the model would drop hook lines (the new
        value, or None when the current one keeps them already)."""
        self._logging_checked = True
        return await self.cli_model.keep_hook_logging()

    async def restore_logging(self) -> None:
        """Put back the logging-config we replaced, unless someone changed it since."""
        await self.cli_model.restore_logging()

    async def _logging_config(self) -> str:
        config = await self._call(self.juju.model_config)
        return str(config.get("logging-config") or "")

    async def _set_logging_config(self, value: str | None) -> None:
        if value:
            await self._call(self.juju.model_config, {"logging-config": value})
        else:
            await self._call(self.juju.model_config, reset="logging-config")
