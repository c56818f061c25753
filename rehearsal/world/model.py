"""One Juju model of a world: a twin behind it, its log, its settings, its operations.

Every change a client asks for (deploy, relate, config, a pod deleted, a template patched,
an action) is an *operation*: a thread that holds the world's lock while it changes the
twin and lets go of it whenever the pacer makes it wait for the world's next moment
(``pacing.py``). A request that starts one returns when the operation first waits (Juju
has accepted it: ``juju deploy`` returns long before the hooks have run) or ends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from harness.catalogue import load
from harness.common.errors import HarnessError
from harness.lab.ports import AppSpec
from harness.twin.charms import CharmSource
from harness.twin.juju import TwinJuju
from harness.twin.lab import default_charms
from harness.twin.world import Twin
from rehearsal.world.logstore import LogStore, agent_keeps
from rehearsal.world.pacing import Pacer, Stopped, WorldClock, utcnow
from rehearsal.world.timing import AGENT_RECONNECT

if TYPE_CHECKING:
    from rehearsal.world.world import World

T = TypeVar("T")
log = logging.getLogger(__name__)


# What `juju model-config` shows on a model just made (environs/config/config.go defaults).
# The controller's model-defaults are a CI bootstrap's (concierge's microk8s preset turns
# hook retries off), so the harness's own models are set back to Juju's defaults.
def default_config(name: str, model_uuid: str, series: str) -> dict[str, tuple[Any, str]]:
    config: dict[str, tuple[Any, str]] = {
        "name": (name, "model"),
        "type": ("kubernetes", "model"),
        "uuid": (model_uuid, "model"),
        "logging-config": ("<root>=INFO", "model"),
        "automatically-retry-hooks": (False, "controller"),
        "update-status-hook-interval": ("5m", "default"),
        "agent-version": ("", "model"),
        "development": (False, "default"),
        "default-space": ("", "default"),
        "mode": ("requires-prompts", "default"),
        "charmhub-url": ("https://api.charmhub.io", "default"),
    }
    if series == "2.9":
        config["default-series"] = ("focal", "default")
    else:
        config["default-base"] = ("", "default")
    return config


@dataclass
class AppInfo:
    """What the controller keeps of an application beyond the twin's record."""

    charm: str  # Charmhub name or local charm name
    source: str  # "charm-hub" or "local"
    revision: int
    channel: str | None
    base: str = "ubuntu@22.04"


@dataclass
class Op:
    """One operation's thread, as its caller sees it."""

    cause: str
    future: concurrent.futures.Future[Any] = field(default_factory=concurrent.futures.Future)
    waiting: threading.Event = field(default_factory=threading.Event)


