"""charm-pod-spec-change: the probe patches its own StatefulSet pod template.

``juju config probe pod-template-annotation=<token>``: the probe charm (trusted) writes the
token as a pod template annotation, the sidecar-era ``pod-spec-set``. Only the probe has
that option, and it needs ``juju trust``.
"""

from __future__ import annotations

from typing import ClassVar

from harness.disrupt.base import Disruption, Target
from harness.disrupt.pod_spec_change import token, zero_pods_moment
from harness.disrupt.steps import (
    WAIT_TIMEOUT,
    existing_pods,
    timed,
    wait_all_replaced,
    waited_step,
)
from harness.observations import Step
from harness.ports import Lab

OPTION = "pod-template-annotation"


class CharmPodSpecChange(Disruption):
    name: ClassVar[str] = "charm-pod-spec-change"
    summary: ClassVar[str] = (
        "the probe patches its own pod template (config option, needs trust): pods replaced"
    )
    for_any_charm: ClassVar[bool] = False

    def __init__(self, *, timeout: float = WAIT_TIMEOUT) -> None:
        self.timeout = timeout

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        before = await existing_pods(lab, target.app)
        # The patch needs cluster-scoped trust; without it the probe only blocks, so grant it
        # as part of the disruption (idempotent) rather than fail after a long wait.
        trust, _ = await timed(
            lab,
            f"juju trust {target.app} --scope=cluster",
            lambda: lab.juju.trust(target.app),
        )
        value = token(lab, self.name)
        config, _ = await timed(
            lab,
            f"juju config {target.app} {OPTION}",
            lambda: lab.juju.set_config(target.app, {OPTION: value}),
            f"{OPTION}={value}",
        )
        zero = await zero_pods_moment(lab, target, self.timeout)
        wait, _ = await waited_step(
            lab,
            f"wait for every {target.app} pod to be replaced",
            lambda: wait_all_replaced(lab, target.app, before, self.timeout),
        )
        return (trust, config, *zero, wait)

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        return (
            f"juju trust -m {lab_model} {target.app} --scope=cluster",
            f"juju config -m {lab_model} {target.app} {OPTION}=charm-pod-spec-change-<time>",
            f"kubectl -n {namespace} rollout status statefulset/{target.app} "
            f"--timeout={self.timeout:.0f}s",
        )
