"""``run_disruption``: put one unit of any ops charm through a disruption, in a unit test.

    from ops import testing
    from harness.twin import run_disruption

    ctx = testing.Context(MyCharm)
    state = testing.State(leader=True, containers={testing.Container("app", can_connect=True)})
    result = run_disruption(ctx, state, "pod-delete")
    assert result.hooks == ("stop", "upgrade-charm", "config-changed", "start", "app-pebble-ready")
    assert result.read_text("app", "/etc/app/app.conf") is not None  # written again?

The hooks are the catalogue's for the Juju version (the twin never invents a sequence);
between them the filesystem layers behave as on Kubernetes:

- a container's root filesystem is fresh whenever that container starts again (new pod,
  node restart, container restart): every ``Mount`` of the container is treated as part
  of its root filesystem unless named in ``storage_mounts`` (those are volumes and kept);
  Pebble layers and service statuses start empty too;
- the charm directory's unit state (``stored_states``, deferred events) is lost with the
  pod, unless ``use_juju_for_storage=True`` (ops' controller-backed StoredState);
- relations, leadership, config, secrets and storages live on the controller: kept.
  ``scale-down-up`` replaces the unit: its own unit databags start again from Juju's
  defaults and it runs the deploy and integrate hooks.

The Context's charm root is left as given: a new pod gets the same charm code.
Hooks ops.testing cannot dispatch (``leader-settings-changed``) are listed in
``result.skipped`` with the reason, never dropped silently. An exception in the charm
propagates as ops.testing raises it.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import weakref
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from ops import testing

from harness.catalogue.model import Expectation
from harness.disrupt.base import NAMES
from harness.errors import HarnessError, UnknownName
from harness.twin import layers
from harness.twin.hooks import RELATION_KINDS, Skip, event_for, plan
from harness.twin.model import CHARM_CONTAINER
from harness.twin.world import ExpectationSource
from harness.versions import JujuVersion

REFUSED = {
    "resource-refresh": "resource-refresh only makes sense live: it needs a real image "
    "reference for Juju to roll out",
    "charm-pod-spec-change": "charm-pod-spec-change needs the probe charm patching its own "
    "StatefulSet; run the twin lab (harness.twin.make_lab) for it",
}
# Disruptions whose pod is replaced: the unit's local state goes with it.
_NEW_POD = frozenset({"pod-delete", "pod-spec-change", "charm-refresh"})


@dataclass(frozen=True)
class TwinResult:
    """What one simulated disruption did to one unit. Always ``simulated``."""

    disruption: str
    juju_version: str
    hooks: tuple[str, ...]  # the hooks that ran, in order
    skipped: tuple[tuple[str, str], ...]  # (hook, why the twin could not run it)
    state: testing.State  # the final state
    simulated: bool = True
    # Each container's root filesystem layer at the end (for paths no mount covers).
    _roots: Mapping[str, Path] = field(default_factory=dict, repr=False, compare=False)

    def path(self, container: str, path: str) -> Path:
        """Where a file of the container's final filesystem lives on this machine."""
        found = self.state.get_container(container)
        best: tuple[int, Path] | None = None
        for mount in found.mounts.values():
            location = PurePosixPath(str(mount.location))
            target = PurePosixPath(path)
            if target == location or location in target.parents:
                depth = len(location.parts)
                if best is None or depth > best[0]:
                    rest = target.relative_to(location).parts
                    best = (depth, Path(mount.source).joinpath(*rest))
        if best is not None:
            return best[1]
        if not path.startswith("/") or container not in self._roots:
            raise HarnessError(
                f"{path} is not on any mount of container {container!r}",
                "give an absolute path inside the container",
            )
        return layers.in_layer(self._roots[container], path)

    def read_text(self, container: str, path: str) -> str | None:
        """The file's text after the disruption, or None when it is not there."""
        local = self.path(container, path)
        return local.read_text() if local.is_file() else None


