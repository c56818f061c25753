"""The NodePort for a single MicroK8s node: ``sudo microk8s stop|start`` and readiness.

The classic and the strict snap take the same commands. Stopping and starting need root,
so every command goes through ``sudo -n`` (never a password prompt in CI); ``status`` too,
which spares the strict snap's ``snap_microk8s`` group and the classic one's ``microk8s``.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable

from harness.common.errors import EnvironmentUnavailable, HarnessError
from harness.lab.ports import Clock
from harness.lab.waiting import wait_for
from harness.live.process import Completed, ProcessRunner, ProcessTimeout, run_process

log = logging.getLogger(__name__)

NO_MICROK8S = EnvironmentUnavailable(
    "`microk8s` is not on PATH",
    # Juju 3 and 4 need a strict MicroK8s; strict up to 1.31 cannot network (README).
    "install it: sudo snap install microk8s --channel 1.34-strict/stable "
    "(README, Running against real MicroK8s and Juju)",
)
NO_SUDO = EnvironmentUnavailable(
    "restarting MicroK8s needs sudo without a password prompt",
    "run `sudo -v` first, or allow `microk8s` in a NOPASSWD sudoers rule",
)
STOP_START_TIMEOUT = 600.0
STATUS_SLICE = 60  # each `status --wait-ready` call is bounded; wait_for repeats it
RUNNING = "microk8s is running"  # status's first line when ready (--format pretty or short)


class MicroK8sNode:
    """Stop, start and wait for the MicroK8s node (and with it the Juju controller)."""

    def __init__(
        self,
        *,
        clock: Clock,
        run: ProcessRunner = run_process,
        which: Callable[[str], str | None] = shutil.which,
    ) -> None:
        self._clock = clock
        self._run = run
        self._which = which
        self._checked = False

    async def check(self) -> None:
        """EnvironmentUnavailable unless ``microk8s`` is here and sudo needs no password."""
        if self._checked:
            return
        if self._which("microk8s") is None:
            raise NO_MICROK8S
        try:
            done = await self._run(["sudo", "-n", "true"], timeout=30)
        except ProcessTimeout:
            raise NO_SUDO from None
        if not done.ok:
            raise NO_SUDO
        self._checked = True

    async def _microk8s(self, *args: str, timeout: float) -> Completed:
        await self.check()
        return await self._run(["sudo", "-n", "microk8s", *args], timeout=timeout)

    async def stop(self) -> None:
        done = await self._microk8s("stop", timeout=STOP_START_TIMEOUT)
        if not done.ok:
            raise HarnessError(
                f"`sudo microk8s stop` failed (exit {done.returncode}): {_tail(done)}",
                "see `sudo microk8s inspect`",
            )

    async def start(self) -> None:
        done = await self._microk8s("start", timeout=STOP_START_TIMEOUT)
        if not done.ok:
            raise HarnessError(
                f"`sudo microk8s start` failed (exit {done.returncode}): {_tail(done)}",
                "start it by hand: sudo microk8s start",
            )

    async def wait_ready(self, timeout: float) -> None:
        slice_ = max(1, min(STATUS_SLICE, int(timeout)))

        async def ready() -> Completed:
            try:
                return await self._microk8s(
                    "status", "--wait-ready", "--timeout", str(slice_), timeout=slice_ + 30
                )
            except ProcessTimeout as error:
                return Completed(error.argv, -1, "", str(error))

        await wait_for(
            "MicroK8s to report ready",
            ready,
            is_running,
            timeout=timeout,
            clock=self._clock,
            describe=lambda done: f"exit {done.returncode}: {_tail(done)}",
            interval=2.0,
        )

    async def version(self) -> str | None:
        if self._which("microk8s") is None:
            return None
        # Through sudo like every other call: a runner's user is rarely in the microk8s
        # group, and without it `microk8s version` only says "Insufficient permissions".
        for argv in (["sudo", "-n", "microk8s", "version"], ["microk8s", "version"]):
            try:
                done = await self._run(argv, timeout=30)
            except ProcessTimeout:
                continue
            # "MicroK8s v1.28.3 revision 6089"
            if done.ok and done.stdout.strip().startswith("MicroK8s"):
                return done.stdout.strip()
        return None


def is_running(done: Completed) -> bool:
    """Whether ``microk8s status`` said the node is running.

    Its exit code alone does not say: status.py prints "microk8s is not running. Use
    microk8s inspect for a deeper inspection." when ``--wait-ready --timeout N`` ran out and
    still exits 0 (canonical/microk8s scripts/wrappers/status.py; issue 3927).
    """
    return done.ok and any(
        line.strip() in (RUNNING, "running: True") for line in done.stdout.splitlines()
    )


def _tail(done: Completed) -> str:
    lines = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()
    return lines[-1].strip()
