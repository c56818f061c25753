"""The simulation: one Juju model on one Kubernetes node, in-process.

``Twin`` composes the controller's records (``records.py``: applications, units,
relations and databags; ``leadership.py``), the node and its pods (``node.py``: uids,
restart counts, filesystem layers), the uniter that runs hooks through ops.testing
(``uniter.py``) and the disruptions applied to pods (``churn.py``). The ports in
``juju.py`` and ``cluster.py`` are thin views over it.

Here units and relations come into the model, each operation a port asks for is carried
out, and then the model settles: the ``relation-changed`` hooks and template rollouts it
still owes run. Which hooks the uniter runs for each is Juju's behaviour and comes from the
expectation catalogue (``expectations.py``); what a disruption does to a unit is decided
by ``harness.twin.engine``, the same decision ``run_disruption`` follows.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path

from harness.catalogue.model import Expectation
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion
from harness.twin.charms import CharmSource
from harness.twin.churn import Churn
from harness.twin.clock import TwinClock
from harness.twin.expectations import Expectations, ExpectationSource
from harness.twin.model import App, RelationEnd, TwinRelation, Unit
from harness.twin.node import Node
from harness.twin.records import Records
from harness.twin.uniter import Uniter

MAX_CASCADE = 200  # relation-changed hooks after one operation before we call it a loop


class Twin:
    """One simulated Juju model on Kubernetes."""

    def __init__(
        self,
        workdir: Path,
        *,
        juju_version: JujuVersion,
        expectations: ExpectationSource,
        charms: Mapping[str, CharmSource],
        clock: TwinClock | None = None,
        variants: Mapping[str, str] | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.version = juju_version
        self.clock = clock or TwinClock()
        self.charms = dict(charms)
        self.expectations = Expectations(expectations, juju_version, variants)
        self.records = Records(juju_version)
        self.node = Node(self.workdir, self.clock)
        self.uniter = Uniter(self.records, self.node, self.clock)
        self.churn = Churn(self.records, self.node, self.uniter, self.expectations)

    def settle(self) -> None:
        """Run what the model still owes: relation-changed hooks, then template rollouts."""
        uniter = self.uniter
        ran = 0
        while self.node.up and (uniter.owed_changes or uniter.owed_patches):
            while uniter.owed_changes:
                app_name, number, rid, remote = uniter.owed_changes.pop(0)
                app = self.records.apps.get(app_name)
                target = app.unit(number) if app else None
                relation = self.records.relation(rid)
                if target is None or relation is None:
                    continue
                hook = f"{relation.end(app_name).endpoint}-relation-changed"
                uniter.run_hook(target, hook, "relation-data", relation_id=rid, remote_unit=remote)
                ran += 1
                if ran > MAX_CASCADE:
                    raise HarnessError(
                        f"relation-changed kept firing after {MAX_CASCADE} hooks (simulated)",
                        "a charm rewrites its databag on every relation-changed; fix the charm",
                    )
            if uniter.owed_patches:
                statefulset, annotations = uniter.owed_patches.pop(0)
                if statefulset in self.records.apps:
                    self.patch_template(statefulset, annotations, "charm-pod-spec-change")

    # Units and relations come into the model ---------------------------------------------

    def deploy_app(self, app: App, units: int) -> None:
        self.records.add_app(app)
        self.add_units(app, units, self.expectations.expect("deploy"))

    def add_units(self, app: App, count: int, deploy: Expectation) -> None:
        """New units with new pods: the deploy hooks, then joining every relation.

        A unit on an ordinal a removed unit freed takes over what the engine says it keeps
        (its name and its volumes, per the catalogue); its unit databags start afresh.
        """
        placed = (*deploy.hooks, *(h.hook for h in deploy.optional if h.required))
        # Where the catalogue has no storage-attached, the volume is there from the start.
        attach_early = not any(h.endswith("-storage-attached") for h in placed)
        new: list[Unit] = []
        used = {u.pod.ordinal for u in app.units}
        for _ in range(count):
            ordinal = next(i for i in itertools.count() if i not in used)
            used.add(ordinal)
            number, index = self._identity(app, ordinal)
            unit = Unit(app.name, number, self.node.new_pod(app, ordinal, index), index)
            unit.storage_attached = attach_early
            self.records.add_unit(app, unit)
            new.append(unit)
        for unit in new:
            self.uniter.run_lifecycle(unit, deploy, "deploy")
        integrate = self.expectations.expect("integrate")
        for unit in new:
            for relation in self.records.relations:
                if relation.involves(app.name):
                    # relation-created ran with the deploy hooks: the relation was there.
                    self._join(unit, relation, integrate, created=False)
        self.settle()

    def _identity(self, app: App, ordinal: int) -> tuple[int, dict[str, int]]:
        """(unit number, storage indices) for a new unit on ``ordinal``."""
        freed = self.records.freed(app, ordinal)
        arrival = None
        if freed is not None:
            arrival = self.churn.plan(freed, self.expectations.expect("scale-down-up")).arrival
        if arrival is not None and arrival.same_name:
            number = freed.number if freed is not None else ordinal
        else:
            number = app.next_unit
        app.next_unit = max(app.next_unit, number + 1)
        if freed is not None and arrival is not None and arrival.storage_kept:
            return number, dict(freed.storage_index)
        # Juju numbers storage model-wide; one new number per unit is enough for one app.
        taken = max((i for u in app.units for i in u.storage_index.values()), default=-1)
        fresh = max(number, taken + 1) if freed is not None else number
        return number, {name: fresh for name in app.charm.storages}

    def _join(
        self, unit: Unit, relation: TwinRelation, integrate: Expectation, *, created: bool = True
    ) -> None:
        self.uniter.run_lifecycle(
            unit,
            integrate,
            "integrate",
            endpoints=(relation.end(unit.app).endpoint,),
            relation_id=relation.id,
            created=created,
        )

    def integrate(self, a: RelationEnd, b: RelationEnd) -> TwinRelation:
        relation = self.records.relate(a, b)
        integrate = self.expectations.expect("integrate")
        for end in (a, b):
            for unit in sorted(self.records.apps[end.app].units, key=lambda u: u.number):
                self._join(unit, relation, integrate)
        self.settle()
        return relation

    # What the ports ask for: a disruption (``churn.py``), then the model settles ---------

    def delete_pod(self, pod: str) -> None:
        self.churn.delete_pod(pod)
        self.settle()

    def patch_template(self, app_name: str, annotations: Mapping[str, str], cause: str) -> None:
        if self.churn.patch_template(app_name, annotations, cause):
            self.settle()

    def kill_pid1(self, pod: str, container: str, variant: str | None = None) -> None:
        self.churn.kill_pid1(pod, container, variant)
        self.settle()

    def refresh(self, app_name: str, resources: Mapping[str, str] | None) -> None:
        self.churn.refresh(app_name, resources)
        self.settle()

    def node_stop(self) -> None:
        self.churn.node_stop()

    def node_start(self) -> None:
        if self.churn.node_start():
            self.settle()

    def scale(self, app_name: str, count: int) -> None:
        if count < 0:
            raise HarnessError(f"cannot scale {app_name} to {count}", "give 0 or more units")
        app = self.records.app(app_name)
        expectation = self.expectations.expect("scale-down-up")
        self.churn.scale_down(app, count, expectation)
        if len(app.units) < count:
            deploy = expectation.new_units or self.expectations.expect("deploy")
            self.add_units(app, count - len(app.units), deploy)
        self.settle()
