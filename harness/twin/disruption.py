"""``run_disruption``: put one unit of any ops charm through a disruption, in a unit test.

    from ops import testing
    from harness.twin import Image, run_disruption

    ctx = testing.Context(MyCharm)
    state = testing.State(leader=True, containers={testing.Container("app", can_connect=True)})
    result = run_disruption(ctx, state, "node-restart", images={"app": Image.linux(["/etc/app"])})
    assert result.hooks == ("start", "app-pebble-ready")
    assert result.read_text("app", "/etc/app/app.conf") is not None  # written again?

What the disruption does to the unit is decided by ``harness.twin.engine`` from the
catalogue entry for the Juju version (the same decision the twin lab makes): the hooks,
in order, and between them the layers of a Kubernetes pod:

- a container that starts again starts from its image (``images``; by default the usual
  directories of a Linux image): what the charm or the workload wrote is gone; its
  Pebble plan and service statuses are empty. Every ``Mount`` of the given state is part
  of the container's root filesystem unless named in ``storage_mounts`` (a volume);
- a new pod also means a new charm directory: local ``StoredState`` and deferred events
  are lost, unless ``use_juju_for_storage=True`` (ops' controller-backed StoredState);
- relations, leadership, config, secrets and storages live on the controller: kept.

While a hook runs, ``exec_handlers`` answer the charm's ``Container.exec`` calls with
the workload's behaviour (see ``harness.twin.workload``). The result's ``state`` is an
ordinary ops.testing State: the caller's Context can run more events on it and sees the
filesystem the twin left. A charm exception becomes a ``CharmHookError`` naming the
disruption, step, hook and Juju version, with the partial result.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import tempfile
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from ops import testing

from harness.catalogue.model import Expectation
from harness.catalogue.names import NAMES
from harness.catalogue.relation_keys import unit_keys
from harness.common.errors import HarnessError, UnknownName
from harness.common.versions import JujuVersion
from harness.scenario.charm_assumes import simulated_refusal
from harness.twin import compat, layers
from harness.twin.engine import Arrival, Change, UnitPlan, decide, lifecycle
from harness.twin.hooks import RELATION_KINDS, Skip, event_for
from harness.twin.image import Image, check_images, image_for
from harness.twin.layer_paths import in_layer
from harness.twin.model import CHARM_CONTAINER
from harness.twin.trace import HookTrace, traced
from harness.twin.workload import (
    ExecHandler,
    ExecHandlerError,
    ExecHandlers,
    Recorder,
    attached,
    normalise,
)
from harness.twin.world import ExpectationSource

REFUSED = {
    "resource-refresh": "resource-refresh only makes sense live: it needs a real image "
    "reference for Juju to roll out",
    "charm-pod-spec-change": "charm-pod-spec-change needs the probe charm patching its own "
    "StatefulSet; run the twin lab (harness.twin.make_lab) for it",
}


@dataclass(frozen=True, repr=False)
class TwinResult:
    """What one SIMULATED disruption did to one unit."""

    disruption: str
    juju_version: str
    hooks: tuple[str, ...]  # the hooks that ran, in order
    skipped: tuple[tuple[str, str], ...]  # (hook, why the twin could not run it)
    state: testing.State  # the final state: run more events on it with the same Context
    trace: tuple[HookTrace, ...] = ()  # per hook: commands, pushes, status after
    variant: str | None = None
    unit: str = ""  # the unit's name after the disruption
    simulated: bool = True
    # Each container's root filesystem layer at the end (for paths no mount covers).
    _roots: Mapping[str, Path] = field(default_factory=dict, compare=False)

    def __repr__(self) -> str:
        name = self.disruption if self.variant is None else f"{self.disruption}/{self.variant}"
        lines = [f"TwinResult(SIMULATED {name} on Juju {self.juju_version}, {self.unit}:"]
        lines.extend(f"  {hook.brief()}" for hook in self.trace)
        return "\n".join(lines) + ")"

    def path(self, container: str, path: str) -> Path:
        """Where a file of the container's final filesystem lives on this machine."""
        found = self._container(container)
        if not path.startswith("/"):
            raise HarnessError(
                f"{path!r} is not an absolute path", "give a path such as /etc/app/app.conf"
            )
        best: tuple[int, Path] | None = None
        target = PurePosixPath(path)
        for mount in found.mounts.values():
            location = PurePosixPath(str(mount.location))
            if target == location or location in target.parents:
                depth = len(location.parts)
                if best is None or depth > best[0]:
                    best = (
                        depth,
                        Path(mount.source).joinpath(*target.relative_to(location).parts),
                    )
        if best is not None:
            return best[1]
        return in_layer(self._roots[container], path)

    def read_text(self, container: str, path: str) -> str | None:
        """The file's text after the disruption, or None when it is not there."""
        local = self.path(container, path)
        return local.read_text() if local.is_file() else None

    def _container(self, name: str) -> testing.Container:
        for container in self.state.containers:
            if container.name == name:
                return container
        known = ", ".join(sorted(c.name for c in self.state.containers)) or "none"
        raise UnknownName(
            f"the unit has no container {name!r} (simulated)", f"containers: {known}"
        )


