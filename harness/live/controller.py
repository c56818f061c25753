"""Is a Juju controller there, and does it answer? The check behind ``--backend auto|live``.

Two questions, each a ``juju`` command with a timeout: ``juju show-controller`` (is one
configured; it may answer from the local cache) and ``juju models`` (does its API answer).
A command still running after a few seconds is announced (what is awaited, and for how
long), and one that does not answer in time is named in the result, so that a hanging
controller is not mistaken for a missing one.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass

CONTROLLER_TIMEOUT = 20.0
NOTICE_AFTER = 3.0  # seconds of silence before saying what is awaited

SHOW_CONTROLLER = ("juju", "show-controller", "--format", "json")
MODELS = ("juju", "models", "--format", "json")


@dataclass(frozen=True)
class ControllerCheck:
    """The answer: truthy when a controller answered; ``why`` says what was seen."""

    reachable: bool
    why: str
    configured: bool  # a controller is known to the client (so bootstrapping is no fix)

    def __bool__(self) -> bool:
        return self.reachable


def _ask(
    argv: tuple[str, ...], timeout: float, say: Callable[[str], None] | None
) -> subprocess.CompletedProcess[str] | None:
    """Run ``argv``; None when it did not answer within ``timeout``."""
    notice = None
    if say is not None:
        waiting = f"waiting for `{shlex.join(argv)}` to answer (giving up after {timeout:.0f}s)"
        notice = threading.Timer(min(NOTICE_AFTER, timeout), say, (waiting,))
        notice.daemon = True
        notice.start()
    try:
        return subprocess.run(
            list(argv), capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return None
    finally:
        if notice is not None:
            notice.cancel()


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no output")


def check_controller(
    timeout: float | None = None, say: Callable[[str], None] | None = None
) -> ControllerCheck:
    """Whether the current controller answers its API, and if not, what did not answer.

    ``timeout`` bounds each command (CONTROLLER_TIMEOUT when None).
    """
    timeout = CONTROLLER_TIMEOUT if timeout is None else timeout
    if shutil.which("juju") is None:
        return ControllerCheck(False, "no juju command on PATH", configured=False)
    try:
        shown = _ask(SHOW_CONTROLLER, timeout, say)
        if shown is None:
            return ControllerCheck(
                False,
                f"`{shlex.join(SHOW_CONTROLLER)}` did not answer within {timeout:.0f}s",
                configured=True,  # unknown; bootstrapping is not the first thing to try
            )
        if shown.returncode != 0 or not json.loads(shown.stdout or "{}"):
            why = f"no current controller ({_first_line(shown.stderr)})"
            return ControllerCheck(False, why, configured=False)
        models = _ask(MODELS, timeout, say)
    except (OSError, ValueError) as exc:
        return ControllerCheck(False, f"`juju` could not be run: {exc}", configured=False)
    if models is None:
        why = (
            f"`{shlex.join(MODELS)}` did not answer within {timeout:.0f}s "
            "(a controller is configured, its API did not answer)"
        )
        return ControllerCheck(False, why, configured=True)
    if models.returncode != 0:
        why = f"the controller refused `{shlex.join(MODELS)}`: {_first_line(models.stderr)}"
        return ControllerCheck(False, why, configured=True)
    return ControllerCheck(True, "a Juju controller is reachable", configured=True)


def controller_reachable(timeout: float = 20.0) -> bool:
    """Fast check for ``--backend auto``: a current controller that answers its API."""
    return check_controller(timeout).reachable
