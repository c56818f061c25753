"""One unit going through one disruption in a unit test, as ops.testing States.

``DisruptionRun`` is ``run_disruption``'s machinery: each container's root layer on disk
(laid down from its image, offered to the charm as mounts), the engine's change and a
returning unit's arrival applied to the State, and the hooks run through the caller's
Context, with what each did (``HookTrace``).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Collection, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ops import testing

from harness.catalogue.model import Expectation
from harness.catalogue.relation_keys import unit_keys
from harness.common.versions import JujuVersion
from harness.twin import compat, layers
from harness.twin.engine import Arrival, Change, UnitPlan, lifecycle
from harness.twin.hooks import RELATION_KINDS, Skip, event_for
from harness.twin.image import Image, image_for
from harness.twin.layer_paths import in_layer
from harness.twin.result import CharmHookError, TwinResult, secret_values
from harness.twin.trace import HookTrace, traced
from harness.twin.workload import ExecHandler, Recorder, attached


class DisruptionRun:
    """One unit going through one disruption: its layers on disk and the hooks run."""

    def __init__(
        self,
        ctx: testing.Context[Any],
        *,
        disruption: str,
        variant: str | None,
        version: str,
        workdir: Path,
        images: Mapping[str, Image] | None,
        handlers: Mapping[str, Mapping[tuple[str, ...], ExecHandler]],
        storage_mounts: Collection[str],
        use_juju_for_storage: bool,
        extrapolation: str | None = None,
    ) -> None:
        self.ctx = ctx
        self.disruption = disruption
        self.variant = variant
        self.version = version
        self.workdir = workdir
        self.images = images
        self.handlers = handlers
        self.storage_mounts = set(storage_mounts)
        self.keep_stored_state = use_juju_for_storage
        self.extrapolation = extrapolation
        self.secrets: set[str] = set()  # never printed (secret_values of every state seen)
        self.hooks: list[str] = []
        self.skipped: list[tuple[str, str]] = []
        self.trace: list[HookTrace] = []
        self.roots: dict[str, Path] = {}
        self.unit_id = compat.unit_id(ctx)
        self._serial = 0

    @contextlib.contextmanager
    def juju_version(self) -> Iterator[None]:
        saved = self.ctx.juju_version, compat.unit_id(self.ctx)
        self.ctx.juju_version = compat.context_version(self.version)
        try:
            yield
        finally:
            self.ctx.juju_version = saved[0]
            compat.set_unit_id(self.ctx, saved[1])

    def result(self, state: testing.State) -> TwinResult:
        for c in state.containers:
            if c.name in self.roots:
                layers.lay_out(c.get_filesystem(self.ctx), c.mounts)
        app = compat.app_name(self.ctx)
        return TwinResult(
            disruption=self.disruption,
            juju_version=self.version,
            hooks=tuple(self.hooks),
            skipped=tuple(self.skipped),
            state=state,
            trace=tuple(self.trace),
            variant=self.variant,
            unit=f"{app}/{self.unit_id}",
            extrapolation=self.extrapolation,
            _roots=dict(self.roots),
            _secrets=frozenset(self.secrets),
            _ctx=self.ctx,
            _handlers=self.handlers,
        )

    # Layers ----------------------------------------------------------------------------

    def _fresh_root(self, container: str) -> Path:
        self._serial += 1
        root = layers.fresh_dir(self.workdir / f"{container}-{self._serial}")
        image_for(self.images, container).lay_down(root)
        self.roots[container] = root
        return root

    def _kept(self, c: testing.Container) -> dict[str, testing.Mount]:
        return {n: m for n, m in c.mounts.items() if n in self.storage_mounts}

    def offer(self, state: testing.State) -> testing.State:
        """Each container's root layer as ops.testing mounts (one per top-level entry, so
        what the last hook created at the top level is mounted too), volumes beside."""
        containers = [
            replace(c, mounts=self._mounts(c)) if c.name in self.roots else c
            for c in state.containers
        ]
        return replace(state, containers=frozenset(containers))

    def _mounts(self, c: testing.Container) -> dict[str, testing.Mount]:
        kept = self._kept(c)
        root = self.roots[c.name]
        top = layers.mount_points(root, [str(m.location) for m in kept.values()])
        offered = {
            name: mount
            for name, mount in layers.mounts(root).items()
            if str(mount.location) not in top
        }
        return {**offered, **kept}

    def adopt(self, state: testing.State) -> testing.State:
        """The running unit: each container's image, with the test's mounts copied over it
        (the test's own directories are never changed)."""
        self.secrets |= secret_values(state)
        for c in state.containers:
            # What a result left laid out for get_filesystem: ops.testing would warn about it.
            simulated = c.get_filesystem(self.ctx)
            if simulated.is_symlink() or simulated.exists():
                layers.fresh_dir(simulated)
            root = self._fresh_root(c.name)
            for name, mount in c.mounts.items():
                if name in self.storage_mounts:
                    continue
                source = Path(mount.source)
                target = in_layer(root, str(mount.location))
                target.parent.mkdir(parents=True, exist_ok=True)
                if source.is_dir():
                    shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
                elif source.exists():
                    shutil.copy2(source, target)
        return self.offer(state)

    def apply(self, state: testing.State, change: Change) -> testing.State:
        """The engine's change, on an ops.testing State."""
        containers = []
        for c in state.containers:
            if change.restarts(c.name):
                self._fresh_root(c.name)
                notices = c.notices if change.pebble_state_kept else ()
                # Its Pebble is up for the hooks after the restart (pebble-ready says so),
                # whatever the test's state said before, as in the twin lab.
                c = replace(
                    c,
                    can_connect=True,
                    layers={},
                    service_statuses={},
                    notices=notices,
                    check_infos=frozenset(),
                )
            containers.append(c)
        state = self.offer(replace(state, containers=frozenset(containers)))
        if not change.new_pod:
            return state
        if self.keep_stored_state:
            return replace(state, deferred=[])
        return replace(state, stored_states=frozenset(), deferred=[])

    def arrive(self, state: testing.State, arrival: Arrival) -> testing.State:
        """The unit that comes back on the freed ordinal: a new pod, new unit databags,
        its name and volumes kept or not as the catalogue says."""
        if not arrival.same_name:
            # Juju numbers units app-wide: the next number no unit has had.
            peers = [n for r in state.relations for n in _peer_units(r)]
            self.unit_id = max([self.unit_id, *peers]) + 1
            compat.set_unit_id(self.ctx, self.unit_id)
        containers = []
        for c in state.containers:
            self._fresh_root(c.name)
            mounts = dict(c.mounts)
            if not arrival.storage_kept:
                for name in self._kept(c):
                    self._serial += 1
                    volume = layers.fresh_dir(self.workdir / f"volume-{name}-{self._serial}")
                    mounts[name] = replace(mounts[name], source=volume)
            containers.append(
                replace(
                    c,
                    can_connect=True,
                    mounts=mounts,
                    layers={},
                    service_statuses={},
                    notices=(),
                    check_infos=frozenset(),
                )
            )
        state = self.offer(replace(state, containers=frozenset(containers)))
        relations = state.relations
        if arrival.unit_databags == "empty":
            relations = frozenset(
                replace(r, local_unit_data=_juju_defaults(r, JujuVersion.parse(self.version)))
                for r in state.relations
            )
        storages = state.storages
        if not arrival.storage_kept:
            storages = frozenset(testing.Storage(s.name, index=s.index + 1) for s in storages)
        return replace(
            state,
            relations=relations,
            storages=storages,
            stored_states=frozenset(),
            deferred=[],
        )

    # Hooks -------------------------------------------------------------------------------

    def follow(
        self, state: testing.State, plan: UnitPlan, integrate: Expectation
    ) -> testing.State:
        state = self.run_all(state, plan.before, plan.step_before)
        if plan.arrival is None:
            for index, hooks in enumerate(plan.after):
                state = self.apply(state, plan.change)
                state = self.run_all(state, hooks, plan.step_after(index))
            return state
        state = self.arrive(state, plan.arrival)
        containers = sorted(c.name for c in state.containers)
        deploy = lifecycle(
            plan.arrival.expectation,
            containers=containers,
            endpoints=sorted({r.endpoint for r in state.relations}),
            storages=sorted(s.name for s in state.storages),
            leader=state.leader,
        )
        state = self.run_all(state, deploy, "new unit: deploy")
        for relation in sorted(state.relations, key=lambda r: r.id):
            hooks = lifecycle(
                integrate,
                containers=containers,
                endpoints=(relation.endpoint,),
                storages=sorted(s.name for s in state.storages),
                leader=state.leader,
                created=False,  # ran with the deploy hooks: the relation was there
            )
            step = f"new unit: joins {relation.endpoint}"
            state = self.run_all(state, hooks, step, relation_id=relation.id)
        return state

    def run_all(
        self,
        state: testing.State,
        hooks: Collection[str],
        step: str,
        relation_id: int | None = None,
    ) -> testing.State:
        for hook in hooks:
            for target, remote in self._targets(state, hook, relation_id):
                state = self.run_one(state, hook, step, target, remote)
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
        self,
        state: testing.State,
        hook: str,
        step: str,
        relation_id: int | None,
        remote: int | None,
    ) -> testing.State:
        event = event_for(self.ctx.on, hook, state, relation_id=relation_id, remote_unit=remote)
        if isinstance(event, Skip):
            self.skipped.append((event.hook, event.reason))
            self.trace.append(
                traced(hook, step, "skipped", Recorder(), state.unit_status, event.reason)
            )
            return state
        recorder = Recorder()
        try:
            with attached(self.ctx, self.handlers, recorder):
                out = self.ctx.run(event, state)
        except testing.errors.UncaughtCharmError as e:
            error = e.__cause__ or e
            self._harvest(state)
            # Juju puts the unit in error; nothing the hook set is committed.
            failed = f'error: hook failed: "{hook}"'
            self.trace.append(traced(hook, step, "failed", recorder, failed, type(error).__name__))
            raise CharmHookError(
                disruption=self.disruption,
                step=step,
                hook=hook,
                juju_version=self.version,
                error=error,
                partial=self.result(state),
            ) from error
        self._harvest(out)
        self.secrets |= secret_values(out)
        self.hooks.append(hook)
        self.trace.append(traced(hook, step, "ok", recorder, out.unit_status))
        return self.offer(out)

    def _harvest(self, state: testing.State) -> None:
        for container in state.containers:
            root = self.roots.get(container.name)
            if root is not None:
                layers.harvest(container.get_filesystem(self.ctx), root)


def _remote_units(relation: testing.RelationBase) -> list[int]:
    if isinstance(relation, testing.PeerRelation):
        return sorted(relation.peers_data)
    if isinstance(relation, testing.Relation):
        return sorted(relation.remote_units_data)
    return []


def _peer_units(relation: testing.RelationBase) -> list[int]:
    return sorted(relation.peers_data) if isinstance(relation, testing.PeerRelation) else []


def _juju_defaults(relation: testing.RelationBase, juju: JujuVersion) -> dict[str, str]:
    """A new unit's databag: only what Juju of that version writes (its addresses)."""
    keys = unit_keys(juju).written
    data: dict[str, str] = dict(relation.local_unit_data)
    return {k: v for k, v in data.items() if k in keys}