class CharmHookError(HarnessError):
    """The charm raised in a hook the twin ran: names the disruption, the step, the hook
    and the Juju version; the charm's exception is chained (``__cause__``).

    ``partial`` is the result up to the failing hook (hooks run so far, their trace, and
    as ``partial.state`` the state the failing hook was given).
    """

    def __init__(
        self,
        *,
        disruption: str,
        step: str,
        hook: str,
        juju_version: str,
        error: BaseException,
        partial: TwinResult,
    ) -> None:
        self.disruption = disruption
        self.step = step
        self.hook = hook
        self.juju_version = juju_version
        self.partial = partial
        ran = ", ".join(partial.hooks) or "none"
        what = (
            str(error)
            if isinstance(error, ExecHandlerError)
            else f"the charm raised {type(error).__name__}: {error}"
        )
        fix = (
            "the charm's exception is chained below; .partial holds the hooks run and the "
            "state the hook was given"
        )
        if "Context.juju_version" in what:
            # ops.testing's advice; the twin sets Context.juju_version for each run.
            fix = (
                f"the twin runs the Juju version given as run_disruption(juju_version=...), "
                f"which replaces Context.juju_version; {fix}"
            )
        super().__init__(
            f"SIMULATED {disruption} on Juju {juju_version}: {what} in hook {hook!r} "
            f"({step}); hooks before it: {ran}",
            fix,
        )


def run_disruption(
    ctx: testing.Context[Any],
    state: testing.State,
    disruption: str,
    juju_version: str = "3.6",
    *,
    variant: str | None = None,
    container: str | None = None,
    signal: str | None = None,
    images: Mapping[str, Image] | None = None,
    exec_handlers: ExecHandlers | None = None,
    storage_mounts: Collection[str] = (),
    use_juju_for_storage: bool = False,
    workdir: str | Path | None = None,
    expectations: ExpectationSource | None = None,
) -> TwinResult:
    """Run what the catalogue predicts for ``disruption`` on one unit (SIMULATED).

    ``variant`` selects a catalogued branch of the disruption (default: its main one).
    ``container`` is the container ``container-restart`` restarts (default: the first
    workload container the charm declares; ``"charm"``: the charm container) and
    ``signal`` what kills its PID 1 (``TERM``, the default, ``KILL`` or ``OOM``); together
    they pick the catalogued branch, as ``variant`` may (``charm``, ``charm-kill``).
    ``images`` gives each container's image (default ``Image()``: a Linux image's usual
    directories).
    ``exec_handlers`` maps container -> command prefix -> handler. ``storage_mounts``
    names the mounts that are storage volumes. ``workdir`` holds the filesystem layers
    (a temporary directory removed when the Python process exits, by default).
    """
    if disruption in REFUSED:
        raise HarnessError(REFUSED[disruption])
    if disruption not in NAMES:
        choices = ", ".join(n for n in NAMES if n not in REFUSED)
        raise UnknownName(f"unknown disruption {disruption!r}", f"choose one of: {choices}")
    version = JujuVersion.parse(juju_version)
    refused = simulated_refusal(compat.charm_meta(ctx), str(version))
    if refused is not None:
        raise refused
    if expectations is None:
        from harness.catalogue import load

        expectations = load().expect
    declared = compat.declared_containers(ctx)
    state = _with_declared_containers(state, declared)
    names = sorted(c.name for c in state.containers)
    check_images(images, names)
    _check_storage_mounts(storage_mounts, state)
    handlers = normalise(exec_handlers, names)
    target: str | None = None
    if disruption == "container-restart":
        if container is not None and container not in (*names, CHARM_CONTAINER):
            raise UnknownName(
                f"the state has no container {container!r}",
                f"use one of: {', '.join([*names, CHARM_CONTAINER])}",
            )
        # The first the charm declares, as `repro run --bundle` picks it.
        first = next(iter(declared), names[0] if names else CHARM_CONTAINER)
        # A variant alone names its container kind; otherwise the container picks it.
        picked = container or (None if variant is not None else first)
        expectation = expectations(
            disruption, version, variant=variant, container=picked, signal=signal
        )
        target = picked or (CHARM_CONTAINER if expectation.container == "charm" else first)
        variant = expectation.variant
    else:
        if container is not None or signal is not None:
            raise HarnessError(
                f"container= and signal= apply to container-restart, not {disruption}",
                "leave them out",
            )
        expectation = expectations(disruption, version, variant=variant)
    folder = Path(workdir) if workdir is not None else _temporary()
    folder.mkdir(parents=True, exist_ok=True)
    run = _Run(
        ctx,
        disruption=disruption,
        variant=variant,
        version=str(version),
        workdir=folder,
        images=images,
        handlers=handlers,
        storage_mounts=storage_mounts,
        use_juju_for_storage=use_juju_for_storage,
    )
    with run.juju_version():
        current = run.adopt(state)
        unit_plan = decide(
            expectation,
            containers=names,
            endpoints=sorted({r.endpoint for r in state.relations}),
            storages=sorted({s.name for s in state.storages}),
            leader=state.leader,
            target=target if expectation.scope == "container" else None,
            deploy=expectations("deploy", version),
        )
        current = run.follow(current, unit_plan, expectations("integrate", version))
    return run.result(current)


