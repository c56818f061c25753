"""A Juju controller that goes down with the node, behind python-libjuju's real Connection.

The connections here are real ``juju.client.connection.Connection`` objects (built without
a socket): their ``rpc``, ``reconnect``, ``close`` and ``Monitor`` are libjuju's own code, on
whichever libjuju is installed (3.6 in ``tox -e unit``, 2.9 in ``tox -e libjuju29``). Only
the websocket and the login are fakes. When the node stops, every open connection's
websocket closes and its watcher tries one reconnect, which fails while the controller is
down; libjuju's ``close`` has then set ``close_called``, so every later ``reconnect()``
returns at once and every RPC raises, until someone makes a new connection (``connect``).
That is what pytest-operator's ``ops_test._controller`` lives through in a node restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import create_autospec

import websockets
from juju.client.connection import Connection, Monitor
from juju.controller import Controller
from juju.model import Model

try:  # websockets >= 14
    from websockets.protocol import State
except ImportError:  # pragma: no cover - websockets 13 (libjuju 2.9's)
    State = None


def connection_closed() -> Exception:
    return websockets.exceptions.ConnectionClosedError(None, None)


class FakeWebSocket:
    """Just enough of a websockets client connection for libjuju's Connection."""

    def __init__(self, world: ControllerWorld) -> None:
        self.world = world
        self.is_closed = False

    @property
    def state(self) -> Any:
        if State is None:
            return None
        return State.CLOSED if self.is_closed else State.OPEN

    @property
    def open(self) -> bool:  # websockets < 14, read by libjuju 2.9's Monitor
        return not self.is_closed

    @property
    def closed(self) -> bool:
        return self.is_closed

    async def send(self, message: str) -> None:
        if self.is_closed or not self.world.up:
            self.is_closed = True
            raise connection_closed()
        self.world.sent.append(json.loads(message))

    async def close(self) -> None:
        self.is_closed = True


@dataclass
class ControllerWorld:
    """The controller and its models; ``up`` goes False while the node is stopped."""

    up: bool = True
    models: list[str] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    connects: int = 0

    async def open_connection(self) -> Connection:
        """A logged-in libjuju Connection (real class, fake socket), or refused when down."""
        if not self.up:
            raise ConnectionRefusedError(111, "Connection refused")
        self.connects += 1
        conn: Connection = object.__new__(Connection)
        loop = asyncio.get_running_loop()
        attrs: dict[str, Any] = {
            "_ws": FakeWebSocket(self),
            "_pinger_task": None,
            "_receiver_task": loop.create_future(),  # a live receiver, never done
            "_debug_log_task": None,
            "is_debug_log_connection": False,
            "proxy": None,
            "endpoint": "10.152.183.10:17070",
            "endpoints": None,
            "cacert": "",
            "facades": {"ModelManager": 9, "Controller": 11, "Application": 19},
            "__request_id__": 0,
            "messages": {},
        }
        for name, value in attrs.items():
            object.__setattr__(conn, name, value)
        conn.monitor = Monitor(conn)

        async def login(endpoints: Any) -> Any:
            # A watcher's reconnect: refused while the controller is down.
            if not self.up:
                raise ConnectionRefusedError(111, "Connection refused")
            raise AssertionError("a dead libjuju connection never logs in again by itself")

        async def recv(request_id: int) -> dict[str, Any]:
            return {"request-id": request_id, "response": {}}

        object.__setattr__(conn, "_connect_with_login", login)
        object.__setattr__(conn, "_connect", login)
        object.__setattr__(conn, "_recv", recv)
        self.connections.append(conn)
        return conn

    async def stop(self) -> None:
        """The node stops: sockets close, each watcher's one reconnect fails."""
        self.up = False
        for conn in self.connections:
            ws = conn._ws
            if ws is not None:
                ws.is_closed = True
            with contextlib.suppress(Exception):
                await conn.reconnect()

    def start(self) -> None:
        self.up = True


