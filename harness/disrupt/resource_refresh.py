"""resource-refresh: ``juju refresh APP --resource name=image`` with a new image reference.

A new OCI image changes the StatefulSet's container image, so every pod is replaced. For a
local charm the refresh needs the charm again (``--path``), given as ``charm_path``.
"""

from __future__ import annotations

from typing import ClassVar

from harness.common.errors import HarnessError
from harness.common.observations import Step
from harness.disrupt.base import Disruption
from harness.disrupt.steps import (
    WAIT_TIMEOUT,
    existing_pods,
    timed,
    wait_all_replaced,
    waited_step,
)
from harness.lab.ports import Lab
from harness.scenario.scenarios import Target


def resource_of(target: Target) -> tuple[str, str]:
    name, sep, image = (target.resource or "").partition("=")
    if not sep or not name or not image:
        raise HarnessError(
            f"resource-refresh of {target.app} needs a resource as name=image "
            f"(got {target.resource!r})",
            "set Target.resource, e.g. workload-image=ubuntu/nginx:1.18-22.04_beta",
        )
    return name, image


class ResourceRefresh(Disruption):
    name: ClassVar[str] = "resource-refresh"
    summary: ClassVar[str] = "juju refresh --resource with a new image: every pod replaced"

    def __init__(self, *, charm_path: str | None = None, timeout: float = WAIT_TIMEOUT) -> None:
        self.charm_path = charm_path
        self.timeout = timeout

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        name, image = resource_of(target)
        before = await existing_pods(lab, target.app)
        refresh, _ = await timed(
            lab,
            f"juju refresh {target.app} --resource {name}",
            lambda: lab.juju.refresh(target.app, path=self.charm_path, resources={name: image}),
            f"{name}={image}",
        )
        wait, _ = await waited_step(
            lab,
            f"wait for every {target.app} pod to be replaced",
            lambda: wait_all_replaced(lab, target.app, before, self.timeout),
        )
        return (refresh, wait)

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        name, image = resource_of(target)
        path = f" --path {self.charm_path}" if self.charm_path else ""
        return (
            f"juju refresh -m {lab_model} {target.app}{path} --resource {name}={image}",
            f"kubectl -n {namespace} rollout status statefulset/{target.app} "
            f"--timeout={self.timeout:.0f}s",
        )