class WorldModel:
    """One model (and its Kubernetes namespace, of the same name)."""

    def __init__(self, world: World, name: str, owner: str = "admin") -> None:
        self.world = world
        self.name = name
        self.owner = owner
        self.uuid = str(uuid.uuid4())
        self.created = utcnow()
        self.life = "alive"
        self.config = default_config(name, self.uuid, world.persona.series)
        self.config["agent-version"] = (world.persona.version, "model")
        self.clock = WorldClock()
        folder: Path = world.folder / "models" / name
        self.charms: dict[str, CharmSource] = default_charms()
        self.twin = Twin(
            folder,
            juju_version=world.persona.juju_version,
            expectations=load().expect,
            charms=self.charms,
            clock=self.clock,
        )
        self.twin_juju = TwinJuju(self.twin, self.charms)
        self.logs = LogStore(in_arrival_order=not world.persona.stored_in_mongo)
        self.pacer = Pacer(self)
        self.apps: dict[str, AppInfo] = {}
        self.held_once = False
        self.actions = 0
        self.revision = 1  # resourceVersion of everything in the namespace
        self.statefulset_uids: dict[str, str] = {}
        self._local = threading.local()
        # One operation at a time, in the order they were asked for (see ``submit``).
        self._queue = threading.Condition()
        self._tickets = itertools.count()
        self._serving = 0
        self.relations_asked: set[frozenset[str]] = set()

    # The agents' log ----------------------------------------------------------------------

    def agent_log(
        self,
        entity: str,
        when: datetime,
        level: str,
        module: str,
        message: str,
        *,
        not_before: datetime | None = None,
    ) -> None:
        """A record an agent logs: dropped by its logging-config, else stored (in a batch
        of its connection when the world is hostile; held back to ``not_before``)."""
        config = str(self.config["logging-config"][0])
        if not agent_keeps(config, module, level):
            return
        # While the controller is away the agent keeps its records (worker/logsender's
        # buffered writer) and sends them once it has dialled the controller again.
        if self.world.controller_away(when):
            back = self.world.controller_back
            if back is None:
                return  # it never comes back: the records never reach a store
            again = self.pacer.later(AGENT_RECONNECT, back)
            not_before = max(not_before or again, again)
        batched = self.world.hostility.batches
        self.logs.write(
            entity, when, level, module, message, not_before=not_before, batched=batched
        )

    def agent_start(self, entity: str, when: datetime) -> None:
        """A unit agent starting: k8s sidecar agents log these on every start
        (tests/data/samples: debuglog_3.6.3_k8s_alertmanager_pod_restart_reboot_detected)."""
        persona = self.world.persona
        unit = entity[len("unit-") :].rpartition("-")
        self.agent_log(
            entity,
            when,
            "INFO",
            "juju.cmd",
            f"running containerAgent [{persona.version} rehearsal gc {persona.go}]",
        )
        self.agent_log(
            entity,
            when + timedelta(milliseconds=40),
            "INFO",
            "juju.worker.uniter",
            f'unit "{unit[0]}/{unit[2]}" started',
        )

    # Kubernetes identities ------------------------------------------------------------------

    def statefulset_uid(self, app: str) -> str:
        if app not in self.statefulset_uids:
            self.statefulset_uids[app] = str(uuid.uuid5(uuid.UUID(self.uuid), f"sts/{app}"))
        return self.statefulset_uids[app]

    def pod_ip(self, pod: Any) -> str:
        """A pod's address on the node's pod network (a new pod, a new address)."""
        digest = uuid.UUID(pod.uid).int
        return f"10.1.{digest % 250 + 1}.{(digest >> 8) % 250 + 2}"

    # Operations ---------------------------------------------------------------------------

    def changed(self) -> None:
        self.revision += 1
        self.world.notify()

    def yielded(self) -> None:
        op: Op | None = getattr(self._local, "op", None)
        if op is not None:
            op.waiting.set()

    def submit(self, cause: str, work: Callable[[], Any], *, queued: bool = True) -> Op:
        """Run ``work`` in an operation thread (under the world's lock, paced).

        Operations on a model are carried out one after the other, in the order they were
        asked for (``queued``), as the controller and the StatefulSet controller take
        them: a pod deleted while a template roll is under way meets the roll, never
        interleaves its hooks with it. An operation waiting for its turn counts as
        accepted. Actions (``queued=False``) run between hooks, and a node going down or
        up does not wait for anything.
        """
        op = Op(cause)
        ticket = next(self._tickets) if queued else None  # taken in the caller's order

        def run() -> None:
            self._local.op = op
            if ticket is not None and not self._wait_turn(ticket, op):
                return
            try:
                with self.world.lock, self.pacer.operation(cause):
                    value = work()
            except Stopped:
                op.future.cancel()
            except BaseException as error:  # the caller gets it, and the world's log
                log.warning("%s operation on %s failed: %s", cause, self.name, error)
                op.future.set_exception(error)
            else:
                op.future.set_result(value)
            finally:
                if ticket is not None:
                    with self._queue:
                        self._serving = ticket + 1
                        self._queue.notify_all()
                op.waiting.set()
                self.changed()

        threading.Thread(target=run, name=f"{self.name}:{cause}", daemon=True).start()
        return op

    def _wait_turn(self, ticket: int, op: Op) -> bool:
        """Until every operation asked for before this one has ended (False: stopping)."""
        with self._queue:
            if self._serving != ticket:
                op.waiting.set()  # accepted: it waits its turn
            while self._serving != ticket:
                if self.world.stopping.is_set():
                    op.future.cancel()
                    return False
                self._queue.wait(0.5)
        return True

    async def accepted(self, op: Op) -> None:
        """Until the operation first waits or ends; its error, if it failed before that."""
        await asyncio.get_running_loop().run_in_executor(None, op.waiting.wait)
        if op.future.done() and not op.future.cancelled():
            error = op.future.exception()
            if error is not None:
                raise error

    async def finished(self, op: Op, timeout: float | None = None) -> Any:
        return await asyncio.wait_for(asyncio.wrap_future(op.future), timeout)

    def run_now(self, work: Callable[[], T]) -> T:
        """Read or change the twin in the caller's thread, under the lock (no pacing)."""
        with self.world.lock:
            return work()

    # Deploying and removing -----------------------------------------------------------------

    def remove_app(self, name: str) -> None:
        """An application destroyed (pytest-operator's reset): gone with its relations."""
        twin = self.twin
        twin.records.apps.pop(name, None)
        twin.records.relations[:] = [r for r in twin.records.relations if not r.involves(name)]
        self.apps.pop(name, None)
        self.changed()

    def check_deploy(self, spec: AppSpec) -> None:
        """What the controller refuses at once (the operation is queued after this)."""
        from harness.scenario.charm_assumes import simulated_refusal

        if spec.app in self.apps or spec.app in self.twin.records.apps:
            raise HarnessError(f'cannot add application "{spec.app}": application already exists')
        source = self.charms.get(spec.charm)
        if source is None:
            raise HarnessError(f'charm or bundle not found "{spec.charm}"')
        refused = simulated_refusal(source.meta, str(self.world.persona.juju_version))
        if refused is not None:
            raise refused

    def check_integrate(self, endpoint_a: str, endpoint_b: str) -> None:
        ends = []
        for given in (endpoint_a, endpoint_b):
            app, _, endpoint = given.partition(":")
            info = self.apps.get(app)
            if info is None:
                raise HarnessError(f'application "{app}" not found')
            meta = self.charms[info.charm].meta
            found = next(
                (
                    (role, spec.get("interface"))
                    for role in ("provides", "requires")
                    for name, spec in (meta.get(role) or {}).items()
                    if name == endpoint
                ),
                None,
            )
            if found is None:
                raise HarnessError(f'application "{app}" has no "{endpoint}" relation')
            ends.append(found)
        if ends[0][1] != ends[1][1] or {ends[0][0], ends[1][0]} != {"provides", "requires"}:
            raise HarnessError(f'no relations found between "{endpoint_a}" and "{endpoint_b}"')
        pair = frozenset((endpoint_a, endpoint_b))
        if pair in self.relations_asked:
            raise HarnessError(f'relation "{endpoint_a} {endpoint_b}" already exists')
        self.relations_asked.add(pair)

    def deploy(self, spec: AppSpec, info: AppInfo) -> Op:
        self.check_deploy(spec)
        self.apps[spec.app] = info

        def work() -> None:
            try:
                self.twin_juju.deploy_now(spec)
            except BaseException:
                if spec.app not in self.twin.records.apps:
                    self.apps.pop(spec.app, None)
                raise

        return self.submit("deploy", work)