def run_disruption(
    ctx: testing.Context[Any],
    state: testing.State,
    disruption: str,
    juju_version: str = "3.6",
    *,
    container: str | None = None,
    storage_mounts: Collection[str] = (),
    use_juju_for_storage: bool = False,
    expectations: ExpectationSource | None = None,
) -> TwinResult:
    """Run the hooks the catalogue predicts for ``disruption`` on one unit (simulated).

    ``container`` picks the container for ``container-restart`` (default: the first in
    the state; ``"charm"`` restarts the charm container). ``storage_mounts`` names the
    container mounts that are storage volumes (kept across restarts).
    """
    if disruption in REFUSED:
        raise HarnessError(REFUSED[disruption])
    if disruption not in NAMES:
        choices = ", ".join(n for n in NAMES if n not in REFUSED)
        raise UnknownName(f"unknown disruption {disruption!r}", f"choose one of: {choices}")
    version = JujuVersion.parse(juju_version)
    if expectations is None:
        from harness.catalogue import load

        expectations = load().expect
    names = sorted(c.name for c in state.containers)
    restarted = container
    if disruption == "container-restart":
        restarted = container or (names[0] if names else CHARM_CONTAINER)
        if restarted != CHARM_CONTAINER and restarted not in names:
            raise UnknownName(
                f"the state has no container {restarted!r}",
                f"use one of: {', '.join([*names, CHARM_CONTAINER])}",
            )
    # The twin's kill is an uncatchable one (exit 137): the catalogue's charm-kill.
    charm_kill = disruption == "container-restart" and restarted == CHARM_CONTAINER
    variant = "charm-kill" if charm_kill else None
    expectation = expectations(disruption, version, variant=variant)
    workdir = Path(tempfile.mkdtemp(prefix="twin-simulated-"))
    run = _Run(ctx, str(version), workdir, storage_mounts, use_juju_for_storage)
    with run.juju_version():
        current = run.adopt(state)
        current = run.disrupt(current, disruption, expectation, restarted, expectations, version)
    result = TwinResult(
        disruption=disruption,
        juju_version=str(version),
        hooks=tuple(run.hooks),
        skipped=tuple(run.skipped),
        state=current,
        _roots=dict(run.roots),
    )
    # The final state's mounts point into workdir: it lives as long as the result.
    weakref.finalize(result, shutil.rmtree, str(workdir), True)
    return result


