"""Which hooks the twin's uniter runs, and how each becomes an ops.testing event.

The sequence is the catalogue's (one source of truth): ``Expectation.expected_sequence``
gives the required hooks in order with the required placed hooks (``where``) and the
leadership hooks for this unit (``leader-settings-changed`` on non-leaders where listed).
An optional hook that is neither required nor about leadership is run only when what
triggers it happened in the simulation (``triggers``: ``pebble-ready`` when a workload
container started, ``relation-departed``/``-broken``/``storage-detaching`` when a unit is
removed); it is then placed exactly like a required one: at the latest place its ``where``
allows, ``anywhere`` meaning after the last hook.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ops.testing import CharmEvents, RelationBase, State

from harness.catalogue.hooknames import parse
from harness.catalogue.model import Expectation

# An ops.testing event (its class is private to ops.testing; only Context.on makes them).
Event = Any

# Hooks with a Context.on constructor that takes no argument.
SIMPLE_HOOKS = frozenset(
    {
        "install",
        "start",
        "stop",
        "remove",
        "update-status",
        "config-changed",
        "upgrade-charm",
        "leader-elected",
        "pre-series-upgrade",
        "post-series-upgrade",
    }
)
# Hooks Juju dispatches that ops.testing offers no public constructor for: the only way
# would be its private ``_Event``; the twin records them as skipped instead.
NO_CONSTRUCTOR = {
    "leader-settings-changed": "ops.testing has no public constructor for it "
    "(Context.on has no leader_settings_changed)",
    "leader-deposed": "ops.testing has no public constructor for it",
    "collect-metrics": "ops.testing has no public constructor for it",
}
RELATION_KINDS = ("created", "joined", "changed", "departed", "broken")


@dataclass(frozen=True)
class Skip:
    """A hook the twin did not run, and why."""

    hook: str
    reason: str


def family(template: str) -> str:
    """``{container}-pebble-ready`` -> ``pebble-ready``; plain hooks are their own family."""
    name = parse(template)
    return name.suffix.lstrip("-") if name.is_template else name.text


def plan(
    expectation: Expectation,
    *,
    containers: Sequence[str],
    endpoints: Sequence[str],
    storages: Sequence[str],
    leader: bool,
    triggers: Collection[str] = (),
) -> tuple[str, ...]:
    """The concrete hooks one unit runs for ``expectation``, in order."""
    optional = tuple(
        replace(hook, required=True)
        if hook.when == "always" and family(hook.hook) in triggers
        else hook
        for hook in expectation.optional
    )
    chosen = replace(expectation, optional=optional)
    return chosen.expected_sequence(containers, endpoints, storages, leader=leader)


def event_for(
    on: CharmEvents,
    hook: str,
    state: State,
    *,
    relation_id: int | None = None,
    remote_unit: int | None = None,
) -> Event | Skip:
    """The ops.testing event for ``hook`` on ``state``, or why there is none."""
    if hook in SIMPLE_HOOKS:
        event: Event = getattr(on, hook.replace("-", "_"))()
        return event
    if hook in NO_CONSTRUCTOR:
        return Skip(hook, NO_CONSTRUCTOR[hook])
    for container in state.containers:
        if hook == f"{container.name}-pebble-ready":
            return on.pebble_ready(container)
    for storage in state.storages:
        if hook == f"{storage.name}-storage-attached":
            return on.storage_attached(storage)
        if hook == f"{storage.name}-storage-detaching":
            return on.storage_detaching(storage)
    for kind in RELATION_KINDS:
        suffix = f"-relation-{kind}"
        if hook.endswith(suffix):
            return _relation_event(
                on, hook, hook[: -len(suffix)], kind, state, relation_id, remote_unit
            )
    if hook.startswith("secret-"):
        return Skip(hook, "secret events need a secret; the twin does not model secrets")
    return Skip(hook, "no container, storage or relation endpoint of this charm has that name")


def _relation_event(
    on: CharmEvents,
    hook: str,
    endpoint: str,
    kind: str,
    state: State,
    relation_id: int | None,
    remote_unit: int | None,
) -> Event | Skip:
    candidates = [r for r in state.relations if r.endpoint == endpoint]
    if relation_id is not None:
        candidates = [r for r in candidates if r.id == relation_id]
    if not candidates:
        return Skip(hook, f"the unit has no {endpoint!r} relation")
    relation: RelationBase = sorted(candidates, key=lambda r: r.id)[0]
    if kind == "created":
        return on.relation_created(relation)
    if kind == "broken":
        return on.relation_broken(relation)
    if kind == "joined":
        return on.relation_joined(relation, remote_unit=remote_unit)
    if kind == "changed":
        return on.relation_changed(relation, remote_unit=remote_unit)
    return on.relation_departed(relation, remote_unit=remote_unit, departing_unit=remote_unit)
