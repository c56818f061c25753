"""``python -m rehearsal.world --juju 3.6 --scale 10 --dir DIR``: start a world.

It writes ``DIR/world.json`` (its name for itself, its ports, where the shims, the client
store and the kubeconfig are) and prints ``READY <that path>``, then serves until SIGTERM
or SIGINT, and on either ends every thread and server it started.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from rehearsal.world import commands
from rehearsal.world.juju_api import PASSWORD, JujuAPI, charmhub
from rehearsal.world.kube_api import KubeAPI, status
from rehearsal.world.persona import PERSONAS, persona
from rehearsal.world.setup import (
    KUBE_TOKEN,
    write_client_store,
    write_description,
    write_kubeconfig,
    write_shims,
)
from rehearsal.world.timing import hostility
from rehearsal.world.tls import make_certificates
from rehearsal.world.wire import Connection, Listener, Request, Response
from rehearsal.world.world import CONTROLLER, World

log = logging.getLogger("rehearsal.world")


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m rehearsal.world")
    parser.add_argument("--juju", choices=sorted(PERSONAS), default="3.6")
    parser.add_argument("--scale", type=float, default=10.0)
    parser.add_argument("--hostility", default="hostile")
    parser.add_argument("--dir", type=Path, required=True)
    return parser.parse_args(argv)


async def serve(options: argparse.Namespace) -> None:
    folder: Path = options.dir
    world = World(
        persona(options.juju),
        scale=options.scale,
        hostility=hostility(options.hostility),
        folder=folder,
    )
    loop = asyncio.get_running_loop()
    world.loop = loop
    certs = make_certificates(folder / "tls")
    juju_api = JujuAPI(world, certs.ca_pem)
    kube = KubeAPI(world)

    async def kube_handler(request: Request, conn: Connection) -> Response | None:
        token = request.headers.get("authorization")
        if token != f"Bearer {KUBE_TOKEN}" and world.kube_state() == "up":
            return status(401, "Unauthorized", "Unauthorized")
        return await kube.handle(request, conn)

    async def charmhub_handler(request: Request, conn: Connection) -> Response | None:
        return await charmhub(request, conn, world)

    listeners = {
        "juju": Listener(juju_api.handle, ssl=certs.server_context()),
        "kube": Listener(kube_handler, ssl=certs.server_context()),
    }
    hub = Listener(charmhub_handler)
    world.ports.juju = await listeners["juju"].open()
    world.ports.kube = await listeners["kube"].open()
    world.ports.charmhub = await hub.open()
    for name, listener in listeners.items():
        world.listener(name, listener)
    control_dir = Path(tempfile.mkdtemp(prefix="rw-", dir="/tmp"))
    control = control_dir / "world.sock"

    async def on_shim(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await shim_call(world, reader, writer)

    server = await asyncio.start_unix_server(on_shim, path=str(control))
    bin_dir = write_shims(folder, str(control))
    data = write_client_store(
        folder,
        controller=CONTROLLER,
        controller_uuid=world.controller_uuid,
        port=world.ports.juju,
        ca_pem=certs.ca_pem,
        version=world.persona.version,
        password=PASSWORD,
        controller_model_uuid=world.controller_model_uuid,
    )
    kubeconfig = write_kubeconfig(folder, port=world.ports.kube, ca_pem=certs.ca_pem)
    description = write_description(
        folder,
        {
            "identity": world.identity,
            "juju": world.persona.series,
            "version": world.persona.version,
            "scale": world.scale,
            "ports": {
                "juju": world.ports.juju,
                "kube": world.ports.kube,
                "charmhub": world.ports.charmhub,
            },
            "bin": str(bin_dir),
            "juju_data": str(data),
            "kubeconfig": str(kubeconfig),
            "socket": str(control),
        },
    )
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    parent = os.getppid()

    async def orphaned() -> None:
        """Whoever started the world died without ending it: end it anyway."""
        while os.getppid() == parent:  # noqa: ASYNC110 (no event says a parent died)
            await asyncio.sleep(1.0)
        log.warning("the process that started this world is gone; stopping")
        stop.set()

    watchdog = asyncio.ensure_future(orphaned())
    print(f"READY {description}", flush=True)
    try:
        await stop.wait()
    finally:
        watchdog.cancel()
        world.stopping.set()
        server.close()
        for listener in (*listeners.values(), hub):
            listener.close()
        (folder / "api-calls.json").write_text(
            json.dumps({"calls": juju_api.calls, "not implemented": juju_api.unhandled}, indent=1)
        )
        shutil.rmtree(control_dir, ignore_errors=True)


async def shim_call(
    world: World, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """One forwarded command; the shim's connection dropping (it was killed) cancels it."""
    started = time.monotonic()
    try:
        line = await reader.readline()
        request: dict[str, Any] = json.loads(line)
    except (ValueError, ConnectionError):
        writer.close()
        return
    call = commands.Call(
        str(request.get("tool")),
        [str(a) for a in request.get("argv") or []],
        {str(k): str(v) for k, v in (request.get("env") or {}).items()},
        str(request.get("cwd") or "/"),
    )
    task = asyncio.ensure_future(commands.run(world, call))
    gone = asyncio.ensure_future(reader.read())
    done, _ = await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    outcome = "killed"
    try:
        if task in done:
            gone.cancel()
            result = task.result()
            outcome = str(result.code)
            for key, value in (("out", result.stdout), ("err", result.stderr)):
                if value:
                    writer.write(json.dumps({key: value}).encode() + b"\n")
            writer.write(json.dumps({"exit": result.code}).encode() + b"\n")
            with contextlib.suppress(ConnectionError):
                await writer.drain()
        else:
            task.cancel()
    except Exception:
        log.exception("command %s failed", commands.describe(call))
        outcome = "crashed"
    finally:
        writer.close()
        took = time.monotonic() - started
        with contextlib.suppress(OSError), (world.folder / "commands.log").open("a") as out:
            out.write(f"{took:7.2f}s rc={outcome} {commands.describe(call)}\n")


def main(argv: list[str] | None = None) -> None:
    options = arguments(argv)
    options.dir = options.dir.resolve()
    options.dir.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        level=logging.INFO,
        filename=str(options.dir / "world.log") if options.dir.is_dir() else None,
        format="%(asctime)s %(threadName)s %(name)s %(levelname)s %(message)s",
    )
    asyncio.run(serve(options))


if __name__ == "__main__":
    main()
