"""node-restart: ``sudo microk8s stop`` then ``start``; the controller goes down with it.

The node always comes back: ``start`` runs in a ``finally``, and SIGINT/SIGTERM during the
window are caught (the previous handlers are restored after it) so that an interrupted run
starts the node before it ends. Then MicroK8s must report ready and the Juju controller
must answer before anything else talks to it (``lab.juju.reconnect()``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import ClassVar

from harness.common.observations import Step
from harness.disrupt.base import Disruption
from harness.disrupt.steps import timed
from harness.lab.ports import Lab
from harness.live.signals import (
    Interrupted,
    deliver_pending,
    forget_cancel,
    restore_on_signals,
)
from harness.scenario.scenarios import Target

READY_TIMEOUT = 900.0
# What a person is asked to agree to before a live node restart (pytest's and repro's).
CONSENT_FLAG = "--allow-node-restart"
WHY_CONSENT = "stops MicroK8s, which takes every pod and the Juju controller down"


class NodeRestart(Disruption):
    name: ClassVar[str] = "node-restart"
    summary: ClassVar[str] = (
        "microk8s stop/start: same pods restarted, container filesystems fresh, controller down"
    )
    takes_node_down: ClassVar[bool] = True

    def __init__(
        self,
        *,
        ready_timeout: float = READY_TIMEOUT,
        while_down: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.ready_timeout = ready_timeout
        # Runs while the node is down (e.g. a deliberate down time); tests use it too.
        self.while_down = while_down

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        steps: list[Step] = []
        with restore_on_signals() as window:
            try:
                try:
                    step, _ = await timed(lab, "microk8s stop", lab.node.stop)
                    steps.append(step)
                    await deliver_pending()
                    if self.while_down is not None and not window.interrupted:
                        window.armed = True  # a signal now cancels the wait, not a command
                        await self.while_down()
                finally:
                    window.armed = False
                    step, _ = await timed(lab, "microk8s start", lab.node.start)
                    steps.append(step)
                    await deliver_pending()
            except asyncio.CancelledError:
                if not window.interrupted:
                    raise
                forget_cancel()
            if window.interrupted:
                raise Interrupted(
                    window.name(),
                    "while MicroK8s was stopped; it was started again",
                    "rerun the scenario; check `microk8s status` first",
                )
        step, _ = await timed(
            lab, "wait for MicroK8s ready", lambda: lab.node.wait_ready(self.ready_timeout)
        )
        steps.append(step)
        step, _ = await timed(
            lab, "wait for the Juju controller and reconnect", lab.juju.reconnect
        )
        steps.append(step)
        return tuple(steps)

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        return (
            "sudo microk8s stop",
            "sudo microk8s start",
            f"sudo microk8s status --wait-ready --timeout {self.ready_timeout:.0f}"
            "  # until it prints 'microk8s is running' (it exits 0 either way)",
            f"juju status -m {lab_model} --format json  # until the controller answers",
        )
