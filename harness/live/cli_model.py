"""One Juju model through the ``juju`` CLI: what both Juju drivers do the same way.

``LiveJujuPort`` (python-libjuju) and ``JubilantJujuPort`` (jubilant) each hold one
``CLIModel`` and do the rest their own way. Here the CLI is used where its output is the
stable interface on every Juju version: ``status``, ``show-unit``, actions, ``debug-log``,
``trust``, ``scale-application``, ``model-config`` and the versions. Raw output never leaves
this module: the parsers in ``harness.live.parse`` turn it into frozen values. It also keeps
what the evidence says of the model's hook settings (``adopt``) and the logging-config the
harness changed, which each driver reads and sets its own way (``read_logging``,
``write_logging``).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from harness.common.errors import HarnessError, UnknownName
from harness.common.logging_config import keeps_ops_lines
from harness.common.observations import Databag, UnitStatus
from harness.common.versions import CharmVersion, JujuVersion, Versions
from harness.lab.ports import ActionResult, Clock
from harness.lab.waiting import wait_for
from harness.live.juju_cli import JujuCLI, JujuCLIError
from harness.live.model_config import (
    CONFIG_EXISTING,
    HOOK_SETTINGS,
    JUJU_DEFAULTS,
    bounded_logging,
    chatty_modules,
    config_origin,
    keeps_hook_lines,
    with_hook_lines,
)
from harness.live.process import ProcessTimeout

log = logging.getLogger(__name__)


def _ordinal(unit: str) -> int:
    tail = unit.rpartition("/")[2]
    return int(tail) if tail.isdigit() else -1


class CLIModel:
    """One Juju model through a ``JujuCLI`` bound to it, as both drivers drive it."""

    def __init__(
        self,
        cli: JujuCLI,
        *,
        model_name: str,
        driver: str,
        clock: Clock,
        reconnect_timeout: float,
        read_logging: Callable[[], Awaitable[str]],
        write_logging: Callable[[str | None], Awaitable[None]],
    ) -> None:
        self.cli = cli
        self._model_name = model_name
        self.driver = driver  # recorded in the evidence (versions.juju_driver)
        self._clock = clock
        self._reconnect_timeout = reconnect_timeout
        # The driver's own way to read the model's logging-config, and to set it (None: reset).
        self._read_logging = read_logging
        self._write_logging = write_logging
        # A model the harness made for itself: its hook settings are set to Juju's defaults.
        self.own_model = False
        # The harness created this model: only then is its logging-config ever changed.
        self.created = False
        self.user_set: frozenset[str] = frozenset()
        self.config_from = CONFIG_EXISTING  # recorded in the evidence (see config_origin)
        self._logging_change: tuple[str, str] | None = None  # (original, ours)
        self._ops_kept: bool | None = None  # logging-config keeps ops' event lines
        self._juju_major: int | None = None

    @property
    def model_name(self) -> str:
        return self._model_name

    # Lifecycle through the CLI (its behaviour is the documented one on every version).

    async def trust(self, app: str) -> None:
        await self.cli.trust(app)

    async def scale(self, app: str, units: int) -> None:
        await self.cli.scale_application(app, units)

    # Reading.

    async def _status_text(self) -> str:
        return await self.cli.status()

    async def statuses(self, apps: Sequence[str] = ()) -> tuple[UnitStatus, ...]:
        from harness.live.parse import parse_status

        found = parse_status(await self._status_text())
        if apps:
            wanted = set(apps)
            found = tuple(s for s in found if s.unit.rpartition("/")[0] in wanted)
        return tuple(sorted(found, key=lambda s: (s.unit.rpartition("/")[0], _ordinal(s.unit))))

    async def units(self, app: str) -> tuple[str, ...]:
        return tuple(s.unit for s in await self.statuses((app,)))

    async def _unknown_unit(self, unit: str) -> UnknownName | None:
        """An UnknownName error when ``unit`` is not in the model, else None."""
        app = unit.rpartition("/")[0]
        try:
            units = await self.units(app)
        except JujuCLIError:
            return None
        if unit in units or unit.endswith("/leader"):
            return None
        return UnknownName(
            f"unit {unit} does not exist in model {self.model_name}",
            f"units: {', '.join(units) or 'none'}",
        )

    async def run_action(
        self, unit: str, action: str, params: Mapping[str, object] | None = None
    ) -> ActionResult:
        from harness.live.parse import parse_action_output

        try:
            out, err = await self.cli.run_action(unit, action, params)
        except JujuCLIError:
            unknown = await self._unknown_unit(unit)
            if unknown is not None:
                raise unknown from None
            raise
        result = parse_action_output(out, unit, action)
        if not result.stderr and err.strip():
            result = dataclasses.replace(result, stderr=err)
        return result

    async def unit_relations(self, unit: str) -> tuple[Databag, ...]:
        from harness.live.parse import parse_show_unit

        try:
            text = await self.cli.show_unit(unit)
        except JujuCLIError:
            unknown = await self._unknown_unit(unit)
            if unknown is not None:
                raise unknown from None
            raise
        return parse_show_unit(text, local_app_data=await self._show_unit_shows_local_app())

    async def _show_unit_shows_local_app(self) -> bool:
        """Juju 4.0 prints the unit's own application databag as ``application-data``.

        Before 4.0 it was the other side's (juju/juju docs/howto/
        upgrade-your-juju-deployment-from-36-to-40.md, "juju show-unit relation
        application-data now uses the local side"). The controller decides; its major
        equals the client's (``check_versions``), so the client's is the fallback.
        """
        return await self.juju_major() >= 4

    async def juju_major(self) -> int:
        """The controller's major version (asked once), else the client's."""
        if self._juju_major is None:
            try:
                agent = str((await self.cli.show_controller()).get("agent-version") or "")
                self._juju_major = JujuVersion.parse(agent).major
            except (HarnessError, ValueError):
                self._juju_major = (await self.cli.version()).major
        return self._juju_major

    async def debug_log(self) -> str:
        return await self.cli.debug_log()

    async def debug_log_recent(self, lines: int) -> str:
        return await self.cli.debug_log_recent(lines)

    async def ops_log_recent(self, lines: int) -> str:
        """The charms' latest juju-log lines at DEBUG, where ops' event lines are; nothing
        (and no request) when the model's logging-config drops them."""
        if not await self.keeps_ops_lines():
            return ""
        return await self.cli.ops_log_recent(lines)

    async def keeps_ops_lines(self) -> bool:
        """Whether the model's logging-config keeps ops' DEBUG event lines (asked once)."""
        if self._ops_kept is None:
            try:
                config = await self.cli.model_config()
            except HarnessError as error:
                log.warning("logging-config unknown (%s); reading ops' lines anyway", error)
                return True
            self._ops_kept = keeps_ops_lines(config.get("logging-config", ("", ""))[0])
        return self._ops_kept

    async def versions(self) -> Versions:
        """Client, controller and model agent versions, and each application's charm."""
        from harness.live.parse import parse_app_charms, parse_model_version

        client = controller = agent = None
        charms: tuple[CharmVersion, ...] = ()
        try:
            client = await self.cli.version_text()
        except HarnessError as error:
            log.warning("juju client version unknown: %s", error)
        try:
            controller = str((await self.cli.show_controller()).get("agent-version") or "")
        except HarnessError as error:
            log.warning("controller version unknown: %s", error)
        try:
            status = await self._status_text()
            agent = parse_model_version(status)
            charms = parse_app_charms(status)
        except HarnessError as error:
            log.warning("model status unknown: %s", error)
        settings: tuple[tuple[str, str], ...] = ()
        try:
            settings = await self.hook_settings()
        except HarnessError as error:
            log.warning("model config unknown: %s", error)
        return Versions(
            juju_client=client or None,
            juju_controller=controller or None,
            juju_agent=agent or None,
            charms=tuple(sorted(charms, key=lambda c: c.app)),
            juju_driver=self.driver,
            model_config=settings,
            model_config_from=self.config_from,
        )

    # The model's hook settings.

    async def hook_settings(self) -> tuple[tuple[str, str], ...]:
        """The effective HOOK_SETTINGS, each as (key, "value (source)")."""
        config = await self.cli.model_config()
        found = []
        for key in HOOK_SETTINGS:
            value, source = config.get(key, ("", "unset"))
            found.append((key, f"{value} ({source})" if source else value))
        return tuple(found)

    def adopt(
        self, *, created: bool, juju_defaults: bool, user_set: frozenset[str] = frozenset()
    ) -> None:
        """Say whether the harness created this model and whether it keeps Juju's defaults
        there (True) or the controller's model-defaults (``--inherit-model-config``).

        ``user_set``: keys the user's own model config gave the model (pytest-operator's
        ``--model-config``); those are what the user asked for, and are kept.
        """
        self.own_model = created and juju_defaults
        self.created = created
        self.user_set = user_set
        self.config_from = config_origin(created, juju_defaults, user_set)

    async def use_juju_defaults(self) -> dict[str, str]:
        """Set JUJU_DEFAULTS where the model differs (controller model-defaults); the changes."""
        config = await self.cli.model_config()
        changes = {
            key: value
            for key, value in JUJU_DEFAULTS.items()
            if config.get(key, ("", ""))[0] != value and key not in self.user_set
        }
        if changes:
            await self.cli.run("model-config", *(f"{k}={v}" for k, v in changes.items()))
            log.info("model %s set to Juju's defaults: %s", self.model_name, changes)
        return changes

    # After a node restart.

    async def wait_for_api(self) -> None:
        """Wait until the controller answers ``juju status`` again (a new CLI connection)."""

        async def api_answers() -> tuple[bool, str]:
            rc, _, err = await self.cli.raw("status", "--format", "json", timeout=60)
            tail = (err.strip().splitlines() or [""])[-1]
            return rc == 0, f"juju status exit {rc}: {tail}" if rc else "juju status answered"

        await wait_for(
            "the Juju controller API to answer again",
            api_answers,
            lambda seen: seen[0],
            timeout=self._reconnect_timeout,
            clock=self._clock,
            describe=lambda seen: seen[1],
            interval=5.0,
            retry_on=(ProcessTimeout, OSError),
        )

    # The model's logging-config: set only on a model the harness created, and restored.

    async def keep_hook_logging(self) -> str | None:
        """Make sure the model keeps the uniter's hook lines, and on a model the harness
        created, bound what settling costs the controller (``bounded_logging``).

        Returns the value set, or None when nothing was changed (then nothing is restored).
        A model the harness did not create is never changed: one whose logging-config drops
        hook lines is refused (HarnessError), since no hook could be seen to run there.
        """
        current = await self._read_logging()
        if not self.created:
            self._leave_logging(current)
            return None
        if "logging-config" in self.user_set:  # the user's --model-config asked for it
            wanted = with_hook_lines(current)
        else:
            wanted = bounded_logging(current)
        self._ops_kept = keeps_ops_lines(wanted or current)
        if wanted is None:
            log.info("logging-config %r keeps hook lines; left as it is", current)
            return None
        await self._write_logging(wanted)
        self._logging_change = (current, wanted)
        log.info("logging-config %r -> %r (hook lines kept, no chatter)", current, wanted)
        return wanted

    def _leave_logging(self, current: str) -> None:
        """A model the harness did not create: read, judged, never written."""
        name = self.model_name
        if not keeps_hook_lines(current):
            raise HarnessError(
                f"model {name}'s logging-config {current or '(empty)'!r} drops the uniter's "
                "hook lines, so no hook could be seen to run; the harness does not change a "
                "model it did not create",
                f"keep them: juju model-config -m {name} "
                f"logging-config='{with_hook_lines(current)}'",
            )
        self._ops_kept = keeps_ops_lines(current)
        chatty = chatty_modules(current)
        if chatty:
            log.warning(
                "model %s keeps %s below INFO (logging-config %r): each look at its "
                "debug-log makes the controller walk those lines, up to its whole stored "
                "log; left as it is (not created by the harness)",
                name,
                ", ".join(chatty),
                current,
            )

    async def restore_logging(self) -> None:
        """Put back the logging-config we replaced, unless someone changed it since."""
        if self._logging_change is None:
            return
        original, ours = self._logging_change
        now = await self._read_logging()
        if now != ours:
            log.info("logging-config changed by someone else (%r); not restoring", now)
        else:
            await self._write_logging(original or None)
        self._logging_change = None
