"""The one place that decides what a disruption does to one unit (SIMULATED).

Both entry points follow it: ``run_disruption`` (one unit as an ops.testing State) and
``Twin`` (the simulated model behind ``make_lab`` and ``repro run --backend twin``). From
the catalogue entry alone it decides:

- the hooks, in order (``hooks.plan``), split into those that run before the change (in
  the old pod, up to and including ``stop``) and those after it; a branch that rolls the
  pod twice (``stop`` again, then a new pod's ``upgrade-charm``) changes it twice;
- the change: which containers start again from their image (fresh root filesystem,
  empty Pebble plan), whether the pod is new (a new ``charm-data`` EmptyDir: the charm
  directory and the unit's local state), and whether the unit's agent restarts;
- for a disruption that removes the unit (one with ``new_units``): what the unit
  that comes back on the same ordinal keeps (name, storage, databags) and which
  lifecycle entry it runs (``new_units``).

Each entry point applies the decision to its own representation; none decides again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from harness.catalogue.model import Expectation
from harness.common.errors import HarnessError
from harness.twin.hooks import plan
from harness.twin.model import CHARM_CONTAINER

# A removed unit tears down; where the catalogue leaves these optional (a teardown that
# may be cut short), the twin shows the whole of it.
TEARDOWN_TRIGGERS = ("relation-departed", "relation-broken", "storage-detaching", "stop", "remove")


@dataclass(frozen=True)
class Change:
    """What happens to the unit's pod between the hooks before and after it."""

    fresh_roots: tuple[str, ...]  # containers that start again from their image
    new_pod: bool  # a new charm-data EmptyDir: fresh charm directory, unit state lost
    agent_restarted: bool  # the uniter starts again ("reboot detected")
    label: str  # for steps and errors: "new pod", "node restarted", ...
    pebble_state_kept: bool = False  # Pebble's state dir (notices) outlives the restart

    def restarts(self, container: str) -> bool:
        return container in self.fresh_roots


@dataclass(frozen=True)
class Arrival:
    """The unit that comes back on a freed ordinal after the old one was removed."""

    expectation: Expectation  # the lifecycle entry it runs (deploy)
    same_name: bool  # app/<ordinal> again (the old unit's name)
    storage_kept: bool  # the old unit's volumes are attached again
    unit_databags: Literal["kept", "empty"]


@dataclass(frozen=True)
class UnitPlan:
    """Everything a disruption does to one unit, in order: the hooks of ``segments[0]``,
    then for each further segment the change and its hooks."""

    expectation: Expectation
    segments: tuple[tuple[str, ...], ...]
    change: Change
    arrival: Arrival | None = None  # set when the unit is removed and a new one comes

    @property
    def before(self) -> tuple[str, ...]:
        """Hooks before the (first) change: in the old pod or containers."""
        return self.segments[0]

    @property
    def after(self) -> tuple[tuple[str, ...], ...]:
        """The hooks after each change."""
        return self.segments[1:]

    @property
    def step_before(self) -> str:
        return "teardown" if self.arrival else f"before: {self.change.label}"

    def step_after(self, index: int) -> str:
        """The step of ``after[index]``: ``after: new pod`` (``after: new pod #2``)."""
        return f"after: {self.change.label}" + (f" #{index + 1}" if index else "")

    @property
    def hooks(self) -> tuple[str, ...]:
        return tuple(hook for segment in self.segments for hook in segment)


