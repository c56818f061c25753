"""Running a local command (``juju``, ``microk8s``, ``sudo``) without blocking the loop."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shlex
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harness.common.errors import HarnessError

NOT_FOUND = 127  # what a shell returns for a missing command
TERM_WAIT = 5.0  # seconds a command has to end on SIGTERM before it gets SIGKILL
KILL_WAIT = 10.0  # seconds to reap a killed process (SIGKILL cannot be ignored)
# Linux refuses a single argument longer than this (32 pages) with E2BIG, whatever ARG_MAX
# is (execve(2), "Limits on size of arguments and environment").
MAX_ARG_STRLEN = 131072


@dataclass(frozen=True)
class Completed:
    """A finished command: what ran, its exit code and both streams."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class ProcessTimeout(HarnessError):
    """A command ran past its timeout and was killed."""

    def __init__(self, argv: Sequence[str], timeout: float) -> None:
        self.argv = tuple(argv)
        self.timeout = timeout
        super().__init__(
            f"`{shlex.join(argv)}` did not finish within {timeout:.0f}s",
            "check that the controller and the cluster respond",
        )


def argument_too_long(argv: Sequence[str]) -> HarnessError:
    """One line for E2BIG: which command, its longest argument, and the way round it."""
    shown = [Path(argv[0]).name] if argv else []
    for arg in argv[1:]:
        if len(arg) > 40:
            shown.append("...")
            break
        shown.append(arg)
    longest = max((len(a.encode("utf-8", "surrogateescape")) for a in argv), default=0)
    return HarnessError(
        f"`{shlex.join(shown)}` cannot be run: an argument of {longest} bytes is over "
        f"Linux's limit of {MAX_ARG_STRLEN} bytes per argument (execve: E2BIG)",
        "shorten the value; a long config value goes through Juju's API with "
        "--juju-driver libjuju",
    )


class ProcessRunner(Protocol):
    async def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> Completed: ...


async def run_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> Completed:
    """Run ``argv``; a missing binary gives exit code 127, a timeout kills it and raises."""
    merged = {**os.environ, **(env or {})}
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=merged,
        )
    except FileNotFoundError:
        return Completed(tuple(argv), NOT_FOUND, "", f"{argv[0]}: command not found")
    except OSError as error:
        if error.errno == errno.E2BIG:
            raise argument_too_long(argv) from None
        raise
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except asyncio.TimeoutError:
        await _kill(proc)
        raise ProcessTimeout(argv, timeout or 0.0) from None
    except BaseException:
        # Cancelled (a signal, an outer timeout): never leave the command running behind us.
        await _kill(proc)
        raise
    return Completed(
        tuple(argv),
        proc.returncode if proc.returncode is not None else -1,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
    )


async def _kill(proc: asyncio.subprocess.Process) -> None:
    """End ``proc`` and reap it, so a hung ``juju`` never outlives the call that ran it.

    SIGTERM first: ``sudo`` relays it to its command, and cannot relay SIGKILL (sudo(8),
    "Signal handling"), so killing ``sudo -n microk8s stop`` outright would leave a
    root-owned ``microk8s stop`` running (this user cannot signal it) while the node is
    started again. SIGKILL follows for a command that ignores SIGTERM.
    """
    for send, wait in ((proc.terminate, TERM_WAIT), (proc.kill, KILL_WAIT)):
        if proc.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            send()
        # Process.wait also waits for its pipes to close (a child that holds them: bounded).
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(proc.wait(), wait)


def running_children(match: Callable[[tuple[str, ...]], bool]) -> dict[int, tuple[str, ...]]:
    """This process's live children whose command line ``match``es, by pid (from ``/proc``).

    For commands a library starts in a worker thread (jubilant's ``subprocess.run``), which
    the harness cannot kill through a handle. Where there is no ``/proc``, none are found.
    """
    me = os.getpid()
    found: dict[int, tuple[str, ...]] = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                # The command name in field 2 may hold spaces and ")": split after the last ")".
                state, ppid = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[:2]
                if int(ppid) != me or state == "Z":
                    continue
                raw = Path(f"/proc/{entry}/cmdline").read_bytes()
            except (OSError, ValueError):
                continue  # it ended while we looked
            argv = tuple(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)
            if match(argv):
                found[int(entry)] = argv
    return found


def kill_pids(pids: Sequence[int]) -> None:
    """SIGKILL each of ``pids``; whoever started them reaps them."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
