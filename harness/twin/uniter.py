"""The twin's uniter: a hook or an action dispatched to a unit's charm through ops.testing,
its effects carried into the controller's records, and a record of what it dispatched.

The charm sees the State the records give (``state_for``) in a process that looks like its
pod (hostname, root filesystem, the twin's time and ids). Juju's own behaviour beyond the
catalogue lives here too: relation hooks run once per relation and remote unit, and a
changed databag owes the remote units a ``relation-changed`` (``owed_changes``).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import sys
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ops import testing

from harness.catalogue.model import Expectation
from harness.common.charm_errors import CharmError
from harness.common.observations import Outcome
from harness.twin import compat, layers
from harness.twin.charm_dir import working_directory
from harness.twin.charms import HookEnv
from harness.twin.clock import TwinClock, iso
from harness.twin.engine import lifecycle
from harness.twin.hooks import RELATION_KINDS, Skip, event_for
from harness.twin.leadership import leads
from harness.twin.model import CHARM_CONTAINER, TwinRelation, Unit
from harness.twin.names import MODEL_NAME, MODEL_UUID
from harness.twin.node import Node
from harness.twin.ops_patches import libyaml, no_resource_is_a_model_error, scenario_backend
from harness.twin.records import Records
from harness.twin.retry import (
    RETRY_DELAYS,
    HookFailure,
    frames,
    held_reason,
    runs_in_error,
    workload_doubt,
)
from harness.twin.trace import HookTrace, traced
from harness.twin.workload import Recorder, attached, normalise

# ops.testing's state module (ops-scenario), whose secret ids are random.
_scenario_state: Any = sys.modules.get(testing.State.__module__)
_XID = "0123456789abcdefghijklmnopqrstuv"  # xid's base32hex alphabet


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


class Uniter:
    """Runs the charms of every unit of one model, one hook or action at a time."""

    def __init__(self, records: Records, node: Node, clock: TwinClock) -> None:
        self.records = records
        self.node = node
        self.clock = clock
        self.dispatched: list[Dispatched] = []
        # relation-changed hooks owed: (app, unit, relation, remote unit)
        self.owed_changes: list[tuple[str, int, int, int]] = []
        # StatefulSet patches a charm made from a hook: (statefulset, annotations)
        self.owed_patches: list[tuple[str, dict[str, str]]] = []
        self.failures: list[HookFailure] = []
        self._uuids = itertools.count()
        self._secrets = itertools.count()

    # Deterministic identities -------------------------------------------------------------

    def next_uuid(self) -> uuid.UUID:
        """Stands in for uuid.uuid4 while a charm runs: the same run gives the same ids."""
        seed = hashlib.sha256(f"twin-uuid-{next(self._uuids)}".encode()).digest()[:16]
        return uuid.UUID(bytes=seed, version=4)

    def next_secret_id(self) -> str:
        """Stands in for ops.testing's random secret ids: ``secret:`` and 20 characters of
        an xid, as Juju's ``NewURI`` makes them (core/secrets/secret.go), from a counter."""
        seed = hashlib.sha256(f"twin-secret-{next(self._secrets)}".encode()).digest()
        return "secret:" + "".join(_XID[b % 32] for b in seed[:20])

    # What the charm sees -------------------------------------------------------------------

    def state_for(self, unit: Unit, *, attach_storage: bool = False) -> testing.State:
        """The ops.testing State this unit's charm sees now."""
        app = self.records.apps[unit.app]
        relations = [
            self._relation_view(relation, unit)
            for relation in self.records.relations
            if relation.involves(app.name)
        ]
        containers = []
        for name in app.charm.containers:
            run = unit.pod.containers[name]
            containers.append(
                testing.Container(
                    name,
                    can_connect=run.ready and self.node.up,
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
            leader=leads(app, unit),
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
        app = self.records.apps[unit.app]
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
        remote = self.records.apps[other.app]
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
        app = self.records.apps[unit.app]
        ctx = app.ctx
        compat.set_unit_id(ctx, unit.number)
        ctx.charm_root = self.node.charm_dir(unit, app.charm.directory)
        # ops-scenario 7.0 keeps ops' unit-state database in the charm root; the twin keeps
        # that state itself (``Pod.stored_states``), so no stale copy may be left there.
        (ctx.charm_root / ".unit-state.db").unlink(missing_ok=True)
        ctx.app_trusted = app.trusted
        env = {
            "HOSTNAME": unit.pod.name,
            "PROBE_ROOTFS": str(unit.pod.containers[CHARM_CONTAINER].root),
        }
        # Each hook is a new process under Juju: ops' marker that it dispatched already
        # (OPERATOR_DISPATCH, set by ops before 3) must not reach the next hook, which ops
        # would otherwise abort as "charm called itself".
        saved = {key: os.environ.get(key) for key in (*env, "OPERATOR_DISPATCH")}
        saved_uuid4 = uuid.uuid4
        os.environ.pop("OPERATOR_DISPATCH", None)
        os.environ.update(env)
        uuid.uuid4 = self.next_uuid  # type: ignore[assignment]
        saved_resource_get = no_resource_is_a_model_error()
        saved_secret_id = getattr(_scenario_state, "_generate_secret_id", None)
        if saved_secret_id is not None:
            _scenario_state._generate_secret_id = self.next_secret_id
        around = app.charm.around_hook
        hook_env = HookEnv(
            app=app.name,
            unit=unit.name,
            now=self.clock.peek().isoformat(timespec="microseconds"),
            trusted=app.trusted,
            patch_template=self._charm_patched_template,
        )
        try:
            with (
                libyaml(),
                app.charm.modules.active() if app.charm.modules else contextlib.nullcontext(),
                working_directory(ctx.charm_root),
                around(hook_env) if around else contextlib.nullcontext(),
            ):
                yield
        finally:
            uuid.uuid4 = saved_uuid4
            if saved_secret_id is not None:
                _scenario_state._generate_secret_id = saved_secret_id
            if saved_resource_get is not None:
                scenario_backend().resource_get = saved_resource_get
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def _charm_patched_template(self, statefulset: str, annotations: Mapping[str, str]) -> None:
        # Applied after the hook: Kubernetes rolls the pods while the uniter moves on.
        self.owed_patches.append((statefulset, dict(annotations)))

    # Running hooks and actions --------------------------------------------------------------

    def run_hook(
        self,
        unit: Unit,
        hook: str,
        cause: str,
        *,
        relation_id: int | None = None,
        remote_unit: int | None = None,
    ) -> None:
        """Run one hook through ops.testing and carry its effects into the model.

        A hook the charm fails puts the unit in error and is retried as Juju retries it;
        while the unit stays in error, later hooks are held (``harness.twin.retry``).
        """
        failed = unit.failed
        if failed is not None and not runs_in_error(hook, failed.hook):
            failed.held.append(hook)
            moment = self.clock.now()
            reason = held_reason(unit.name, failed.hook)
            self._record(unit, hook, moment, "skipped", cause, reason, False)
            return
        failure = self._run_once(unit, hook, cause, relation_id, remote_unit)
        if failure is None or failed is not None:
            return
        for delay in RETRY_DELAYS:
            self.clock.advance(delay)
            failure.attempts += 1
            if self._run_once(unit, hook, "retry", relation_id, remote_unit) is None:
                failure.recovered = True
                break
        self.failures.append(failure)
        if not failure.recovered:
            unit.failed = failure

    def _run_once(
        self,
        unit: Unit,
        hook: str,
        cause: str,
        relation_id: int | None,
        remote_unit: int | None,
    ) -> HookFailure | None:
        """One run of a hook; the failure when the charm raised in it."""
        app = self.records.apps[unit.app]
        is_attach = hook.endswith("-storage-attached")
        state = self.state_for(unit, attach_storage=is_attach)
        event = event_for(
            app.ctx.on, hook, state, relation_id=relation_id, remote_unit=remote_unit
        )
        reboot = hook == "start" and self.node.agent_restarted(unit)
        moment = self.clock.hook_ran()
        if isinstance(event, Skip):
            self._record(unit, hook, moment, "skipped", cause, event.reason, reboot)
            return None
        before = self._writable_bags(unit)
        recorder = Recorder()
        handlers = normalise(app.charm.exec_handlers, app.charm.containers)
        try:
            with self._charm_process(unit), attached(app.ctx, handlers, recorder):
                out = app.ctx.run(event, state)
        except testing.errors.UncaughtCharmError as e:
            # As Juju: the hook's relation data and status are not committed.
            if not isinstance(unit.status, testing.ErrorStatus):
                unit.status_before_error = unit.status
            unit.status = testing.ErrorStatus(f'hook failed: "{hook}"')
            error = e.__cause__ or e
            cause_text = f"exit status 1 (simulated: {type(error).__name__}: {error})"
            for container in state.containers:
                layers.harvest(
                    container.get_filesystem(app.ctx), unit.pod.containers[container.name].root
                )
            self.node.notice_writes(unit)
            trace = traced(hook, cause, "failed", recorder, unit.status, cause_text)
            self._record(unit, hook, moment, "failed", cause, cause_text, reboot, trace)
            return HookFailure(
                app=app.name,
                unit=unit.name,
                hook=hook,
                exception=f"{type(error).__name__}: {error}".strip(),
                traceback=frames(error, app.charm.directory),
                time=iso(moment),
                undetermined=workload_doubt(
                    error,
                    [
                        f"`{' '.join(c.command)}` in {c.container}"
                        for c in recorder.commands
                        if not c.handled
                    ],
                    tuple(app.charm.images),
                ),
            )
        if is_attach:
            unit.storage_attached = True
        self._apply(unit, out)
        if isinstance(unit.status, testing.ErrorStatus):  # the charm set none of its own
            unit.status = unit.status_before_error or testing.UnknownStatus()  # type: ignore[no-untyped-call]
        trace = traced(hook, cause, "ok", recorder, out.unit_status)
        self._record(unit, hook, moment, "ok", cause, "", reboot, trace)
        self._queue_changes(unit, before)
        return None

    def charm_errors(self) -> tuple[CharmError, ...]:
        """Every hook a charm failed so far, with Juju's retries and the hooks held."""
        return tuple(failure.value() for failure in self.failures)

    def run_action(
        self, unit: Unit, action: str, params: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any], str]:
        """(status, results, message) of one action run through ops.testing."""
        app = self.records.apps[unit.app]
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
        app = self.records.apps[unit.app]
        leader = leads(app, unit)
        for view in out.relations:
            relation = self.records.relation(view.id)
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
        self.node.notice_writes(unit)
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
        for relation in self.records.relations:
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
            relation = self.records.relation(rid)
            if relation is None:
                continue
            target_app = unit.app if relation.peer else relation.other(unit.app).app
            for target in self.records.apps[target_app].units:
                item = (target_app, target.number, rid, unit.number)
                if target is not unit and item not in self.owed_changes:
                    self.owed_changes.append(item)

    # Hook lists: a lifecycle entry, and relation hooks per relation and remote unit ------

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
        app = self.records.apps[unit.app]
        hooks = lifecycle(
            expectation,
            containers=app.charm.containers,
            endpoints=self.records.endpoints(unit) if endpoints is None else endpoints,
            storages=app.charm.storages,
            leader=leads(app, unit),
            created=created,
        )
        self.run_hooks(unit, hooks, cause, relation_id)

    def run_hooks(
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
            for r in self.records.relations
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
            remotes = [u for u in self.records.apps[remote_app].units if u is not unit]
            for remote in remotes:
                self.run_hook(
                    unit, hook, cause, relation_id=relation.id, remote_unit=remote.number
                )
