"""pod-spec-change: an external patch of the application's StatefulSet pod template.

A fresh annotation value on ``spec.template.metadata`` makes Kubernetes roll every pod,
highest ordinal first: the scenario behind Juju bug 1830745 (relation data lost when a
pod-spec change replaced the pods).
"""

from __future__ import annotations

from typing import ClassVar

from harness.common.observations import Step
from harness.disrupt.base import Disruption
from harness.disrupt.steps import (
    WAIT_TIMEOUT,
    delete_every_pod_at_once,
    existing_pods,
    timed,
    wait_all_replaced,
    wait_zero_running,
    waited_step,
)
from harness.lab.ports import Lab
from harness.scenario.scenarios import Target

ANNOTATION = "lifecycle-harness/disrupted-at"


async def zero_pods_moment(lab: Lab, target: Target, timeout: float) -> tuple[Step, ...]:
    """With ``target.zero_pods``: every pod deleted at once, until none is running."""
    if not target.zero_pods:
        return ()
    deleted, seen = await delete_every_pod_at_once(lab, target.app)
    if seen:
        return (deleted,)
    zero, _ = await waited_step(
        lab,
        f"wait for zero running {target.app} pods",
        lambda: wait_zero_running(lab, target.app, timeout),
    )
    return (deleted, zero)


def token(lab: Lab, prefix: str) -> str:
    return f"{prefix}-{lab.clock.now().strftime('%Y%m%dT%H%M%S%f')}"


class PodSpecChange(Disruption):
    name: ClassVar[str] = "pod-spec-change"
    summary: ClassVar[str] = (
        "StatefulSet pod template patched from outside: every pod replaced, highest ordinal first"
    )

    def __init__(self, *, timeout: float = WAIT_TIMEOUT) -> None:
        self.timeout = timeout

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        before = await existing_pods(lab, target.app)
        value = token(lab, self.name)
        patch, _ = await timed(
            lab,
            f"patch statefulset {target.app} pod template",
            lambda: lab.cluster.patch_pod_template(target.app, {ANNOTATION: value}),
            f"{ANNOTATION}={value}",
        )
        zero = await zero_pods_moment(lab, target, self.timeout)
        wait, _ = await waited_step(
            lab,
            f"wait for every {target.app} pod to be replaced",
            lambda: wait_all_replaced(lab, target.app, before, self.timeout),
        )
        return (patch, *zero, wait)

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        body = (
            '{"spec":{"template":{"metadata":{"annotations":{"'
            + ANNOTATION
            + '":"pod-spec-change-<time>"}}}}}'
        )
        zero = (
            (
                f"kubectl -n {namespace} delete pod --wait=false "
                f"-l app.kubernetes.io/name={target.app}",
            )
            if target.zero_pods
            else ()
        )
        return (
            f"kubectl -n {namespace} patch statefulset {target.app} --type merge -p '{body}'",
            *zero,
            f"kubectl -n {namespace} rollout status statefulset/{target.app} "
            f"--timeout={self.timeout:.0f}s",
        )
