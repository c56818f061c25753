"""Running a local command (``juju``, ``microk8s``, ``sudo``): bounded, and ended whole.

A command runs in a session of its own, so that what it starts (a shell's children, the
command ``sudo`` runs) can be found and ended with it: a command that overruns its timeout
or whose caller is cancelled gets SIGTERM, then SIGKILL, and so does every process below it
(found in ``/proc`` before the first signal, since an orphan loses its parent). SIGTERM
first because ``sudo`` relays it to its command and cannot relay SIGKILL (sudo(8), "Signal
handling"): killing ``sudo -n microk8s config`` outright would leave a root-owned
``microk8s config`` running, which this user cannot signal. A command that finishes is
left alone, with whatever it chose to leave running.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harness.common.errors import HarnessError

NOT_FOUND = 127  # what a shell returns for a missing command
TERM_WAIT = 5.0  # seconds a command has to end on SIGTERM before it gets SIGKILL
KILL_WAIT = 10.0  # seconds to reap a killed process (SIGKILL cannot be ignored)
POLL = 0.05  # seconds between looks at processes that are not our children
# Linux refuses a single argument longer than this (32 pages) with E2BIG, whatever ARG_MAX
# is (execve(2), "Limits on size of arguments and environment").
MAX_ARG_STRLEN = 131072

log = logging.getLogger(__name__)


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
            start_new_session=True,  # its own process group: it and what it starts
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
    """End ``proc`` and every process below it, and reap it, so a hung ``juju`` (or a
    ``sudo``'s command) never outlives the call that ran it: SIGTERM, then SIGKILL."""
    tree = _Tree(proc.pid)
    for sig, wait in ((signal.SIGTERM, TERM_WAIT), (signal.SIGKILL, KILL_WAIT)):
        if proc.returncode is not None and not tree.alive():
            return
        tree.signal(sig, leader_running=proc.returncode is None)
        until = time.monotonic() + wait
        # Process.wait also waits for its pipes to close (a child that holds them: bounded).
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(proc.wait(), wait)
        while tree.alive() and time.monotonic() < until:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(POLL)
    tree.say_left()


def run_sync(
    argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None
) -> Completed:
    """``run_process`` for a caller off the event loop (a worker thread): the same session
    of its own, the same SIGTERM-then-SIGKILL of the whole tree when it overruns its
    ``timeout`` (ProcessTimeout) or the caller is interrupted."""
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
    except FileNotFoundError:
        return Completed(tuple(argv), NOT_FOUND, "", f"{argv[0]}: command not found")
    except OSError as error:
        if error.errno == errno.E2BIG:
            raise argument_too_long(argv) from None
        raise
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_sync(proc)
        raise ProcessTimeout(argv, timeout) from None
    except BaseException:
        _kill_sync(proc)
        raise
    return Completed(
        tuple(argv),
        proc.returncode,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
    )


def _kill_sync(proc: subprocess.Popen[bytes]) -> None:
    tree = _Tree(proc.pid)
    for sig, wait in ((signal.SIGTERM, TERM_WAIT), (signal.SIGKILL, KILL_WAIT)):
        if proc.poll() is not None and not tree.alive():
            break
        tree.signal(sig, leader_running=proc.poll() is None)
        until = time.monotonic() + wait
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(wait)
        while tree.alive() and time.monotonic() < until:
            time.sleep(POLL)
    tree.say_left()
    # A process this user cannot end (a root command that ignored SIGTERM) may still hold
    # the pipes: close our ends rather than wait for them.
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(KILL_WAIT)


class _Tree:
    """A command's process (the leader of its own process group) and every process below
    it, each known by pid and start time, so a pid reused meanwhile is never signalled."""

    def __init__(self, leader: int) -> None:
        self.leader = leader
        self.known: dict[int, str] = {}
        self._look()

    def _look(self) -> None:
        roots = [self.leader, *self.live()]
        for pid in _below(roots):
            start = _start_time(pid)
            if start is not None:
                self.known.setdefault(pid, start)

    def live(self) -> list[int]:
        return [pid for pid, start in self.known.items() if _alive_since(pid, start)]

    def alive(self) -> bool:
        return bool(self.live())

    def signal(self, sig: int, *, leader_running: bool) -> None:
        self._look()  # what was started since the last look, before it is orphaned
        if leader_running:
            # The group is the leader's (start_new_session); while the leader is unreaped
            # its pid, hence the group id, cannot be anyone else's.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.leader, sig)
        for pid in self.live():  # those that left the group (setsid, sudo with a pty)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    def say_left(self) -> None:
        for pid in self.live():
            argv = " ".join(_cmdline(pid)) or f"pid {pid}"
            log.warning(
                "`%s` (pid %d) outlived the command that started it and could not be ended "
                "(another user's?); end it with: sudo kill -KILL %d",
                argv,
                pid,
                pid,
            )


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent pid, start time) from ``/proc/<pid>/stat``; None when it is gone."""
    try:
        # The command name in field 2 may hold spaces and ")": split after the last ")".
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0], int(fields[1]), fields[19]
    except (OSError, ValueError, IndexError):
        return None


def _start_time(pid: int) -> str | None:
    found = _stat(pid)
    return None if found is None or found[0] == "Z" else found[2]


def _alive_since(pid: int, start: str) -> bool:
    """Whether ``pid`` still runs and is the process that started at ``start``."""
    return _start_time(pid) == start


def _below(roots: Sequence[int]) -> list[int]:
    """Every live process below ``roots`` (children, theirs...), from ``/proc``."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                found = _stat(int(entry))
                if found is not None and found[0] != "Z":
                    children.setdefault(found[1], []).append(int(entry))
    seen: list[int] = []
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.append(child)
                todo.append(child)
    return seen


def _cmdline(pid: int) -> tuple[str, ...]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ()
    return tuple(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)


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
            stat = _stat(int(entry))
            if stat is None or stat[1] != me or stat[0] == "Z":
                continue  # not ours, or it ended while we looked
            argv = _cmdline(int(entry))
            if argv and match(argv):
                found[int(entry)] = argv
    return found


def kill_pids(pids: Sequence[int]) -> None:
    """SIGKILL each of ``pids`` and every process below it; whoever started them reaps them.

    For a library's ``juju`` (jubilant's ``subprocess.run``), which runs in this process's
    own group: its children are found in ``/proc`` before it is killed.
    """
    for pid in pids:
        below = [(child, _start_time(child)) for child in _below([pid])]
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        for child, start in below:
            if start is not None and _alive_since(child, start):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(child, signal.SIGKILL)