class _Link:
    """The one Connection a libjuju Model or Controller holds, on the world."""

    def __init__(self, world: ControllerWorld) -> None:
        self.world = world
        self.conn: Connection | None = None

    async def connect(self, *args: Any, **kwargs: Any) -> None:
        await self.disconnect()  # as Controller.connect and Model.connect do first
        self.conn = await self.world.open_connection()

    async def disconnect(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    def connection(self) -> Connection:
        if self.conn is None:
            raise RuntimeError("not connected")
        return self.conn

    def wire(self, mock: Any) -> None:
        mock.connect.side_effect = self.connect
        mock.disconnect.side_effect = self.disconnect
        mock.connection.side_effect = self.connection
        mock.is_connected.side_effect = lambda: self.conn is not None


def controller(world: ControllerWorld) -> Any:
    """An autospec of libjuju's Controller whose calls go through a real Connection."""
    ctl = create_autospec(Controller, instance=True)
    link = _Link(world)
    link.wire(ctl)

    async def destroy_model(*names: str, **kwargs: Any) -> None:
        await link.connection().rpc({"type": "ModelManager", "request": "DestroyModels"})
        for name in names:
            if name in world.models:
                world.models.remove(name)

    async def list_models(*args: Any, **kwargs: Any) -> list[str]:
        await link.connection().rpc({"type": "ModelManager", "request": "ListModels"})
        return list(world.models)

    ctl.destroy_model.side_effect = destroy_model
    ctl.list_models.side_effect = list_models
    return ctl


def model(world: ControllerWorld, name: str) -> Any:
    """An autospec of libjuju's Model on a real Connection, empty of applications."""
    m = create_autospec(Model, instance=True)
    m.applications = {}
    m.machines = {}
    m.units = {}
    m.info = SimpleNamespace(name=name)
    _Link(world).wire(m)
    return m


async def real_model(world: ControllerWorld, name: str, jujudata: Path) -> Model:
    """python-libjuju's own ``Model``, not a stand-in: connected (its Connector holds a
    real Connection on the world) with the ``ModelInfo`` a connect leaves, so ``info``,
    ``disconnect`` and ``connect`` are libjuju's own code. A connect made later reads the
    client store at ``jujudata`` (empty: it fails, as against a controller that is gone).
    No fixed ``info``: after a disconnect 3.6.1.3 raises JujuModelError on it and 2.9.49.1
    returns None (its ``.name`` then an AttributeError), as pytest-operator meets them."""
    from juju.client import client as juju_client
    from juju.client.jujudata import FileJujuData

    store = FileJujuData()
    store.path = str(jujudata)  # not the user's ~/.local/share/juju
    model = Model(jujudata=store)
    model._connector._connection = await world.open_connection()
    model._info = juju_client.ModelInfo(name=name, uuid="5f1c3a7e-0000-4000-8000-00000000ab12")
    return model


def ops_test_for(
    world: ControllerWorld, tmp_path: Path, model_name: str, libjuju_model: Model | None = None
) -> Any:
    """pytest-operator's real OpsTest, set up as ``_setup_model`` leaves it, on ``world``
    (its model ``libjuju_model`` if given: see ``real_model``)."""
    from pytest_operator.plugin import ModelState, OpsTest

    option = SimpleNamespace(
        destructive_mode=False,
        model_alias="main",
        cloud=None,
        model=None,
        keep_models=False,
        destroy_storage=True,
        juju_max_frame_size=None,
        charmcraft_args=[],
        controller="mk8s",
        model_config=None,
        crash_dump="never",
        no_crash_dump=False,
        crash_dump_output=None,
        crash_dump_args="",
    )
    request = SimpleNamespace(config=SimpleNamespace(option=option))
    ops_test = OpsTest(request, tmp_path_factory=None)
    ops_test.jujudata = SimpleNamespace(path=str(tmp_path / "juju-data"))
    ops_test._controller = controller(world)
    world.models.append(model_name)
    ops_test._models["main"] = ModelState(
        model=libjuju_model if libjuju_model is not None else model(world, model_name),
        keep=False,
        destroy_storage=True,
        controller_name="mk8s",
        cloud_name="microk8s",
        model_name=model_name,
    )
    ops_test._current_alias = "main"

    async def run(*cmd: str, **kwargs: Any) -> tuple[int, str, str]:
        # log_model's `juju status` / `juju debug-log` in forget_model
        if not world.up:
            return 1, "", "ERROR cannot connect to API: connection refused\n"
        return 0, "", ""

    ops_test.run = run
    return ops_test
