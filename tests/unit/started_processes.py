"""Processes in tests: fake ``juju`` scripts, the processes the code under test starts
(recorded by the side that starts them), and whether one still lives.

A fake ``juju`` that writes its own pid may be killed before it writes anything when the
machine is loaded (a CI runner: the code under test kills it at a 1s deadline). The pid a
test checks therefore comes from ``subprocess.Popen``, which starts both asyncio's
subprocesses (``run_process``) and ``subprocess.run``'s (jubilant), and which holds the exit
status once the process is reaped (asyncio copies it there too).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

POLL = 0.05  # seconds between looks for a process the code under test starts


def fake_juju(folder: Path, body: str) -> Path:
    """An executable ``folder/juju`` that runs ``body`` under sh."""
    script = folder / "juju"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but still listed; /proc says which.
    with contextlib.suppress(OSError):
        return " Z " not in Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1][:3] + " "
    return True


class StartedProcesses:
    """Every process started through ``subprocess.Popen`` while installed, in start order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # jubilant starts its juju in a worker thread
        self._started: list[subprocess.Popen[Any]] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> StartedProcesses:
        record = self._record

        class RecordingPopen(subprocess.Popen):  # type: ignore[type-arg]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                record(self)

        monkeypatch.setattr(subprocess, "Popen", RecordingPopen)
        return self

    def _record(self, process: subprocess.Popen[Any]) -> None:
        with self._lock:
            self._started.append(process)

    def with_arg(self, word: str) -> list[subprocess.Popen[Any]]:
        """The started processes with ``word`` among their arguments."""
        with self._lock:
            started = list(self._started)
        return [p for p in started if word in [str(a) for a in _argv(p)]]

    def one(self, word: str) -> subprocess.Popen[Any]:
        """The one started process with ``word`` among its arguments (fails otherwise)."""
        found = self.with_arg(word)
        assert len(found) == 1, f"expected one process with {word!r}, started: {found}"
        return found[0]

    async def first_with_arg(self, word: str, guard: float) -> subprocess.Popen[Any]:
        """The one process with ``word`` once it is started (``guard`` only bounds a hang)."""
        for _ in range(int(guard / POLL)):
            if self.with_arg(word):
                break
            await asyncio.sleep(POLL)
        return self.one(word)

    def kill_left(self) -> None:
        """SIGKILL any still unreaped, so a failing test leaves nothing behind."""
        with self._lock:
            started = list(self._started)
        for process in started:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)


def _argv(process: subprocess.Popen[Any]) -> list[object]:
    args = process.args
    return [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
