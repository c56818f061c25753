"""A world: one Juju controller on one MicroK8s node, served on the loopback.

It owns the models (``model.py``), the node's and the controller's state (up, stopping,
starting, away), and the servers: the Juju API (``juju_api.py``), the Kubernetes API
(``kube_api.py``) and the commands the shims forward (``commands.py``). It names itself in
one line (``identity``), which the harness must carry (``REPRO_REHEARSAL``) or every
command is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rehearsal.world.pacing import utcnow
from rehearsal.world.persona import Persona
from rehearsal.world.timing import STOP_START, Hostility

log = logging.getLogger(__name__)

CONTROLLER = "lab"  # the controller's name in the client store


@dataclass
class Ports:
    juju: int = 0
    kube: int = 0
    charmhub: int = 0


class World:
    def __init__(
        self, persona: Persona, *, scale: float, hostility: Hostility, folder: Path
    ) -> None:
        from rehearsal.world.model import WorldModel

        self.persona = persona
        self.scale = scale
        self.hostility = hostility
        self.folder = folder
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.ports = Ports()
        self.controller_uuid = "d3b4c3a1-5e2f-4c6a-9d7e-7265686561727a"
        self.models: dict[str, WorldModel] = {}
        self.controller_model_uuid = "c0a1b2c3-d4e5-4f60-8a7b-636f6e74726f6c"
        # The node and the controller. The controller is a pod on the node: it goes with
        # the node and comes back after it (``controller_back``; None: it does not).
        self.node_up = True
        self.node_stopped: datetime | None = None
        self.node_started: datetime | None = None
        self.kube_ready: datetime | None = utcnow()
        self.controller_back: datetime | None = utcnow()
        self.hung_once = False
        self._slots: dict[str, Any] = {}
        self._changed: asyncio.Event | None = None
        self.identity = self._identity()

    def _identity(self) -> str:
        hostile = "; ".join(self.hostility.names()) or "kind timing"
        return (
            f"rehearsal world (Juju {self.persona.version} and MicroK8s simulated, "
            f"harness/twin state; {hostile}; time x{self.scale:g}; pid {os.getpid()})"
        )

    # Time ---------------------------------------------------------------------------------

    def later(self, seconds: float, start: datetime | None = None) -> datetime:
        from datetime import timedelta

        return (start or utcnow()) + timedelta(seconds=seconds / self.scale)

    def real(self, world_seconds: float) -> float:
        return world_seconds / self.scale

    # The controller and the node ------------------------------------------------------------

    def controller_up(self, now: datetime | None = None) -> bool:
        now = now or utcnow()
        back = self.controller_back
        return self.node_up and back is not None and back <= now

    def controller_away(self, when: datetime) -> bool:
        """Whether the controller did not answer at ``when`` (a node restart's outage)."""
        if self.node_stopped is None or when < self.node_stopped:
            return False
        back = self.controller_back
        return back is None or when < back

    def kube_state(self, now: datetime | None = None) -> str:
        """``down`` (connections refused), ``starting`` (503) or ``up``."""
        now = now or utcnow()
        if not self.node_up:
            return "down"
        if self.kube_ready is None or now < self.kube_ready:
            return "starting"
        return "up"

    # Change notification (watches, AllWatcher) -------------------------------------------

    def notify(self) -> None:
        loop, event = self.loop, self._changed
        if loop is None or event is None:
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(event.set)

    async def changes(self) -> None:
        """Until something in the world changes (or a second passes)."""
        if self._changed is None:
            self._changed = asyncio.Event()
        event = self._changed
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), 1.0)
        event.clear()

    # Models -------------------------------------------------------------------------------

    def add_model(self, name: str, owner: str = "admin") -> Any:
        from rehearsal.world.model import WorldModel

        model = WorldModel(self, name, owner)
        self.models[name] = model
        self.notify()
        return model

    def model_named(self, name: str | None) -> Any:
        """A model by ``name``, ``owner/name`` or ``controller:owner/name``."""
        if not name:
            return None
        short = name.rsplit(":", 1)[-1].rsplit("/", 1)[-1]
        return self.models.get(short)

    def model_by_uuid(self, model_uuid: str) -> Any:
        return next((m for m in self.models.values() if m.uuid == model_uuid), None)

    def remember_model(self, model: Any) -> None:
        """A model made through the API goes into the world's own client store, as the
        client that made it would write it (libjuju finds a model's uuid there)."""
        self._store_model(model.name, {"uuid": model.uuid, "type": "caas"})

    def forget_model(self, name: str) -> None:
        self._store_model(name, None)

    def _store_model(self, name: str, entry: dict[str, str] | None) -> None:
        import yaml

        path = self.folder / "juju-data" / "models.yaml"
        if not path.exists():
            return
        data = yaml.safe_load(path.read_text()) or {}
        models = data.setdefault("controllers", {}).setdefault(CONTROLLER, {})
        listed = models.setdefault("models", {}) or {}
        models["models"] = listed
        if entry is None:
            listed.pop(f"admin/{name}", None)
        else:
            listed[f"admin/{name}"] = entry
        path.write_text(yaml.safe_dump(data))

    def charm_source(self, name: str) -> Any:
        from harness.twin.lab import default_charms

        return default_charms()[name]

    def remove_model(self, name: str) -> None:
        model = self.models.pop(name, None)
        if model is not None:
            model.life = "dead"
        self.notify()

    # MicroK8s stop and start ----------------------------------------------------------------

    def listener(self, name: str, slot: Any) -> None:
        """Register a server the node takes down with it (``Listener``)."""
        self._slots[name] = slot

    async def stop_node(self) -> None:
        """``microk8s stop``: the kubelet stops every container, the API server goes, and the
        controller (a pod on this node) with it."""
        await asyncio.sleep(self.real(STOP_START) / 2)
        with self.lock:
            self.node_up = False
            self.node_stopped = utcnow()
            self.controller_back = None
            self.kube_ready = None
        for slot in self._slots.values():
            slot.close()
        for model in list(self.models.values()):
            model.submit("node-restart", model.twin.node_stop, queued=False)
        self.notify()
        await asyncio.sleep(self.real(STOP_START) / 2)

    async def start_node(self) -> None:
        """``microk8s start``: the API server answers 503 for a while, the same pods start
        again, and the controller answers after ``controller_outage`` (never, when it stays
        down); the unit agents dial it again after that."""
        if self.node_up:
            return
        await asyncio.sleep(self.real(STOP_START))
        hostility = self.hostility
        with self.lock:
            now = utcnow()
            self.node_up = True
            self.node_started = now
            self.kube_ready = self.later(hostility.kube_starting, now)
            self.controller_back = (
                None if hostility.stays_down else self.later(hostility.controller_outage, now)
            )
        self._slots["kube"].open_soon(0.0)
        if self.controller_back is not None:
            self._slots["juju"].open_soon((self.controller_back - now).total_seconds())
        for model in list(self.models.values()):
            model.submit("node-restart", model.twin.node_start, queued=False)
        self.notify()
