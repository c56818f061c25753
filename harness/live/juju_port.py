"""The libjuju JujuPort: python-libjuju's ``Model`` plus the ``juju`` CLI for the same model.

libjuju does what it does well and the same way on 2.9 and 3.x: deploy, integrate
(``Model.integrate`` on libjuju 3, ``add_relation`` on 2.9), application config, the
model's logging-config and reconnecting after a node restart. ``refresh`` is the CLI's.
Everything both drivers do alike (status, show-unit, actions, debug-log, trust, scale,
versions, the model's hook settings) is the ``CLIModel`` this port holds.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from harness.common.errors import HarnessError, UnknownName, WaitTimeout
from harness.common.observations import Databag, UnitStatus
from harness.common.versions import Versions
from harness.lab.ports import ActionResult, AppSpec, Clock
from harness.lab.waiting import wait_for
from harness.live.charm_refusal import deploy_refusal, refresh_refusal
from harness.live.cli_model import CLIModel
from harness.live.juju_cli import JujuCLI
from harness.live.libjuju import (
    ControllerLink,
    config_text,
    connection_open,
    installed_libjuju,
    libjuju_major,
)
from harness.live.local_charm import absolute_path, is_local_charm

log = logging.getLogger(__name__)

# Ubuntu bases as Juju 2.9 (and libjuju 2.9) still spell them: series names.
SERIES = {
    "ubuntu@20.04": "focal",
    "ubuntu@22.04": "jammy",
    "ubuntu@24.04": "noble",
}

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
        self.cli_model = CLIModel(
            cli,
            model_name=model_name,
            driver=self.driver,
            clock=clock,
            reconnect_timeout=reconnect_timeout,
            read_logging=self._logging_config,
            write_logging=self._set_logging_config,
        )
        self._connect_name = connect_name or model_name
        self._clock = clock
        self._reconnect_timeout = reconnect_timeout
        self._libjuju_major = libjuju_major(libjuju_version or installed_libjuju())
        self._controller = controller
        self._logging_checked = False  # keep_hook_logging has run (deploy checks it first)

    @property
    def model_name(self) -> str:
        return self.cli_model.model_name

    @property
    def own_model(self) -> bool:
        """A model the harness made for itself: its hook settings are set to Juju's defaults."""
        return self.cli_model.own_model

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

    # Through the CLI.

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

    # After a node restart.

    async def reconnect(self) -> None:
        """Wait until the controller answers ``juju status``, then reconnect libjuju."""
        await self.wait_for_api()
        await self._reconnect_libjuju(self._reconnect_timeout)

    async def wait_for_api(self) -> None:
        await self.cli_model.wait_for_api()

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
        the owner is told to forget the model rather than call its dead connection; before
        that, a model the harness created and nobody asked to keep is destroyed through
        the ``juju`` CLI (bounded). A model the harness did not create (a user's
        ``--model``) or one its owner keeps (``--keep-models``) is never destroyed.
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
        if not self.cli_model.created or link.keeps_model():
            why = "it is kept" if link.keeps_model() else "the harness did not create it"
            log.warning("model %s is left as it is (%s)", self._connect_name, why)
            link.forget_model()
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

    # The model's logging-config, through libjuju (reset through the CLI).

    async def keep_hook_logging(self) -> str | None:
        """Raise the uniter's modules to INFO if the model would drop hook lines (the new
        value, or None when the current one keeps them already)."""
        self._logging_checked = True
        return await self.cli_model.keep_hook_logging()

    async def restore_logging(self) -> None:
        """Put back the logging-config we replaced, unless someone changed it since."""
        await self.cli_model.restore_logging()

    async def _logging_config(self) -> str:
        config = await self.model.get_config()
        return config_text(config.get("logging-config"))

    async def _set_logging_config(self, value: str | None) -> None:
        """Set the model's logging-config, or reset it to Juju's default (None)."""
        if value:
            await self.model.set_config({"logging-config": value})
        else:
            await self.cli.run("model-config", "--reset", "logging-config")
