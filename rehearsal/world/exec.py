"""A command exec'd in a container of a world's pod.

The container's filesystem is the twin's layer for it (a directory on this machine, with
the charm-data EmptyDir and the storage volumes linked in where they are mounted), so a
shell command runs for real: ``/bin/sh`` with the container's paths mapped onto the layer
and back in what it prints. That is how the harness's own scripts (listing files with
``find``, ``sha256sum``, ``stat`` and ``date``; writing a marker) meet real tools, real file
times and real errors. Signalling PID 1 (``kill -TERM 1``) cannot run here: it is the
container's init, so the world restarts that container instead (``kube_api.kill_pid1``).
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.twin.layer_paths import in_layer

if TYPE_CHECKING:
    from harness.twin.model import Unit
    from rehearsal.world.model import WorldModel

KILL_PID1 = re.compile(r"^\s*kill\s+-(?:s\s+)?(TERM|KILL|INT|HUP|15|9)\s+1\s*$")
SIGNALS = {"15": "TERM", "9": "KILL"}
RUN_LIMIT = 60.0


@dataclass
class Ran:
    stdout: bytes
    stderr: bytes
    code: int
    started: bool = True
    kill_pid1: str | None = None


def status_of(result: Ran, argv: Sequence[str]) -> dict[str, Any]:
    """The exec's final ``metav1.Status`` on channel 3 (kubelet cri streaming server)."""
    if not result.started:
        return {
            "metadata": {},
            "status": "Failure",
            "message": f"OCI runtime exec failed: {result.stderr.decode(errors='replace')}",
            "reason": "InternalError",
        }
    if result.code == 0:
        return {"metadata": {}, "status": "Success"}
    return {
        "metadata": {},
        "status": "Failure",
        "message": (
            "command terminated with non-zero exit code: error executing command "
            f"[{' '.join(argv)}], exit code {result.code}"
        ),
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(result.code)}]},
    }


async def run(model: WorldModel, unit: Unit, container: str, argv: Sequence[str]) -> Ran:
    if len(argv) >= 3 and argv[0] == "sh" and argv[1] == "-c":
        signal = KILL_PID1.match(argv[2])
        if signal is not None:
            name = SIGNALS.get(signal.group(1), signal.group(1))
            return Ran(b"", b"", 0, kill_pid1=name)
    if not argv or argv[0] not in ("sh", "/bin/sh"):
        what = argv[0] if argv else ""
        return Ran(
            b"",
            f'exec: "{what}": executable file not found in $PATH: unknown'.encode(),
            127,
            started=False,
        )
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, _run_shell, model, unit, container, list(argv))


def _run_shell(model: WorldModel, unit: Unit, container: str, argv: list[str]) -> Ran:
    with model.world.lock:
        root = unit.pod.containers[container].root
        mapped: list[tuple[str, str]] = []  # (host path, container path), longest first
        args = list(argv[1:])
        # `sh -c SCRIPT NAME ARG...`: the arguments after the script's name are paths
        # (and, for a write, the content, which is left as it is).
        for index in range(3, len(args)):
            given = args[index]
            if given.startswith("/") and "\n" not in given and len(given) < 4096:
                host = os.path.realpath(in_layer(root, given))
                mapped.append((host, given))
                args[index] = host
        mapped.sort(key=lambda pair: len(pair[0]), reverse=True)
        try:
            done = subprocess.run(
                ["/bin/sh", *args],
                cwd=root,
                capture_output=True,
                timeout=RUN_LIMIT,
                env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(root)},
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Ran(b"", b"timed out", 124)
        model.twin.node.notice_writes(unit)
    return Ran(_unmap(done.stdout, mapped), _unmap(done.stderr, mapped), done.returncode)


def _unmap(output: bytes, mapped: Sequence[tuple[str, str]]) -> bytes:
    if not mapped:
        return output
    text = output.decode("utf-8", "surrogateescape")
    for host, container_path in mapped:
        text = text.replace(host, container_path)
    return text.encode("utf-8", "surrogateescape")


def describe(argv: Sequence[str]) -> str:
    return shlex.join(list(argv)[:2])
