"""Turning SIGINT/SIGTERM into an orderly stop while something must be undone.

``restore_on_signals`` installs handlers for a window (and puts the previous ones back
after it). A signal is always recorded; while the window is ``armed`` it also cancels the
running task, so a ``finally`` block can undo what was done (start the node again) before
the run ends with ``Interrupted``. Outside the armed part (while a ``microk8s stop`` or
``start`` is running) the signal only waits its turn: killing those midway is worse.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from harness.common.errors import HarnessError

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(HarnessError):
    """A signal arrived while the harness was undoing what it had done; it was undone.

    The run that meets it ends as an interruption (its bundle says so, and the signal goes on
    as a KeyboardInterrupt), not as a failure: the user asked it to stop.
    """

    def __init__(self, signal_name: str, undone: str, fix: str) -> None:
        self.signal_name = signal_name
        self.undone = undone
        super().__init__(f"{signal_name} received {undone}", fix)


@dataclass
class SignalWindow:
    armed: bool = False
    received: list[int] = field(default_factory=list)

    @property
    def interrupted(self) -> bool:
        return bool(self.received)

    def name(self) -> str:
        return signal.Signals(self.received[0]).name if self.received else ""


@contextlib.contextmanager
def restore_on_signals(signals: tuple[int, ...] = SIGNALS) -> Iterator[SignalWindow]:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    window = SignalWindow()

    def on_signal(signum: int) -> None:
        log.warning("%s received; undoing before stopping", signal.Signals(signum).name)
        window.received.append(signum)
        if window.armed and task is not None:
            task.cancel()

    previous: dict[int, Any] = {}
    via_loop: list[int] = []
    for signum in signals:
        previous[signum] = signal.getsignal(signum)
        try:
            loop.add_signal_handler(signum, on_signal, signum)
            via_loop.append(signum)
        except (NotImplementedError, RuntimeError, ValueError):
            with contextlib.suppress(ValueError):  # not the main thread: cannot catch it
                signal.signal(signum, lambda s, _f: loop.call_soon_threadsafe(on_signal, int(s)))
    try:
        yield window
    finally:
        for signum in signals:
            if signum in via_loop:
                loop.remove_signal_handler(signum)
            with contextlib.suppress(ValueError, TypeError):
                restored = previous[signum]
                signal.signal(signum, restored if restored is not None else signal.SIG_DFL)


async def deliver_pending() -> None:
    """Let a signal that arrived during a blocking step reach its handler now.

    The loop learns of a signal through its wakeup fd on one turn and runs the handler on a
    later one; a few turns of the loop, nothing is slept.
    """
    for _ in range(5):
        await asyncio.sleep(0)


def forget_cancel() -> None:
    """After catching a CancelledError we caused ourselves (Python 3.11+ counts them)."""
    task = asyncio.current_task()
    uncancel = getattr(task, "uncancel", None)
    if uncancel is not None:
        uncancel()
