"""What each disruption does to the simulated world: for every unit it touches, the
engine's decision (``harness.twin.engine``) applied to its pod, with the hooks before and
after the change run by the uniter.

Each operation here is Kubernetes' (a pod deleted, a template rolled, a PID 1 killed, the
node stopped and started, a StatefulSet scaled down); ``Twin`` settles the model after it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from harness.catalogue.model import Expectation
from harness.common.errors import UnknownName
from harness.twin.engine import Change, UnitPlan, decide
from harness.twin.expectations import Expectations
from harness.twin.leadership import leads
from harness.twin.model import App, Unit
from harness.twin.node import Node
from harness.twin.records import Records
from harness.twin.uniter import Uniter


class Churn:
    """Disruptions applied to one model's pods and records."""

    def __init__(
        self, records: Records, node: Node, uniter: Uniter, expectations: Expectations
    ) -> None:
        self.records = records
        self.node = node
        self.uniter = uniter
        self.expectations = expectations
        # node-restart: units whose change and hooks wait for the node to start again
        self._after_start: list[tuple[Unit, UnitPlan, str]] = []

    # The engine decides, this applies it to pods ---------------------------------------

    def plan(self, unit: Unit, expectation: Expectation, target: str | None = None) -> UnitPlan:
        app = self.records.apps[unit.app]
        return decide(
            expectation,
            containers=app.charm.containers,
            endpoints=self.records.endpoints(unit),
            storages=app.charm.storages,
            leader=leads(app, unit),
            target=target,
            deploy=self.expectations.expect("deploy"),
        )

    def apply_change(self, unit: Unit, change: Change, reason: str) -> None:
        """The engine's change, on the unit's pod."""
        app = self.records.apps[unit.app]
        if change.new_pod:
            self.node.replace_pod(app, unit)
            return
        for container in change.fresh_roots:
            self.node.restart_container(app, unit, container, reason)

    def disrupt_unit(
        self,
        unit: Unit,
        expectation: Expectation,
        cause: str,
        *,
        target: str | None = None,
        reason: str = "Error (exit 137)",
    ) -> None:
        """One unit through one disruption: hooks before, the change, hooks after."""
        plan = self.plan(unit, expectation, target)
        self.uniter.run_hooks(unit, plan.before, cause)
        for hooks in plan.after:
            self.apply_change(unit, plan.change, reason)
            self.uniter.run_hooks(unit, hooks, cause)

    # One operation each ----------------------------------------------------------------

    def delete_pod(self, pod: str) -> None:
        unit = self.records.unit_of_pod(pod)
        self.disrupt_unit(unit, self.expectations.expect("pod-delete"), "pod-delete")

    def roll(self, app: App, cause: str) -> None:
        """A new pod template: StatefulSet RollingUpdate, highest ordinal first, one by one."""
        expectation = self.expectations.expect(cause)
        for unit in sorted(app.units, key=lambda u: u.pod.ordinal, reverse=True):
            self.disrupt_unit(unit, expectation, cause)

    def patch_template(self, app_name: str, annotations: Mapping[str, str], cause: str) -> bool:
        """Whether the template changed (and the pods rolled)."""
        app = self.records.app(app_name)
        template = {**app.template, **annotations}
        if template == app.template:
            return False  # Kubernetes does not roll pods for an unchanged template
        app.template = template
        self.roll(app, cause)
        return True

    def kill_pid1(self, pod: str, container: str, variant: str | None = None) -> None:
        """PID 1 of one container dies; ``variant`` is the branch its signal gives (the
        port picks it), else the lab's chosen branch or the container's SIGTERM one."""
        unit = self.records.unit_of_pod(pod)
        if container not in unit.pod.containers:
            known = ", ".join(unit.pod.containers)
            raise UnknownName(f"pod {pod} has no container {container!r}", f"use one of: {known}")
        if variant is not None:
            expectation = self.expectations.branch("container-restart", variant)
        else:
            expectation = self.expectations.expect("container-restart", container=container)
        self.disrupt_unit(unit, expectation, "container-restart", target=container)

    def refresh(self, app_name: str, resources: Mapping[str, str] | None) -> None:
        """juju refresh updates the StatefulSet (charm revision, images): pods roll."""
        app = self.records.app(app_name)
        app.revision += 1
        if resources:
            app.resources.update(resources)
        app.template = {
            **app.template,
            "twin.simulated/charm-revision": str(app.revision),
            "twin.simulated/resources": _digest(app.resources),
        }
        self.roll(app, "resource-refresh" if resources else "charm-refresh")

    def node_stop(self) -> None:
        """The node goes down: hooks before the change (if any) run, then nothing runs."""
        if not self.node.up:
            return
        expectation = self.expectations.expect("node-restart")
        for unit in self.records.all_units():
            plan = self.plan(unit, expectation)
            self.uniter.run_hooks(unit, plan.before, "node-restart")
            self._after_start.append((unit, plan, "Unknown (node restarted)"))
        self.node.stop(self.records.all_units())

    def node_start(self) -> bool:
        """The same pods (same uids) come back; the engine's change, then the hooks.
        Whether the node was stopped (a running node is left as it is)."""
        if self.node.up:
            return False
        pending, self._after_start = self._after_start, []
        for unit, plan, reason in pending:
            self.apply_change(unit, plan.change, reason)
        self.node.start(self.records.all_units())
        for unit, plan, reason in pending:
            for index, hooks in enumerate(plan.after):
                if index:
                    self.apply_change(unit, plan.change, reason)
                self.uniter.run_hooks(unit, hooks, "node-restart")
        return True

    def scale_down(self, app: App, count: int, expectation: Expectation) -> None:
        """The StatefulSet's scale drops the highest ordinals at once: every leaving unit
        tears down while the others are still there (so each departs from each)."""
        leaving = sorted(app.units, key=lambda u: u.pod.ordinal, reverse=True)
        leaving = leaving[: max(0, len(app.units) - count)]
        plans = [(unit, self.plan(unit, expectation)) for unit in leaving]
        for unit, plan in plans:
            self.uniter.run_hooks(unit, plan.before, "scale-down-up")
        for unit, _ in plans:
            # The unit has torn down; its pod and unit record are gone.
            self.records.remove_unit(app, unit)
            self.node.remove_pod(unit)


def _digest(values: Mapping[str, str]) -> str:
    text = "\n".join(f"{k}={v}" for k, v in sorted(values.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
