"""The simulation: one Juju model on one Kubernetes node, in-process.

``Twin`` holds the controller's state (relations and databags, leadership, config, trust),
the cluster's (StatefulSet pods with uids, restart counts and filesystem layers) and a
uniter that runs hooks through ops.testing. The ports in ``juju.py``, ``cluster.py`` and
``node.py`` are thin views over it.

What each port call does physically (pods, layers, restart counts) is Kubernetes'
behaviour and lives here; which hooks the uniter runs in reaction is Juju's behaviour and
comes from the expectation catalogue (``expect(disruption, version)``).

What a disruption does to a unit (hooks before and after, which layers are new, which
identity the unit keeps) is decided by ``harness.twin.engine``, the same decision
``run_disruption`` follows; this module applies it to pods and the controller's records.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import os
import shutil
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import yaml
from ops import testing

from harness.catalogue.model import Expectation
from harness.catalogue.relation_keys import unit_keys
from harness.common.errors import EnvironmentUnavailable, HarnessError, UnknownName
from harness.common.observations import Outcome
from harness.common.versions import JujuVersion
from harness.twin import compat, layers
from harness.twin.charms import CharmSource, HookEnv
from harness.twin.clock import TwinClock
from harness.twin.engine import Change, UnitPlan, decide, lifecycle
from harness.twin.hooks import RELATION_KINDS, Skip, event_for
from harness.twin.image import image_for
from harness.twin.model import (
    CHARM_CONTAINER,
    App,
    ContainerRun,
    Pod,
    RelationEnd,
    TwinRelation,
    Unit,
)
from harness.twin.stamps import FileStamps
from harness.twin.trace import HookTrace, traced
from harness.twin.workload import Recorder, attached, normalise


class ExpectationSource(Protocol):
    """``harness.catalogue.load().expect``, or a stand-in for tests."""

    def __call__(
        self,
        disruption: str,
        juju: JujuVersion,
        *,
        variant: str | None = None,
        container: str | None = None,
        signal: str | None = None,
    ) -> Expectation: ...


# The model name says "simulated" wherever a person reads it (status, bundles, logs).
MODEL_NAME = "twin-simulated"
NAMESPACE = MODEL_NAME
_NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/juju-lifecycle-harness/twin")
MODEL_UUID = str(uuid.uuid5(_NS, MODEL_NAME))
NODE_NAME = "twin-simulated-node"
MAX_CASCADE = 200  # relation-changed hooks after one operation before we call it a loop


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class Dispatched:
    """One hook the twin's uniter handled for one unit (ran, failed or skipped)."""

    unit: str
    hook: str
    time: datetime
    outcome: Outcome
    cause: str  # "deploy", "integrate", a disruption name, "config", "relation-data"
    detail: str = ""
    reboot: bool = False  # an agent restart preceded it (debug-log "reboot detected")
    trace: HookTrace | None = None  # what the charm did in the hook


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
        # disruption -> catalogued branch to follow instead of the main one
        self.variants = dict(variants or {})
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.version = juju_version
        self.clock = clock or TwinClock()
        # Images were unpacked on the node before any container started.
        self.stamps = FileStamps(self.clock.peek() - timedelta(hours=1))
        self.charms = dict(charms)
        self.apps: dict[str, App] = {}
        self.relations: list[TwinRelation] = []
        self.dispatched: list[Dispatched] = []
        self.node_up = True
        self._expect = expectations
        self._pods = itertools.count()
        self._relation_ids = itertools.count()
        self._uuids = itertools.count()
        self._addresses = itertools.count(1)
        self._queue: list[tuple[str, int, int, int]] = []  # (app, unit, relation, remote)
        self._patches: list[tuple[str, dict[str, str]]] = []
        self._after_start: list[tuple[Unit, UnitPlan, str]] = []
        self._freed: dict[tuple[str, int], Unit] = {}  # (app, ordinal) -> the removed unit
        self._agent_restarted: set[str] = set()

    # Lookups ---------------------------------------------------------------------------

    def app(self, name: str) -> App:
        if name not in self.apps:
            known = ", ".join(sorted(self.apps)) or "none deployed"
            raise UnknownName(f"no application {name!r} in the twin model", f"use one of: {known}")
        return self.apps[name]

    def unit(self, name: str) -> Unit:
        app_name, _, number = name.partition("/")
        found = self.app(app_name).unit(int(number)) if number.isdigit() else None
        if found is None:
            known = ", ".join(u.name for a in self.apps.values() for u in a.units)
            raise UnknownName(f"no unit {name!r} in the twin model", f"use one of: {known}")
        return found

    def unit_of_pod(self, pod: str) -> Unit:
        for app in self.apps.values():
            for unit in app.units:
                if unit.pod.name == pod:
                    return unit
        known = ", ".join(u.pod.name for a in self.apps.values() for u in a.units)
        raise UnknownName(f"no pod {pod!r} in namespace {NAMESPACE}", f"use one of: {known}")

    def require_node(self) -> None:
        if not self.node_up:
            raise EnvironmentUnavailable(
                "the simulated node is stopped: the controller and the cluster API are down",
                "start it with lab.node.start()",
            )

    def expect(self, name: str, *, container: str | None = None) -> Expectation:
        """The catalogue entry for ``name``: the branch chosen with ``variants``, else for
        ``container-restart`` the one the container gives (SIGTERM), else the main one."""
        variant = self.variants.get(name)
        if container is not None and variant is None:
            return self._expect(name, self.version, container=container)
        return self._expect(name, self.version, variant=variant)

    def relation(self, relation_id: int) -> TwinRelation | None:
        return next((r for r in self.relations if r.id == relation_id), None)

    # Deterministic identities -------------------------------------------------------------

    def next_uuid(self) -> uuid.UUID:
        """Stands in for uuid.uuid4 while a charm runs: the same run gives the same ids."""
        seed = hashlib.sha256(f"twin-uuid-{next(self._uuids)}".encode()).digest()[:16]
        return uuid.UUID(bytes=seed, version=4)

    # Pods and layers -----------------------------------------------------------------------

    def new_pod(self, app: App, ordinal: int, storage_index: Mapping[str, int]) -> Pod:
        serial = next(self._pods)
        name = f"{app.name}-{ordinal}"
        uid = str(uuid.uuid5(_NS, f"pod/{name}/{serial}"))
        directory = self.workdir / "pods" / f"{name}-{serial}"
        charm_data = layers.fresh_dir(directory / "charm-data")
        pod = Pod(
            name=name,
            uid=uid,
            ordinal=ordinal,
            directory=directory,
            charm_data=charm_data,
            started_at=iso(self.clock.now()),
            containers={},
            template=dict(app.template),
        )
        for container in (CHARM_CONTAINER, *app.charm.containers):
            pod.containers[container] = self._container_run(app, pod, container, 0, storage_index)
        return pod

    def _container_run(
        self,
        app: App,
        pod: Pod,
        container: str,
        restart_count: int,
        storage_index: Mapping[str, int],
        last_termination: str | None = None,
    ) -> ContainerRun:
        root = layers.fresh_dir(pod.directory / "containers" / f"{container}-{restart_count}")
        image = image_for(app.charm.images, container)
        image.lay_down(root)
        self.stamps.image(root, app.name, container, (*image.directories, *image.files))
        if container == CHARM_CONTAINER:
            # The charm-data EmptyDir is mounted at /var/lib/juju in the charm container.
            layers.link(root, "/var/lib/juju", pod.charm_data)
        else:
            for storage, location in app.charm.storage_mounts(container):
                if storage in storage_index:
                    volume = testing.Storage(storage, index=storage_index[storage])
                    layers.link(root, location, volume.get_filesystem(app.ctx))
        ident = hashlib.sha256(f"{pod.uid}/{container}/{restart_count}".encode()).hexdigest()
        return ContainerRun(
            name=container,
            root=root,
            restart_count=restart_count,
            started_at=iso(self.clock.now()),
            container_id=f"containerd://{ident}",
            last_termination=last_termination,
        )

    def notice_writes(self, unit: Unit) -> None:
        """Stamp what the unit's containers wrote with the twin's clock (SIMULATED
        metadata: ``harness.twin.stamps``)."""
        roots = [run.root for run in unit.pod.containers.values()]
        self.stamps.sweep(roots, self.clock.peek())

    def charm_dir(self, unit: Unit) -> Path:
        """Where Juju unpacks the charm: /var/lib/juju/agents/unit-<app>-<n>/charm."""
        path = unit.pod.charm_data / "agents" / unit.tag / "charm"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def replace_pod(self, unit: Unit) -> None:
        """The pod is deleted and the StatefulSet creates a new one with the same ordinal."""
        app = self.apps[unit.app]
        old = unit.pod
        unit.pod = self.new_pod(app, old.ordinal, unit.storage_index)
        shutil.rmtree(old.directory, ignore_errors=True)
        self._agent_restarted.add(unit.name)

    def restart_container(self, unit: Unit, container: str, reason: str) -> None:
        """PID 1 of one container exits: same pod, restart count +1, a fresh root fs."""
        pod = unit.pod
        old = pod.containers[container]
        app = self.apps[unit.app]
        termination = f"{reason} at {iso(self.clock.now())}"
        pod.containers[container] = self._container_run(
            app, pod, container, old.restart_count + 1, unit.storage_index, termination
        )
        shutil.rmtree(old.root, ignore_errors=True)
        if container == CHARM_CONTAINER:
            self._agent_restarted.add(unit.name)

    # Running hooks ----------------------------------------------------------------------

    def state_for(self, unit: Unit, *, attach_storage: bool = False) -> testing.State:
        """The ops.testing State this unit's charm sees now."""
        app = self.apps[unit.app]
        relations = [
            self._relation_view(relation, unit)
            for relation in self.relations
            if relation.involves(app.name)
        ]
        containers = []
        for name in app.charm.containers:
            run = unit.pod.containers[name]
            containers.append(
                testing.Container(
                    name,
                    can_connect=run.ready and self.node_up,
                    mounts=layers.mounts(run.root),
                    layers=dict(run.layers),
                    service_statuses=dict(run.service_statuses),
                )
            )
        attached = unit.storage_attached or attach_storage
        storages = [testing.Storage(n, index=unit.storage_index[n]) for n in app.charm.storages]
        return testing.State(
            config=dict(app.config),
            relations=relations,
            containers=containers,
            storages=storages if attached else [],
            leader=app.leader == unit.number,
            model=testing.Model(MODEL_NAME, uuid=MODEL_UUID, type="kubernetes"),
            stored_states=unit.pod.stored_states,
            deferred=list(unit.pod.deferred),
            unit_status=unit.status,
            app_status=app.status,
            workload_version=unit.workload_version,
            opened_ports=unit.opened_ports,
            secrets=app.secrets,
            planned_units=len(app.units),
        )

    def _relation_view(self, relation: TwinRelation, unit: Unit) -> testing.RelationBase:
        app = self.apps[unit.app]
        end = relation.end(app.name)
        local_app = dict(relation.app_data.get(app.name, {}))
        local_unit = dict(relation.unit_data.get(unit.name, {}))
        if relation.peer:
            peers = {
                u.number: dict(relation.unit_data.get(u.name, {}))
                for u in app.units
                if u is not unit
            }
            return testing.PeerRelation(
                end.endpoint,
                end.interface,
                id=relation.id,
                local_app_data=local_app,
                local_unit_data=local_unit,
                peers_data=peers,
            )
        other = relation.other(app.name)
        remote = self.apps[other.app]
        return testing.Relation(
            end.endpoint,
            end.interface,
            id=relation.id,
            remote_app_name=other.app,
            local_app_data=local_app,
            local_unit_data=local_unit,
            remote_app_data=dict(relation.app_data.get(other.app, {})),
            remote_units_data={
                u.number: dict(relation.unit_data.get(u.name, {})) for u in remote.units
            },
        )

    @contextlib.contextmanager
    def _charm_process(self, unit: Unit) -> Iterator[None]:
        """What a hook process sees: its pod's hostname and root fs, the twin's time and ids."""
        app = self.apps[unit.app]
        ctx = app.ctx
        compat.set_unit_id(ctx, unit.number)
        ctx.charm_root = self.charm_dir(unit)
        # ops-scenario 7.0 keeps ops' unit-state database in the charm root; the twin keeps
        # that state itself (``Pod.stored_states``), so no stale copy may be left there.
        (ctx.charm_root / ".unit-state.db").unlink(missing_ok=True)
        ctx.app_trusted = app.trusted
        env = {
            "HOSTNAME": unit.pod.name,
            "PROBE_ROOTFS": str(unit.pod.containers[CHARM_CONTAINER].root),
        }
        saved = {key: os.environ.get(key) for key in env}
        saved_uuid4 = uuid.uuid4
        os.environ.update(env)
        uuid.uuid4 = self.next_uuid  # type: ignore[assignment]
        around = app.charm.around_hook
        hook_env = HookEnv(
            app=app.name,
            unit=unit.name,
            now=self.clock.peek().isoformat(timespec="microseconds"),
            trusted=app.trusted,
            patch_template=self._charm_patched_template,
        )
        try:
            with _libyaml(), around(hook_env) if around else contextlib.nullcontext():
                yield
        finally:
            uuid.uuid4 = saved_uuid4
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def _charm_patched_template(self, statefulset: str, annotations: Mapping[str, str]) -> None:
        # Applied after the hook: Kubernetes rolls the pods while the uniter moves on.
        self._patches.append((statefulset, dict(annotations)))

    def run_hook(
        self,
        unit: Unit,
        hook: str,
        cause: str,
        *,
        relation_id: int | None = None,
        remote_unit: int | None = None,
    ) -> None:
        """Run one hook through ops.testing and carry its effects into the model."""
        app = self.apps[unit.app]
        is_attach = hook.endswith("-storage-attached")
        state = self.state_for(unit, attach_storage=is_attach)
        event = event_for(
            app.ctx.on, hook, state, relation_id=relation_id, remote_unit=remote_unit
        )
        reboot = hook == "start" and unit.name in self._agent_restarted
        if reboot:
            self._agent_restarted.discard(unit.name)
        moment = self.clock.hook_ran()
        if isinstance(event, Skip):
            self._record(unit, hook, moment, "skipped", cause, event.reason, reboot)
            return
        before = self._writable_bags(unit)
        recorder = Recorder()
        handlers = normalise(app.charm.exec_handlers, app.charm.containers)
        try:
            with self._charm_process(unit), attached(app.ctx, handlers, recorder):
                out = app.ctx.run(event, state)
        except testing.errors.UncaughtCharmError as e:
            # As Juju: the hook's relation data and status are not committed.
            unit.status = testing.ErrorStatus(f'hook failed: "{hook}"')
            error = e.__cause__ or e
            cause_text = f"exit status 1 (simulated: {type(error).__name__}: {error})"
            for container in state.containers:
                layers.harvest(
                    container.get_filesystem(app.ctx), unit.pod.containers[container.name].root
                )
            self.notice_writes(unit)
            trace = traced(hook, cause, "failed", recorder, unit.status, cause_text)
            self._record(unit, hook, moment, "failed", cause, cause_text, reboot, trace)
            return
        if is_attach:
            unit.storage_attached = True
        self._apply(unit, out)
        trace = traced(hook, cause, "ok", recorder, out.unit_status)
        self._record(unit, hook, moment, "ok", cause, "", reboot, trace)
        self._queue_changes(unit, before)

    def run_action(
        self, unit: Unit, action: str, params: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any], str]:
        """(status, results, message) of one action run through ops.testing."""
        app = self.apps[unit.app]
        state = self.state_for(unit)
        before = self._writable_bags(unit)
        try:
            with self._charm_process(unit):
                out = app.ctx.run(app.ctx.on.action(action, params=dict(params)), state)
        except testing.ActionFailed as e:
            if e.state is not None:
                self._apply(unit, e.state)
            return "failed", dict(app.ctx.action_results or {}), e.message
        except testing.errors.UncaughtCharmError as e:
            return "failed", {}, f"uncaught exception in the charm: {e.__cause__ or e}"
        self._apply(unit, out)
        self._queue_changes(unit, before)
        return "completed", dict(app.ctx.action_results or {}), ""

    def _apply(self, unit: Unit, out: testing.State) -> None:
        app = self.apps[unit.app]
        leader = app.leader == unit.number
        for view in out.relations:
            relation = self.relation(view.id)
            if relation is None:
                continue
            relation.unit_data[unit.name] = dict(view.local_unit_data)
            if leader:
                relation.app_data[app.name] = dict(view.local_app_data)
        unit.pod.stored_states = out.stored_states
        unit.pod.deferred = tuple(out.deferred)
        for container in out.containers:
            run = unit.pod.containers[container.name]
            run.layers = dict(container.layers)
            run.service_statuses = dict(container.service_statuses)
            layers.harvest(container.get_filesystem(app.ctx), run.root)
        self.notice_writes(unit)
        unit.status = out.unit_status
        if leader:
            app.status = out.app_status
        unit.workload_version = out.workload_version
        unit.opened_ports = out.opened_ports
        app.secrets = out.secrets

    def _record(
        self,
        unit: Unit,
        hook: str,
        moment: datetime,
        outcome: Outcome,
        cause: str,
        detail: str,
        reboot: bool,
        trace: HookTrace | None = None,
    ) -> None:
        self.dispatched.append(
            Dispatched(unit.name, hook, moment, outcome, cause, detail, reboot, trace)
        )

    # Relation-changed when a databag changed (Juju semantics, not a catalogue entry) ----

    def _writable_bags(self, unit: Unit) -> dict[tuple[int, str], dict[str, str]]:
        bags: dict[tuple[int, str], dict[str, str]] = {}
        for relation in self.relations:
            if relation.involves(unit.app):
                bags[relation.id, unit.name] = dict(relation.unit_data.get(unit.name, {}))
                bags[relation.id, unit.app] = dict(relation.app_data.get(unit.app, {}))
        return bags

    def _queue_changes(self, unit: Unit, before: Mapping[tuple[int, str], dict[str, str]]) -> None:
        after = self._writable_bags(unit)
        changed = sorted(
            {rid for (rid, owner), data in after.items() if before.get((rid, owner)) != data}
        )
        for rid in changed:
            relation = self.relation(rid)
            if relation is None:
                continue
            target_app = unit.app if relation.peer else relation.other(unit.app).app
            for target in self.apps[target_app].units:
                item = (target_app, target.number, rid, unit.number)
                if target is not unit and item not in self._queue:
                    self._queue.append(item)

    def settle(self) -> None:
        """Run what the model still owes: relation-changed hooks, then template rollouts."""
        ran = 0
        while self.node_up and (self._queue or self._patches):
            while self._queue:
                app_name, number, rid, remote = self._queue.pop(0)
                app = self.apps.get(app_name)
                target = app.unit(number) if app else None
                relation = self.relation(rid)
                if target is None or relation is None:
                    continue
                hook = f"{relation.end(app_name).endpoint}-relation-changed"
                self.run_hook(target, hook, "relation-data", relation_id=rid, remote_unit=remote)
                ran += 1
                if ran > MAX_CASCADE:
                    raise HarnessError(
                        f"relation-changed kept firing after {MAX_CASCADE} hooks (simulated)",
                        "a charm rewrites its databag on every relation-changed; fix the charm",
                    )
            if self._patches:
                statefulset, annotations = self._patches.pop(0)
                if statefulset in self.apps:
                    self.patch_template(statefulset, annotations, "charm-pod-spec-change")

    # Lifecycle ----------------------------------------------------------------------------

    def endpoints(self, unit: Unit) -> tuple[str, ...]:
        """The unit's endpoints that are in a relation, in relation order."""
        found: list[str] = []
        for relation in self.relations:
            if relation.involves(unit.app) and relation.end(unit.app).endpoint not in found:
                found.append(relation.end(unit.app).endpoint)
        return tuple(found)

    def run_lifecycle(
        self,
        unit: Unit,
        expectation: Expectation,
        cause: str,
        *,
        endpoints: Sequence[str] | None = None,
        relation_id: int | None = None,
        created: bool = True,
    ) -> None:
        """A lifecycle entry (deploy, integrate) on one unit."""
        app = self.apps[unit.app]
        hooks = lifecycle(
            expectation,
            containers=app.charm.containers,
            endpoints=self.endpoints(unit) if endpoints is None else endpoints,
            storages=app.charm.storages,
            leader=app.leader == unit.number,
            created=created,
        )
        self._run_hooks(unit, hooks, cause, relation_id)

    def _run_hooks(
        self, unit: Unit, hooks: Sequence[str], cause: str, relation_id: int | None = None
    ) -> None:
        for hook in hooks:
            self._run_relation_aware(unit, hook, cause, relation_id)

    def _run_relation_aware(
        self, unit: Unit, hook: str, cause: str, relation_id: int | None
    ) -> None:
        """Relation-joined/changed/departed run once per remote unit, as Juju does."""
        kind = next((k for k in RELATION_KINDS if hook.endswith(f"-relation-{k}")), None)
        if kind in (None, "broken") or (kind == "created" and relation_id is not None):
            self.run_hook(unit, hook, cause, relation_id=relation_id)
            return
        endpoint = hook[: -len(f"-relation-{kind}")]
        candidates = [
            r
            for r in self.relations
            if r.involves(unit.app)
            and r.end(unit.app).endpoint == endpoint
            and (relation_id is None or r.id == relation_id)
        ]
        if not candidates:
            self.run_hook(unit, hook, cause, relation_id=relation_id)  # records the skip
            return
        if kind == "created":  # once per relation (a deploying unit: each it is in)
            for relation in candidates:
                self.run_hook(unit, hook, cause, relation_id=relation.id)
            return
        for relation in candidates:
            remote_app = unit.app if relation.peer else relation.other(unit.app).app
            # No remote unit, no hook: Juju runs these once per remote unit.
            remotes = [u for u in self.apps[remote_app].units if u is not unit]
            for remote in remotes:
                self.run_hook(
                    unit, hook, cause, relation_id=relation.id, remote_unit=remote.number
                )

    def deploy_app(self, app: App, units: int) -> None:
        self.apps[app.name] = app
        app.address = f"10.152.183.{next(self._addresses)}"
        for peer_endpoint, interface in app.charm.peers:
            end = RelationEnd(app.name, peer_endpoint, interface, "peers")
            self.relations.append(TwinRelation(next(self._relation_ids), end, end))
        self.add_units(app, units, self.expect("deploy"))

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
            unit = Unit(app.name, number, self.new_pod(app, ordinal, index), index)
            unit.storage_attached = attach_early
            app.units.append(unit)
            if app.leader is None:
                app.leader = number
            for relation in self.relations:
                if relation.involves(app.name):
                    relation.unit_data[unit.name] = self._default_unit_data(app)
            new.append(unit)
        for unit in new:
            self.run_lifecycle(unit, deploy, "deploy")
        integrate = self.expect("integrate")
        for unit in new:
            for relation in self.relations:
                if relation.involves(app.name):
                    # relation-created ran with the deploy hooks: the relation was there.
                    self._join(unit, relation, integrate, created=False)
        self.settle()

    def _identity(self, app: App, ordinal: int) -> tuple[int, dict[str, int]]:
        """(unit number, storage indices) for a new unit on ``ordinal``."""
        freed = self._freed.pop((app.name, ordinal), None)
        arrival = None
        if freed is not None:
            arrival = self._plan(freed, self.expect("scale-down-up")).arrival
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

    def _default_unit_data(self, app: App) -> dict[str, str]:
        # What Juju of this version puts in every unit databag
        # (harness.catalogue.relation_keys); on Kubernetes the address is the app's service
        # address, which pod churn keeps.
        return unit_keys(self.version).data(app.address)

    def _join(
        self, unit: Unit, relation: TwinRelation, integrate: Expectation, *, created: bool = True
    ) -> None:
        self.run_lifecycle(
            unit,
            integrate,
            "integrate",
            endpoints=(relation.end(unit.app).endpoint,),
            relation_id=relation.id,
            created=created,
        )

    def integrate(self, a: RelationEnd, b: RelationEnd) -> TwinRelation:
        relation = TwinRelation(next(self._relation_ids), a, b)
        for end in (a, b):
            app = self.apps[end.app]
            for unit in app.units:
                relation.unit_data[unit.name] = self._default_unit_data(app)
        self.relations.append(relation)
        integrate = self.expect("integrate")
        for end in (a, b):
            for unit in sorted(self.apps[end.app].units, key=lambda u: u.number):
                self._join(unit, relation, integrate)
        self.settle()
        return relation

    # Disruptions: the engine decides, this applies it to pods ---------------------------

    def _plan(self, unit: Unit, expectation: Expectation, target: str | None = None) -> UnitPlan:
        app = self.apps[unit.app]
        return decide(
            expectation,
            containers=app.charm.containers,
            endpoints=self.endpoints(unit),
            storages=app.charm.storages,
            leader=app.leader == unit.number,
            target=target,
            deploy=self.expect("deploy"),
        )

    def apply_change(self, unit: Unit, change: Change, reason: str) -> None:
        """The engine's change, on the unit's pod."""
        if change.new_pod:
            self.replace_pod(unit)
            return
        for container in change.fresh_roots:
            self.restart_container(unit, container, reason)

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
        plan = self._plan(unit, expectation, target)
        self._run_hooks(unit, plan.before, cause)
        for hooks in plan.after:
            self.apply_change(unit, plan.change, reason)
            self._run_hooks(unit, hooks, cause)

    def delete_pod(self, pod: str) -> None:
        unit = self.unit_of_pod(pod)
        self.disrupt_unit(unit, self.expect("pod-delete"), "pod-delete")
        self.settle()

    def roll(self, app: App, cause: str) -> None:
        """A new pod template: StatefulSet RollingUpdate, highest ordinal first, one by one."""
        expectation = self.expect(cause)
        for unit in sorted(app.units, key=lambda u: u.pod.ordinal, reverse=True):
            self.disrupt_unit(unit, expectation, cause)

    def patch_template(self, app_name: str, annotations: Mapping[str, str], cause: str) -> None:
        app = self.app(app_name)
        template = {**app.template, **annotations}
        if template == app.template:
            return  # Kubernetes does not roll pods for an unchanged template
        app.template = template
        self.roll(app, cause)
        self.settle()

    def kill_pid1(self, pod: str, container: str, variant: str | None = None) -> None:
        """PID 1 of one container dies; ``variant`` is the branch its signal gives (the
        port picks it), else the lab's chosen branch or the container's SIGTERM one."""
        unit = self.unit_of_pod(pod)
        if container not in unit.pod.containers:
            known = ", ".join(unit.pod.containers)
            raise UnknownName(f"pod {pod} has no container {container!r}", f"use one of: {known}")
        if variant is not None:
            expectation = self._expect("container-restart", self.version, variant=variant)
        else:
            expectation = self.expect("container-restart", container=container)
        self.disrupt_unit(unit, expectation, "container-restart", target=container)
        self.settle()

    def refresh(self, app_name: str, resources: Mapping[str, str] | None) -> None:
        """juju refresh updates the StatefulSet (charm revision, images): pods roll."""
        app = self.app(app_name)
        app.revision += 1
        if resources:
            app.resources.update(resources)
        app.template = {
            **app.template,
            "twin.simulated/charm-revision": str(app.revision),
            "twin.simulated/resources": _digest(app.resources),
        }
        self.roll(app, "resource-refresh" if resources else "charm-refresh")
        self.settle()

    def node_stop(self) -> None:
        """The node goes down: hooks before the change (if any) run, then nothing runs."""
        if not self.node_up:
            return
        expectation = self.expect("node-restart")
        for unit in self._all_units():
            plan = self._plan(unit, expectation)
            self._run_hooks(unit, plan.before, "node-restart")
            self._after_start.append((unit, plan, "Unknown (node restarted)"))
        self.node_up = False
        for unit in self._all_units():
            for run in unit.pod.containers.values():
                run.ready = False
            unit.pod.phase = "Unknown"

    def node_start(self) -> None:
        """The same pods (same uids) come back; the engine's change, then the hooks."""
        if self.node_up:
            return
        self.node_up = True
        pending, self._after_start = self._after_start, []
        for unit, plan, reason in pending:
            self.apply_change(unit, plan.change, reason)
        for unit in self._all_units():
            for run in unit.pod.containers.values():
                run.ready = True
            unit.pod.phase = "Running"
        for unit, plan, reason in pending:
            for index, hooks in enumerate(plan.after):
                if index:
                    self.apply_change(unit, plan.change, reason)
                self._run_hooks(unit, hooks, "node-restart")
        self.settle()

    def scale(self, app_name: str, count: int) -> None:
        if count < 0:
            raise HarnessError(f"cannot scale {app_name} to {count}", "give 0 or more units")
        app = self.app(app_name)
        expectation = self.expect("scale-down-up")
        # The StatefulSet's scale drops the highest ordinals at once: every leaving unit
        # tears down while the others are still there (so each departs from each).
        leaving = sorted(app.units, key=lambda u: u.pod.ordinal, reverse=True)
        leaving = leaving[: max(0, len(app.units) - count)]
        plans = [(unit, self._plan(unit, expectation)) for unit in leaving]
        for unit, plan in plans:
            self._run_hooks(unit, plan.before, "scale-down-up")
        for unit, _ in plans:
            self._remove_unit(app, unit)
        if len(app.units) < count:
            deploy = expectation.new_units or self.expect("deploy")
            self.add_units(app, count - len(app.units), deploy)
        self.settle()

    def _remove_unit(self, app: App, unit: Unit) -> None:
        """Scale down: the unit has torn down; its pod and unit record are gone."""
        app.units.remove(unit)
        for relation in self.relations:
            relation.unit_data.pop(unit.name, None)
        if app.leader == unit.number:
            app.leader = min((u.number for u in app.units), default=None)
        self._freed[app.name, unit.pod.ordinal] = unit
        shutil.rmtree(unit.pod.directory, ignore_errors=True)

    def _all_units(self) -> list[Unit]:
        return [u for app in self.apps.values() for u in sorted(app.units, key=lambda u: u.number)]


@contextlib.contextmanager
def _libyaml() -> Iterator[None]:
    """PyYAML's C emitter and parser while a hook runs, when PyYAML has them.

    ops.testing writes the charm's metadata as YAML and ops reads it back on every hook;
    with the pure-Python ones that is a quarter of a hook's time. Same YAML, same values.
    """
    if not yaml.__with_libyaml__:
        yield
        return
    saved = yaml.safe_dump, yaml.safe_load
    yaml.safe_dump = functools.partial(yaml.dump, Dumper=yaml.CSafeDumper)  # type: ignore[assignment]
    yaml.safe_load = functools.partial(yaml.load, Loader=yaml.CSafeLoader)  # type: ignore[assignment]
    try:
        yield
    finally:
        yaml.safe_dump, yaml.safe_load = saved


def _digest(values: Mapping[str, str]) -> str:
    text = "\n".join(f"{k}={v}" for k, v in sorted(values.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
