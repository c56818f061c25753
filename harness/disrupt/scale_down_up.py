"""scale-down-up: scale to zero, wait until every unit and pod is gone, scale back."""

from __future__ import annotations

import asyncio
import logging
from typing import ClassVar

from harness.common.counts import counted
from harness.common.errors import HarnessError
from harness.common.observations import PodIdentity, Step
from harness.disrupt.base import Disruption
from harness.disrupt.steps import WAIT_TIMEOUT, describe_pods, timed, waited_step
from harness.lab.ports import Lab
from harness.lab.waiting import Waited, wait_for
from harness.observe.settle import pod_ready
from harness.scenario.scenarios import Target

log = logging.getLogger(__name__)


async def _scale_back(lab: Lab, app: str, count: int, error: BaseException) -> None:
    """Scale ``app`` back to ``count`` after the way down failed; the failure goes on."""
    why = type(error).__name__ if isinstance(error, asyncio.CancelledError) else str(error)
    log.warning("scale-down-up of %s stopped (%s); scaling it back to %d", app, why, count)
    try:
        # Through `timed`: the bundle of the failed run shows the app was scaled back.
        await timed(lab, f"scale {app} back to {count}", lambda: lab.juju.scale(app, count), why)
    except Exception as failed:  # the first failure is the one to report
        log.error(
            "could not scale %s back to %d (%s); run: juju scale-application %s %d",
            app,
            count,
            failed,
            app,
            count,
        )


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
        try:
            down, _ = await timed(lab, f"scale {app} to 0", lambda: lab.juju.scale(app, 0))
            gone, _ = await waited_step(
                lab, f"wait for every {app} unit and pod to go", lambda: self._scaled(lab, app, 0)
            )
        except BaseException as error:
            # Never leave the app at zero: a unit stuck dying (a failed stop or remove hook
            # that Juju keeps retrying), a timed-out `juju`, or a Ctrl-C while at zero.
            await _scale_back(lab, app, count, error)
            raise
        up, _ = await timed(lab, f"scale {app} to {count}", lambda: lab.juju.scale(app, count))
        back, _ = await waited_step(
            lab,
            f"wait for {counted(count, app + ' unit')} with Ready pods",
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
            f"{app} at {counted(count, 'unit')} and {counted(count, 'pod')}"
            + (" Ready" if count else ""),
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