class _Run:
    """One unit going through one disruption: its layers on disk and the hooks run."""

    def __init__(
        self,
        ctx: testing.Context[Any],
        juju_version: str,
        workdir: Path,
        storage_mounts: Collection[str],
        use_juju_for_storage: bool,
    ) -> None:
        self.ctx = ctx
        self.version = juju_version
        self.workdir = workdir
        self.storage_mounts = set(storage_mounts)
        self.keep_stored_state = use_juju_for_storage
        self.hooks: list[str] = []
        self.skipped: list[tuple[str, str]] = []
        self.roots: dict[str, Path] = {}
        self._serial = 0

    @contextlib.contextmanager
    def juju_version(self) -> Iterator[None]:
        saved = self.ctx.juju_version
        self.ctx.juju_version = self.version
        try:
            yield
        finally:
            self.ctx.juju_version = saved

    def _next(self) -> int:
        self._serial += 1
        return self._serial

    def _fresh_root(self, container: str) -> Path:
        root = layers.fresh_dir(self.workdir / f"{container}-{self._next()}")
        self.roots[container] = root
        return root

    def adopt(self, state: testing.State) -> testing.State:
        """Copy the containers' filesystems into layers the twin owns (the test's stay as
        they are) and offer each as the container's root filesystem."""
        containers = []
        for c in state.containers:
            root = self._fresh_root(c.name)
            kept = {}
            for name, mount in c.mounts.items():
                if name in self.storage_mounts:
                    kept[name] = mount
                    continue
                source = Path(mount.source)
                target = layers.in_layer(root, str(mount.location))
                target.parent.mkdir(parents=True, exist_ok=True)
                if source.is_dir():
                    shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
                elif source.exists():
                    shutil.copy2(source, target)
            containers.append(replace(c, mounts={**layers.mounts(root), **kept}))
        return replace(state, containers=frozenset(containers))

    def restart(self, state: testing.State, names: Collection[str]) -> testing.State:
        """Containers start again: fresh root filesystems, empty Pebble plans."""
        containers = []
        for c in state.containers:
            if c.name in names:
                kept = {n: m for n, m in c.mounts.items() if n in self.storage_mounts}
                root = self._fresh_root(c.name)
                c = replace(
                    c,
                    mounts={**layers.mounts(root), **kept},
                    layers={},
                    service_statuses={},
                    notices=(),
                    check_infos=frozenset(),
                )
            containers.append(c)
        return replace(state, containers=frozenset(containers))

    def new_pod(self, state: testing.State) -> testing.State:
        state = self.restart(state, {c.name for c in state.containers})
        if self.keep_stored_state:
            return replace(state, deferred=[])
        return replace(state, stored_states=frozenset(), deferred=[])

    def new_unit(self, state: testing.State) -> testing.State:
        """scale-down-up: a new unit with its own new volumes; its unit databags start
        again from Juju's defaults."""
        containers = []
        for c in state.containers:
            fresh = {}
            for name, mount in c.mounts.items():
                if name in self.storage_mounts:
                    volume = layers.fresh_dir(self.workdir / f"volume-{name}-{self._next()}")
                    fresh[name] = replace(mount, source=volume)
            containers.append(replace(c, mounts={**c.mounts, **fresh}))
        state = self.new_pod(replace(state, containers=frozenset(containers)))
        relations = [replace(r, local_unit_data=_juju_defaults(r)) for r in state.relations]
        # A new unit gets new storage instances (new indices, so new directories).
        storages = [testing.Storage(s.name) for s in state.storages]
        return replace(
            state,
            relations=frozenset(relations),
            storages=frozenset(storages),
            stored_states=frozenset(),
        )

    def disrupt(
        self,
        state: testing.State,
        disruption: str,
        expectation: Expectation,
        restarted: str | None,
        expectations: ExpectationSource,
        version: JujuVersion,
    ) -> testing.State:
        containers = sorted(c.name for c in state.containers)
        if disruption == "container-restart":
            charm = restarted == CHARM_CONTAINER
            only = () if charm else (restarted or "",)
            hooks = self.plan(state, expectation, only, ("pebble-ready",) if not charm else ())
            state = self.restart(state, only)
            return self.run_all(state, hooks)
        if disruption == "node-restart":
            hooks = self.plan(state, expectation, containers, ("pebble-ready",))
            return self.run_all(self.restart(state, containers), hooks)
        if disruption == "scale-down-up":
            teardown = ("relation-departed", "relation-broken", "storage-detaching")
            state = self.run_all(state, self.plan(state, expectation, containers, teardown))
            state = self.new_unit(state)
            deploy = expectation.new_units or expectations("deploy", version)
            state = self.run_all(state, self.plan(state, deploy, containers, ("pebble-ready",)))
            integrate = expectations("integrate", version)
            for relation in sorted(state.relations, key=lambda r: r.id):
                hooks = plan(
                    integrate,
                    containers=containers,
                    endpoints=(relation.endpoint,),
                    storages=sorted(s.name for s in state.storages),
                    leader=state.leader,
                )
                state = self.run_all(state, hooks, relation_id=relation.id)
            return state
        # A replaced pod: stop on the old one, the rest on the new one.
        hooks = self.plan(state, expectation, containers, ("pebble-ready",))
        split = hooks.index("stop") + 1 if "stop" in hooks else 0
        state = self.run_all(state, hooks[:split])
        if disruption in _NEW_POD:
            state = self.new_pod(state)
        return self.run_all(state, hooks[split:])

    def plan(
        self,
        state: testing.State,
        expectation: Expectation,
        containers: Collection[str],
        triggers: Collection[str],
    ) -> tuple[str, ...]:
        return plan(
            expectation,
            containers=sorted(containers),
            endpoints=sorted({r.endpoint for r in state.relations}),
            storages=sorted({s.name for s in state.storages}),
            leader=state.leader,
            triggers=triggers,
        )

    def run_all(
        self, state: testing.State, hooks: Collection[str], relation_id: int | None = None
    ) -> testing.State:
        for hook in hooks:
            for target, remote in self._targets(state, hook, relation_id):
                state = self.run_one(state, hook, target, remote)
        return state

    def _targets(
        self, state: testing.State, hook: str, relation_id: int | None
    ) -> list[tuple[int | None, int | None]]:
        """(relation id, remote unit) for each time Juju would run the hook."""
        kind = next((k for k in RELATION_KINDS if hook.endswith(f"-relation-{k}")), None)
        if kind is None:
            return [(None, None)]
        endpoint = hook[: -len(f"-relation-{kind}")]
        relations = [
            r
            for r in sorted(state.relations, key=lambda r: r.id)
            if r.endpoint == endpoint and relation_id in (None, r.id)
        ]
        if kind in ("created", "broken") or not relations:
            return [(r.id, None) for r in relations] or [(relation_id, None)]
        # Once per remote unit; none when the relation has no remote units.
        return [(r.id, remote) for r in relations for remote in _remote_units(r)]

    def run_one(
        self, state: testing.State, hook: str, relation_id: int | None, remote: int | None
    ) -> testing.State:
        event = event_for(self.ctx.on, hook, state, relation_id=relation_id, remote_unit=remote)
        if isinstance(event, Skip):
            self.skipped.append((event.hook, event.reason))
            return state
        out = self.ctx.run(event, state)
        for container in out.containers:
            root = self.roots.get(container.name)
            if root is not None:
                layers.harvest(container.get_filesystem(self.ctx), root)
        self.hooks.append(hook)
        return out


def _remote_units(relation: testing.RelationBase) -> list[int]:
    if isinstance(relation, testing.PeerRelation):
        return sorted(relation.peers_data)
    if isinstance(relation, testing.Relation):
        return sorted(relation.remote_units_data)
    return []


def _juju_defaults(relation: testing.RelationBase) -> dict[str, str]:
    keys = ("egress-subnets", "ingress-address", "private-address")
    data: dict[str, str] = dict(relation.local_unit_data)
    return {k: v for k, v in data.items() if k in keys}