def _with_declared_containers(state: testing.State, declared: Collection[str]) -> testing.State:
    """Every container the charm declares is in its pod, whether or not the test's state
    names it; one the state leaves out is not reachable until it starts again."""
    there = {c.name for c in state.containers}
    missing = [testing.Container(name) for name in declared if name not in there]
    if not missing:
        return state
    return replace(state, containers=frozenset({*state.containers, *missing}))


def _check_storage_mounts(storage_mounts: Collection[str], state: testing.State) -> None:
    """A name no mount has would leave the volume a plain directory, lost with the pod."""
    known = {name for c in state.containers for name in c.mounts}
    unknown = sorted(set(storage_mounts) - known)
    if unknown:
        mounts = "; ".join(
            f"{c.name}: {name} at {mount.location}"
            for c in sorted(state.containers, key=lambda c: c.name)
            for name, mount in sorted(c.mounts.items())
        )
        raise HarnessError(
            f"storage_mounts names {', '.join(unknown)}, which no container mount of the "
            "state has (it takes the keys of testing.Container(mounts=...))",
            f"the state's mounts: {mounts or 'none'}",
        )


def _temporary() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="twin-simulated-"))
    # The returned state's mounts point here: keep it while the process runs.
    atexit.register(shutil.rmtree, str(folder), True)
    return folder


class _Run:
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
        self.hooks: list[str] = []
        self.skipped: list[tuple[str, str]] = []
        self.trace: list[HookTrace] = []
        self.roots: dict[str, Path] = {}
        self.unit_id = compat.unit_id(ctx)
        self._serial = 0

    @contextlib.contextmanager
    def juju_version(self) -> Iterator[None]:
        saved = self.ctx.juju_version, compat.unit_id(self.ctx)
        self.ctx.juju_version = self.version
        try:
            yield
        finally:
            self.ctx.juju_version = saved[0]
            compat.set_unit_id(self.ctx, saved[1])

    def result(self, state: testing.State) -> TwinResult:
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
            _roots=dict(self.roots),
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
        for c in state.containers:
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
            self.trace.append(
                traced(hook, step, "failed", recorder, state.unit_status, type(error).__name__)
            )
            raise CharmHookError(
                disruption=self.disruption,
                step=step,
                hook=hook,
                juju_version=self.version,
                error=error,
                partial=self.result(state),
            ) from error
        self._harvest(out)
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
