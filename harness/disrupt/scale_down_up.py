"""scale-down-up: scale to zero, wait until every unit and pod is gone, scale back."""

from __future__ import annotations

from typing import ClassVar

from harness.disrupt.base import Disruption, Target
from harness.disrupt.steps import WAIT_TIMEOUT, describe_pods, timed, waited_step
from harness.errors import HarnessError
from harness.observations import PodIdentity, Step
from harness.ports import Lab
from harness.settle import pod_ready
from harness.waiting import Waited, wait_for


class ScaleDownUp(Disruption):
    name: ClassVar[str] = "scale-down-up"
    summary: ClassVar[str] = "scale to zero and back: units removed, new units and pods created"

    def __init__(self, *, timeout: float = WAIT_TIMEOUT) -> None:
        self.timeout = timeout

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        app = target.app
        count = len(await lab.juju.units(app))
        if count == 0:
            raise HarnessError(f"{app} has no units to scale down", "deploy it first")
        down, _ = await timed(lab, f"scale {app} to 0", lambda: lab.juju.scale(app, 0))
        gone, _ = await waited_step(
            lab, f"wait for every {app} unit and pod to go", lambda: self._scaled(lab, app, 0)
        )
        up, _ = await timed(lab, f"scale {app} to {count}", lambda: lab.juju.scale(app, count))
        back, _ = await waited_step(
            lab,
            f"wait for {count} {app} units with Ready pods",
            lambda: self._scaled(lab, app, count),
        )
        return (down, gone, up, back)

    async def _scaled(
        self, lab: Lab, app: str, count: int
    ) -> Waited[tuple[tuple[str, ...], tuple[PodIdentity, ...]]]:
        async def look() -> tuple[tuple[str, ...], tuple[PodIdentity, ...]]:
            return await lab.juju.units(app), await lab.cluster.pods(app)

        def done(seen: tuple[tuple[str, ...], tuple[PodIdentity, ...]]) -> bool:
            units, pods = seen
            if count == 0:
                return not units and not pods
            return len(units) == count and len(pods) == count and all(map(pod_ready, pods))

        return await wait_for(
            f"{app} at {count} units and {count} pods" + (" Ready" if count else ""),
            look,
            done,
            timeout=self.timeout,
            clock=lab.clock,
            describe=lambda seen: (
                f"units: {', '.join(seen[0]) or 'none'}; pods: {describe_pods(seen[1])}"
            ),
        )

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        selector = f"app.kubernetes.io/name={target.app}"
        return (
            f"juju scale-application -m {lab_model} {target.app} 0",
            f"kubectl -n {namespace} wait pod -l {selector} --for=delete "
            f"--timeout={self.timeout:.0f}s",
            f"juju scale-application -m {lab_model} {target.app} <previous unit count>",
            f"kubectl -n {namespace} wait pod -l {selector} --for=condition=Ready "
            f"--timeout={self.timeout:.0f}s",
        )