def decide(
    expectation: Expectation,
    *,
    containers: Sequence[str],
    endpoints: Sequence[str],
    storages: Sequence[str],
    leader: bool,
    target: str | None = None,
    deploy: Expectation | None = None,
) -> UnitPlan:
    """What ``expectation`` does to one unit with these containers, relations, storages.

    ``target`` is the restarted container for an entry scoped to one container
    (``container-restart``): a workload container or ``charm``. ``deploy`` is the
    lifecycle entry a replacing unit runs when the entry itself names none.
    """
    workload = tuple(containers)
    survives = expectation.survives
    # The unit goes and a new one comes on its ordinal (scale-down-up).
    removed = expectation.new_units is not None or "remove" in expectation.hooks
    if expectation.scope == "container":
        if target is None:
            raise HarnessError(
                f"{expectation.label} restarts one container and none was named",
                f"name one of: {', '.join((*workload, CHARM_CONTAINER))}",
            )
        everything: tuple[str, ...] = (target,)
    else:
        everything = (CHARM_CONTAINER, *workload)
    new_pod = survives.get("charm-dir", True) is False and expectation.scope != "container"
    fresh = everything if new_pod or survives.get("container-root", True) is False else ()
    if removed:
        fresh, new_pod = (), False  # the pod goes; the arrival starts from scratch
    change = Change(
        fresh_roots=fresh,
        new_pod=new_pod,
        agent_restarted=CHARM_CONTAINER in fresh,
        label=_label(expectation, fresh, new_pod, removed),
        pebble_state_kept=expectation.pebble_state == "kept" and not new_pod,
    )
    restarted_workload = [c for c in fresh if c != CHARM_CONTAINER]
    triggers: list[str] = []
    if restarted_workload:
        triggers.append("pebble-ready")
    if removed:
        triggers.extend(TEARDOWN_TRIGGERS)
    # A restart of one workload container concerns that container's hooks only.
    named = workload if target in (None, CHARM_CONTAINER) else (target,)
    hooks = plan(
        expectation,
        containers=named,
        endpoints=endpoints,
        storages=storages,
        leader=leader,
        triggers=triggers,
    )
    if removed:
        # ``remove`` is the last hook a unit sees (Juju "Hook" reference); a hook the
        # catalogue allows "anywhere" goes before it.
        if "remove" in hooks:
            hooks = (*(h for h in hooks if h != "remove"), "remove")
        return UnitPlan(expectation, (hooks,), change, _arrival(expectation, deploy))
    if not fresh and not new_pod:
        return UnitPlan(expectation, ((), hooks), change)
    cuts = _cuts(hooks)
    bounds = zip((0, *cuts), (*cuts, len(hooks)), strict=True)
    return UnitPlan(expectation, tuple(hooks[a:b] for a, b in bounds), change)


def _cuts(hooks: tuple[str, ...]) -> tuple[int, ...]:
    """Where the change happens: after the first ``stop`` (at the start when none), and
    after any later ``stop`` that a new pod's ``upgrade-charm`` follows (a second roll;
    a ``stop`` retried in the new pod, followed by ``start``, is not one)."""
    stops = [i for i, hook in enumerate(hooks) if hook == "stop"]
    if not stops:
        return (0,)
    cuts = [stops[0] + 1]
    for index, stop in enumerate(stops[1:], 1):
        end = stops[index + 1] if index + 1 < len(stops) else len(hooks)
        if "upgrade-charm" in hooks[stop + 1 : end]:
            cuts.append(stop + 1)
    return tuple(cuts)


def lifecycle(
    expectation: Expectation,
    *,
    containers: Sequence[str],
    endpoints: Sequence[str],
    storages: Sequence[str],
    leader: bool,
    created: bool = True,
) -> tuple[str, ...]:
    """The hooks of a lifecycle entry (deploy, integrate) for a unit: every workload
    container is starting, so their ``pebble-ready`` runs, and each relation in
    ``endpoints`` exists, so its ``relation-created`` runs where the entry places it (a
    deploying unit's right after install). ``created=False``: the unit already ran
    ``relation-created`` (when it arrived), so joining leaves it out."""
    hooks = plan(
        expectation,
        containers=containers,
        endpoints=endpoints,
        storages=storages,
        leader=leader,
        triggers=("pebble-ready", "relation-created"),
    )
    if created:
        return hooks
    return tuple(hook for hook in hooks if not hook.endswith("-relation-created"))


def _arrival(expectation: Expectation, deploy: Expectation | None) -> Arrival:
    chosen = expectation.new_units or deploy
    if chosen is None:
        raise HarnessError(
            f"{expectation.label} removes the unit but names no entry for the new one",
            "give the catalogue entry new_units: deploy",
        )
    return Arrival(
        expectation=chosen,
        same_name=expectation.unit_identity == "kept" or expectation.unit_name == "reused",
        storage_kept=expectation.survives.get("storage", False),
        unit_databags="kept" if expectation.relation_data == "kept" else "empty",
    )


def _label(expectation: Expectation, fresh: tuple[str, ...], new_pod: bool, removed: bool) -> str:
    if removed:
        return "unit removed"
    if new_pod:
        return "new pod"
    if not fresh:
        return "nothing restarted"
    if expectation.scope == "container":
        return f"container {fresh[0]} restarted"
    return "every container restarted"
