"""The live JujuPort: python-libjuju's ``Model`` plus the ``juju`` CLI for the same model.

libjuju does what it does well and the same way on 2.9 and 3.x: deploy, integrate
(``Model.integrate`` on libjuju 3, ``add_relation`` on 2.9) and application config. The CLI
is used where its output is the stable interface: ``status``, ``show-unit``, actions,
``debug-log``, ``trust``, ``refresh`` and ``scale-application``. Raw output never leaves
this module: the parsers in ``harness.live.parse`` turn it into frozen values.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from harness.common.errors import HarnessError, UnknownName, WaitTimeout
from harness.common.logging_config import keeps_ops_lines
from harness.common.observations import Databag, UnitStatus
from harness.common.versions import CharmVersion, JujuVersion, Versions
from harness.lab.ports import ActionResult, AppSpec, Clock
from harness.lab.waiting import wait_for
from harness.live.charm_refusal import deploy_refusal, refresh_refusal
from harness.live.juju_cli import JujuCLI, JujuCLIError
from harness.live.libjuju import (
    ControllerLink,
    config_text,
    connection_open,
    installed_libjuju,
    libjuju_major,
)
from harness.live.local_charm import absolute_path, is_local_charm
from harness.live.model_config import (
    CONFIG_EXISTING,
    HOOK_SETTINGS,
    JUJU_DEFAULTS,
    config_origin,
    with_hook_lines,
)
from harness.live.process import ProcessTimeout

log = logging.getLogger(__name__)

# Ubuntu bases as Juju 2.9 (and libjuju 2.9) still spell them: series names.
SERIES = {
    "ubuntu@20.04": "focal",
    "ubuntu@22.04": "jammy",
    "ubuntu@24.04": "noble",
}


def _ordinal(unit: str) -> int:
    tail = unit.rpartition("/")[2]
    return int(tail) if tail.isdigit() else -1


# One libjuju connect (websocket, login, facades) that has not answered in this long is
# cancelled and made again: the login RPC's reply is awaited with no timeout
# (Connection.rpc -> _recv, juju/client/connection.py 3.6.1.3 and 2.9.49.1).
CONNECT_TIMEOUT = 120.0


class LiveJujuPort:
    """One Juju model, through a libjuju ``Model`` and a ``JujuCLI`` bound to it."""

    driver = "libjuju"  # recorded in the evidence (versions.juju_driver)

    def __init__(
        self,
        model: Any,
        cli: JujuCLI,
        *,
        model_name: str,
        clock: Clock,
        connect_name: str | None = None,
        reconnect_timeout: float = 900.0,
        libjuju_version: str | None = None,
        controller: ControllerLink | None = None,
    ) -> None:
        self.model = model  # juju.model.Model (ops_test.model when made by the fixtures)
        self.cli = cli
        self._model_name = model_name
        self._connect_name = connect_name or model_name
        self._clock = clock
        self._reconnect_timeout = reconnect_timeout
        self._libjuju_major = libjuju_major(libjuju_version or installed_libjuju())
        self._controller = controller
        # A model the harness made for itself: its hook settings are set to Juju's defaults.
        self.own_model = False
        self.user_set: frozenset[str] = frozenset()
        self.config_from = CONFIG_EXISTING  # recorded in the evidence (see config_origin)
        self._logging_change: tuple[str, str] | None = None  # (original, ours)
        self._logging_checked = False
        self._ops_kept: bool | None = None  # logging-config keeps ops' event lines
        self._juju_major: int | None = None

    @property
    def model_name(self) -> str:
        return self._model_name

    # Lifecycle through libjuju.

    async def deploy(self, spec: AppSpec) -> None:
        if not self._logging_checked:
            # A safety net for labs nobody opened: hook lines must be kept before hooks run.
            await self.keep_hook_logging()
        local = is_local_charm(spec.charm)
        kwargs: dict[str, Any] = {
            "application_name": spec.app,
            "num_units": spec.units,
            "trust": spec.trust,
        }
        if spec.channel and not local:
            kwargs["channel"] = spec.channel
        if spec.config:
            kwargs["config"] = dict(spec.config)
        if spec.resources:
            # A bundle's numeric resource is a Charmhub revision; libjuju wants it an int.
            kwargs["resources"] = {
                k: int(v) if v.isdigit() else v for k, v in spec.resources.items()
            }
        if spec.revision is not None and not local:
            kwargs["revision"] = spec.revision
        if spec.constraints:
            kwargs["constraints"] = spec.constraints
        if spec.storage:
            kwargs["storage"] = dict(spec.storage)
        if spec.base:
            # libjuju 2.9.49.1's Model.deploy accepts `base` and never reads it (juju/model.py):
            # a 2.9 deploy needs the series. libjuju 3 takes the base.
            if self._libjuju_major < 3:
                kwargs["series"] = SERIES.get(spec.base, spec.base)
            else:
                kwargs["base"] = spec.base
        charm = absolute_path(spec.charm) if local else spec.charm
        log.info("deploy %s as %s", charm, spec.app)
        with deploy_refusal(spec):
            await self.model.deploy(charm, **kwargs)

    async def integrate(self, endpoint_a: str, endpoint_b: str) -> None:
        # libjuju 3 has Model.integrate; 2.9 only add_relation.
        if hasattr(self.model, "integrate"):
            await self.model.integrate(endpoint_a, endpoint_b)
        else:
            await self.model.add_relation(endpoint_a, endpoint_b)

    async def set_config(self, app: str, values: Mapping[str, str]) -> None:
        application = self.model.applications.get(app)
        if application is None:
            known = ", ".join(sorted(self.model.applications)) or "none"
            raise UnknownName(
                f"application {app} does not exist in model {self.model_name}",
                f"applications: {known}",
            )
        await application.set_config({k: str(v) for k, v in values.items()})

    # Lifecycle through the CLI (its behaviour is the documented one on every version).

    async def trust(self, app: str) -> None:
        await self.cli.trust(app)

    async def refresh(
        self,
        app: str,
        *,
        path: str | None = None,
        channel: str | None = None,
        resources: Mapping[str, str] | None = None,
    ) -> None:
        with refresh_refusal(app, path, channel):
            await self.cli.refresh(app, path=path, channel=channel, resources=resources)

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

    async def reconnect(self) -> None:
        """Wait until the controller answers ``juju status``, then reconnect libjuju."""
        await self.wait_for_api()
        await self._reconnect_libjuju(self._reconnect_timeout)

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

    async def _reconnect_libjuju(self, timeout: float) -> None:
        """Reconnect the model, then the controller connection its owner tears down with.

        A node restart leaves both dead for good: libjuju's watcher tries one reconnect while
        the controller is down, and that failure leaves ``close_called`` set, after which
        ``Connection.reconnect()`` returns at once (juju/client/connection.py, 2.9.49.1 and
        3.6.1.3). Only a new connection (``connect``) works.
        """

        async def connect() -> bool:
            await self.model.disconnect()
            await self.model.connect(self._connect_name)
            return True

        await wait_for(
            f"libjuju to reconnect to model {self._connect_name}",
            connect,
            bool,
            timeout=timeout,
            clock=self._clock,
            interval=5.0,
            retry_on=(Exception,),
            look_timeout=CONNECT_TIMEOUT,
        )
        link = self._controller
        if link is None or link.is_open():
            return

        async def connect_controller() -> bool:
            await link.reconnect()
            return link.is_open()

        await wait_for(
            "pytest-operator's controller connection to reconnect",
            connect_controller,
            bool,
            timeout=timeout,
            clock=self._clock,
            interval=5.0,
            retry_on=(Exception,),
            look_timeout=CONNECT_TIMEOUT,
        )

    async def ready_for_teardown(self, timeout: float = 300.0) -> None:
        """Make sure whoever destroys this model can: after a node restart it may not.

        If the libjuju connections are dead (a run that stopped before ``reconnect``), they
        are made again, within ``timeout``. If the controller will not take a connection,
        the model is destroyed through the ``juju`` CLI (bounded), and the owner is told to
        forget it rather than call its dead connection.
        """
        link = self._controller
        if connection_open(self.model) and (link is None or link.is_open()):
            return
        log.warning("libjuju connections are down before teardown; reconnecting")
        try:
            await self._reconnect_libjuju(timeout)
            return
        except WaitTimeout as error:
            log.warning("%s", error)
        if link is None:
            return
        try:
            await self.cli.destroy_model(self._connect_name, timeout=timeout)
            log.warning("model %s destroyed through the juju CLI", self._connect_name)
        except HarnessError as error:
            log.error(
                "model %s could not be destroyed (%s); remove it with: "
                "juju destroy-model %s --force --no-wait --destroy-storage",
                self._connect_name,
                error,
                self._connect_name,
            )
        link.forget_model()

    # The model's logging-config: keep hook lines, restore only what we changed.

    async def keep_hook_logging(self) -> str | None:
        """Raise the uniter's modules to INFO if the model would drop hook lines.

        Returns the new value, or None when the current one keeps them already (then
        nothing is changed, and nothing will be restored).
        """
        self._logging_checked = True
        current = await self._logging_config()
        wanted = with_hook_lines(current)
        self._ops_kept = keeps_ops_lines(wanted or current)
        if wanted is None:
            log.info("logging-config %r keeps hook lines; left as it is", current)
            return None
        await self._set_logging_config(wanted)
        self._logging_change = (current, wanted)
        log.info("logging-config %r -> %r so hook lines are kept", current, wanted)
        return wanted

    async def restore_logging(self) -> None:
        """Put back the logging-config we replaced, unless someone changed it since."""
        if self._logging_change is None:
            return
        original, ours = self._logging_change
        now = await self._logging_config()
        if now != ours:
            log.info("logging-config changed by someone else (%r); not restoring", now)
        else:
            await self._set_logging_config(original or None)
        self._logging_change = None

    async def _logging_config(self) -> str:
        config = await self.model.get_config()
        return config_text(config.get("logging-config"))

    async def _set_logging_config(self, value: str | None) -> None:
        """Set the model's logging-config, or reset it to Juju's default (None)."""
        if value:
            await self.model.set_config({"logging-config": value})
        else:
            await self.cli.run("model-config", "--reset", "logging-config")
