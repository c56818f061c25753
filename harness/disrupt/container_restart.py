"""container-restart: signal PID 1 of one container; the kubelet restarts it in the same pod.

The target names the container (``charm`` or a workload container) and the signal
(``TERM`` by default, ``KILL`` or ``OOM``); both are recorded in the step and the evidence,
and they pick the catalogue branch (SIGTERM to the charm container runs ``stop`` first).

PID 1 of a Juju sidecar container is pebble, which exits on SIGTERM (SIGKILL from inside
the container is dropped by the kernel for a namespace's init). Done when the container's
restart count has gone up and it is ready again.
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar

from harness.catalogue import normal_signal
from harness.common.errors import HarnessError
from harness.common.observations import PodIdentity, Step
from harness.disrupt.base import Disruption
from harness.disrupt.steps import (
    WAIT_TIMEOUT,
    describe_pods,
    pod_name,
    pods_by_unit,
    require_pod,
    target_units,
    timed,
    waited_step,
)
from harness.lab.ports import Lab
from harness.lab.waiting import Waited, wait_for
from harness.scenario.scenarios import Target


def container_of(target: Target) -> str:
    if not target.container:
        raise HarnessError(
            f"container-restart of {target.app} needs a container name",
            "set Target.container, e.g. workload or charm",
        )
    return target.container


def signal_of(target: Target) -> str:
    """The target's signal, checked (``TERM`` when not given: what ``kill 1`` sends)."""
    return normal_signal(target.signal) or "TERM"


class ContainerRestart(Disruption):
    name: ClassVar[str] = "container-restart"
    summary: ClassVar[str] = (
        "kill PID 1 of one container: same pod, restart count +1, that container's root fresh"
    )

    def __init__(self, *, timeout: float = WAIT_TIMEOUT) -> None:
        self.timeout = timeout

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        container = container_of(target)
        signal = signal_of(target)
        units = await target_units(lab, target.app, target.units)
        before = await pods_by_unit(lab, target.app)
        steps: list[Step] = []
        for unit in units:
            pod = require_pod(before, unit, lab)
            status = pod.container(container)
            if status is None:
                names = ", ".join(c.name for c in pod.containers) or "none"
                raise HarnessError(
                    f"pod {pod.name} has no container {container!r}",
                    f"containers: {names}",
                )
            step, _ = await timed(
                lab,
                f"SIG{signal} to PID 1 in {pod.name}/{container}",
                partial(lab.cluster.kill_pid1, pod.name, container, signal),
                f"container {container}, signal {signal}; restart count was "
                f"{status.restart_count}",
            )
            steps.append(step)
            step, _ = await waited_step(
                lab,
                f"wait for {pod.name}/{container} to restart",
                partial(
                    self._restarted, lab, target.app, unit, container, pod, status.restart_count
                ),
            )
            steps.append(step)
        return tuple(steps)

    async def _restarted(
        self, lab: Lab, app: str, unit: str, container: str, old: PodIdentity, count: int
    ) -> Waited[tuple[PodIdentity, ...]]:
        async def look() -> tuple[PodIdentity, ...]:
            return tuple(p for p in await lab.cluster.pods(app) if p.unit == unit)

        def done(pods: tuple[PodIdentity, ...]) -> bool:
            for pod in pods:
                status = pod.container(container)
                if status is None:
                    continue
                if pod.uid != old.uid and status.ready:
                    return True  # replaced instead of restarted: the evidence will show it
                if status.restart_count > count and status.ready:
                    return True
            return False

        return await wait_for(
            f"{container} in {old.name} restarted (restart count above {count}) and ready",
            look,
            done,
            timeout=self.timeout,
            clock=lab.clock,
            describe=lambda pods: (
                "; ".join(
                    f"{describe_pods([p])} {container} restarts="
                    f"{c.restart_count if (c := p.container(container)) else '?'}"
                    for p in pods
                )
                or "no pod"
            ),
        )

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        container = container_of(target)
        signal = signal_of(target)
        pods = [pod_name(u) for u in target.units] or [f"<every {target.app} pod>"]
        if signal != "TERM":
            return tuple(f"# SIG{signal} to PID 1 of {p}/{container} (twin only)" for p in pods)
        return tuple(
            f"kubectl -n {namespace} exec {p} -c {container} -- sh -c 'kill -TERM 1'" for p in pods
        )
