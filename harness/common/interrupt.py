"""Ctrl-C (or SIGTERM) during ``repro run``: the run stops at the next step and says so.

The first signal is recorded and the running task is cancelled; code that never yields to
the event loop (the twin) stops at the runner's next checkpoint. The bundle is then written
with the interruption in it, and the command exits 130. A second signal stops at once,
except while the evidence is being written (``writing``): it is held until the bundle is
on disk, since stopping there would lose what the run saw. Whatever the signal interrupted
(a cancel it caused, a bare ``KeyboardInterrupt``) is named by ``stop_for`` as the one
``RunInterrupted`` that says during what, never as a ``CancelledError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

HANDLED = (signal.SIGINT, signal.SIGTERM)


class RunInterrupted(KeyboardInterrupt):
    """The run was stopped by a signal; the message says which and during what."""

    def __init__(self, signal_name: str, during: str) -> None:
        self.signal_name = signal_name
        self.during = during
        super().__init__(describe(signal_name, during))


def writing(interruption: Interruption | None) -> contextlib.AbstractContextManager[None]:
    """``interruption.writing()``, or nothing to hold when there is no interruption."""
    return interruption.writing() if interruption is not None else contextlib.nullcontext()


def describe(signal_name: str, during: str) -> str:
    """The one line the bundle, the report and the terminal carry."""
    return (
        f"interrupted by {signal_name} during {during}"
        if during
        else (f"interrupted by {signal_name}")
    )


@dataclass
class Interruption:
    """Whether a stop was asked for, what the run is doing, and the task to cancel."""

    signal_name: str | None = None
    during: str = "start-up"  # what the run is doing: the stage a stop names
    _task: asyncio.Task[Any] | None = field(default=None, repr=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)
    _writing: int = field(default=0, repr=False)
    _held: bool = field(default=False, repr=False)  # a second signal, held while writing

    @property
    def requested(self) -> bool:
        return self.signal_name is not None

    def attach(self) -> None:
        """Cancel the current task (from the loop's thread) when a signal arrives."""
        self._task = asyncio.current_task()
        self._loop = asyncio.get_running_loop()

    def check(self, during: str) -> None:
        """Raise RunInterrupted if a stop was asked for; called between steps."""
        if self.signal_name is not None:
            raise RunInterrupted(self.signal_name, during)

    def request(self, signal_name: str) -> None:
        first = self.signal_name is None
        self.signal_name = self.signal_name or signal_name
        if not first:  # a second Ctrl-C: stop now, saying during what
            if self._writing:
                self._held = True  # once the bundle is on disk
                return
            raise RunInterrupted(self.signal_name, self.during)
        if self._task is not None and self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._task.cancel)

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """While the evidence is written: a second signal is held, and stops the run when
        the bundle is on disk. Stopping in the middle would lose what the run saw (the
        snapshot before, the steps of the disruption) for a bundle that says "start-up"."""
        self._writing += 1
        try:
            yield
        finally:
            self._writing -= 1
        if not self._writing and self._held:
            self._held = False
            raise RunInterrupted(self.signal_name or "SIGINT", self.during)

    def stop_for(self, exc: BaseException) -> RunInterrupted | None:
        """The stop ``exc`` stands for, named with the stage: a RunInterrupted as it is, the
        cancel a signal caused, or a bare KeyboardInterrupt (Python's own for SIGINT when
        no signal was recorded); None for anything else."""
        if isinstance(exc, RunInterrupted):
            return exc
        if isinstance(exc, KeyboardInterrupt):
            return RunInterrupted(self.signal_name or "SIGINT", self.during)
        if self.signal_name is not None and isinstance(exc, asyncio.CancelledError):
            return RunInterrupted(self.signal_name, self.during)
        return None

    @contextlib.contextmanager
    def installed(self) -> Iterator[Interruption]:
        """Handle SIGINT and SIGTERM while inside; the previous handlers come back after."""

        def handler(signum: int, frame: FrameType | None) -> None:
            self.request(signal.Signals(signum).name)

        previous = {sig: signal.getsignal(sig) for sig in HANDLED}
        for sig in HANDLED:
            signal.signal(sig, handler)
        try:
            yield self
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)
