"""pod-delete: ``kubectl delete pod``; the StatefulSet makes a new pod for the same unit."""

from __future__ import annotations

from functools import partial
from typing import ClassVar

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
from harness.observe.settle import pod_ready
from harness.scenario.scenarios import Target


class PodDelete(Disruption):
    name: ClassVar[str] = "pod-delete"
    summary: ClassVar[str] = (
        "kubectl delete pod: a new pod (new uid) for the same unit, fresh container filesystems"
    )

    def __init__(self, *, timeout: float = WAIT_TIMEOUT) -> None:
        self.timeout = timeout

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        units = await target_units(lab, target.app, target.units)
        before = await pods_by_unit(lab, target.app)
        old = {unit: require_pod(before, unit, lab) for unit in units}
        steps: list[Step] = []
        for unit, pod in old.items():
            step, _ = await timed(
                lab, f"delete pod {pod.name}", partial(lab.cluster.delete_pod, pod.name), unit
            )
            steps.append(step)
        for unit, pod in old.items():
            step, _ = await waited_step(
                lab,
                f"wait for a new Ready pod for {unit}",
                partial(self._new_pod, lab, target.app, unit, pod),
            )
            steps.append(step)
        return tuple(steps)

    async def _new_pod(
        self, lab: Lab, app: str, unit: str, old: PodIdentity
    ) -> Waited[tuple[PodIdentity, ...]]:
        async def look() -> tuple[PodIdentity, ...]:
            return tuple(p for p in await lab.cluster.pods(app) if p.unit == unit)

        return await wait_for(
            f"a new Ready pod for {unit} (old uid {old.uid})",
            look,
            lambda pods: any(p.uid != old.uid and pod_ready(p) for p in pods),
            timeout=self.timeout,
            clock=lab.clock,
            describe=describe_pods,
        )

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        if not target.units:
            selector = f"app.kubernetes.io/name={target.app}"
            return (
                f"kubectl -n {namespace} delete pod -l {selector}",
                f"kubectl -n {namespace} wait pod -l {selector} --for=condition=Ready "
                f"--timeout={self.timeout:.0f}s",
            )
        pods = [pod_name(u) for u in target.units]
        deletes = tuple(f"kubectl -n {namespace} delete pod {p}" for p in pods)
        waits = tuple(
            f"kubectl -n {namespace} wait pod/{p} --for=condition=Ready "
            f"--timeout={self.timeout:.0f}s"
            for p in pods
        )
        return deletes + waits
