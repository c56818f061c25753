"""charm-refresh: ``juju refresh APP --path <the same .charm>``: the pods roll, upgrade-charm.

Done when every pod has been replaced (a new uid, Ready), not when ``juju status`` shows
the new revision: that changes before any pod does.

We refresh to the same local charm rather than ``--channel`` (Charmhub will not refresh to
the revision already running, so that is a no-op error); a local refresh always makes a new
revision. The charm's path comes from the constructor (``--probe-charm`` in the CLI).
"""

from __future__ import annotations

from typing import ClassVar

from harness.common.errors import HarnessError
from harness.common.observations import Step
from harness.common.versions import CharmVersion
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

NEEDS_PATH = "pass the probe's .charm file (--probe-charm PATH)"


class CharmRefresh(Disruption):
    name: ClassVar[str] = "charm-refresh"
    summary: ClassVar[str] = "juju refresh with the same charm: pods roll, upgrade-charm on each"

    def __init__(self, *, charm_path: str | None = None, timeout: float = WAIT_TIMEOUT) -> None:
        self.charm_path = charm_path
        self.timeout = timeout

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        path = self.charm_path
        if not path:
            raise HarnessError(f"charm-refresh of {target.app} needs a local charm", NEEDS_PATH)
        pods = await existing_pods(lab, target.app)
        refresh, _ = await timed(
            lab,
            f"juju refresh {target.app} --path",
            lambda: lab.juju.refresh(target.app, path=path),
            path,
        )
        # `juju status` shows the new charm-rev before any pod has rolled; the pods are
        # what changes the units (stop in the old pod, upgrade-charm in the new one).
        wait, _ = await waited_step(
            lab,
            f"wait for every {target.app} pod to be replaced",
            lambda: wait_all_replaced(lab, target.app, pods, self.timeout),
        )
        return (refresh, wait)

    @staticmethod
    async def _charm(lab: Lab, app: str) -> CharmVersion | None:
        versions = await lab.juju.versions()
        return next((c for c in versions.charms if c.app == app), None)

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        path = self.charm_path or "<the .charm file: --probe-charm PATH>"
        return (
            f"juju refresh -m {lab_model} {target.app} --path {path}",
            f"kubectl -n {namespace} rollout status statefulset/{target.app} "
            f"--timeout={self.timeout:.0f}s",
        )
