"""The twin played out in real time: each hook runs when a real uniter would run it.

The twin (``harness.twin.world.Twin``) carries a disruption through at once: the hooks
before, the pod change, the hooks after, then the relation-changed cascade. A world runs
the same code in a thread of its own and makes it wait, between the twin's steps, for the
moment the step happens on a real node: a hook after the one before it, a new pod's first
hook after its agent started, a pebble-ready after its container is Ready (late, when the
world is hostile), a pod replaced only when the old one is gone. While it waits it holds no
lock, so the servers show the model as it is at that moment: the old pod Terminating, the
new one not Ready, the agent idle between hooks, the log growing.

This module is the only one that reaches into the twin's internals (the methods it paces
are replaced on the instance, the twin's code is not changed); when the twin is split into
modules, only the names here move.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from harness.twin.clock import TwinClock
from rehearsal.world import timing

if TYPE_CHECKING:
    from harness.twin.model import Pod, Unit
    from harness.twin.uniter import Dispatched
    from harness.twin.world import Twin
    from rehearsal.world.model import WorldModel

DISRUPTIONS = frozenset(
    {
        "pod-delete",
        "pod-spec-change",
        "charm-pod-spec-change",
        "container-restart",
        "charm-refresh",
        "resource-refresh",
        "node-restart",
        "scale-down-up",
    }
)


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class WorldClock(TwinClock):
    """The twin's clock on the wall: ``now`` is real time; a hook's end time is the one
    the pacer chose (``hook_ran``), so the twin's records and the probe's journal carry the
    times the world shows."""

    def __init__(self) -> None:
        super().__init__(utcnow())
        self._local = threading.local()

    def now(self) -> datetime:
        self._now = max(self._now + timedelta(microseconds=1), utcnow())
        return self._now

    def peek(self) -> datetime:
        return max(self._now, utcnow())

    def monotonic(self) -> float:
        return (self.now() - self._start).total_seconds()

    def set_hook_end(self, end: datetime) -> None:
        self._local.end = end

    def hook_ran(self) -> datetime:
        end: datetime | None = getattr(self._local, "end", None)
        self._local.end = None
        if end is None:  # a hook the pacer did not plan (none should be)
            end = utcnow()
        self._now = max(self._now, end)
        return end


@dataclass
class PodShow:
    """What Kubernetes shows of one pod beyond the twin's record of it."""

    created: datetime
    ready_at: dict[str, datetime]
    first_hook: datetime
    deleted: datetime | None = None  # metadata.deletionTimestamp
    gone: datetime | None = None  # when the API stops listing it
    grace: int = 30
    agent_logged: bool = False  # its unit agent said it started


@dataclass
class UnitShow:
    busy: tuple[datetime, datetime] | None = None  # the hook or action running
    free_at: datetime = field(default_factory=utcnow)
    disrupted_by: str | None = None


class Stopped(Exception):
    """The world is shutting down: an operation waiting on it gives up."""


class Pacer:
    """Makes one model's twin wait for the world's moments (see the module docstring)."""

    def __init__(self, model: WorldModel) -> None:
        self.model = model
        self.twin: Twin = model.twin
        self.clock: WorldClock = model.clock
        self.pods: dict[str, PodShow] = {}
        self.units: dict[str, UnitShow] = {}
        self.local = threading.local()  # .cause of the operation this thread runs
        self._install()

    # Time ---------------------------------------------------------------------------------

    def later(self, seconds: float, start: datetime | None = None) -> datetime:
        """``seconds`` world seconds after ``start`` (default now), on the wall clock."""
        return (start or utcnow()) + timedelta(seconds=seconds / self.model.world.scale)

    def wait_until(self, moment: datetime | None) -> None:
        """Sleep until ``moment`` (None: for ever) without holding the world's lock."""
        world = self.model.world
        lock = world.lock
        lock.release()
        try:
            while True:
                if world.stopping.is_set():
                    raise Stopped()
                left = None if moment is None else (moment - utcnow()).total_seconds()
                if left is not None and left <= 0:
                    return
                self.model.yielded()
                world.stopping.wait(0.5 if left is None else min(left, 0.5))
        finally:
            lock.acquire()

    @property
    def cause(self) -> str:
        return str(getattr(self.local, "cause", "") or "")

    @contextmanager
    def operation(self, cause: str) -> Iterator[None]:
        self.local.cause = cause
        try:
            yield
        finally:
            self.local.cause = ""

    # What the servers read ----------------------------------------------------------------

    def show(self, pod: Pod) -> PodShow:
        shown = self.pods.get(pod.uid)
        if shown is None:
            now = utcnow()
            shown = PodShow(now, {c: now for c in pod.containers}, now)
            self.pods[pod.uid] = shown
        return shown

    def unit(self, name: str) -> UnitShow:
        return self.units.setdefault(name, UnitShow())

    def agent_status(self, name: str, now: datetime) -> str:
        busy = self.unit(name).busy
        return "executing" if busy is not None and busy[0] <= now < busy[1] else "idle"

    # The twin's steps, paced --------------------------------------------------------------

    def _install(self) -> None:
        # The twin's parts call each other through these instances (harness/twin/world.py
        # composes them), so pacing a step is replacing it on the part that owns it.
        uniter: Any = self.twin.uniter
        node: Any = self.twin.node
        churn: Any = self.twin.churn
        self._run_hook: Callable[..., None] = uniter.run_hook
        self._replace_pod: Callable[[Any, Unit], None] = node.replace_pod
        self._restart_container: Callable[[Any, Unit, str, str], None] = node.restart_container
        self._disrupt_unit: Callable[..., None] = churn.disrupt_unit
        self._new_pod: Callable[..., Pod] = node.new_pod
        uniter.run_hook = self.run_hook
        node.replace_pod = self.replace_pod
        node.restart_container = self.restart_container
        churn.disrupt_unit = self.disrupt_unit
        node.new_pod = self.new_pod

    def new_pod(self, app: Any, ordinal: int, storage_index: Any) -> Pod:
        pod = self._new_pod(app, ordinal, storage_index)
        now = utcnow()
        ready = self.later(timing.CONTAINERS_READY, now)
        self.pods[pod.uid] = PodShow(
            created=now,
            ready_at=dict.fromkeys(pod.containers, ready),
            first_hook=self.later(timing.FIRST_HOOK, now),
            grace=self.model.world.persona.grace_seconds,
        )
        return pod

    def disrupt_unit(self, unit: Unit, expectation: Any, cause: str, **kwargs: Any) -> None:
        self.unit(unit.name).disrupted_by = cause
        plan = self.twin.churn.plan(unit, expectation, kwargs.get("target"))
        if plan.change.new_pod:
            shown = self.show(unit.pod)
            if shown.deleted is None:  # a roll: the StatefulSet controller deletes it
                shown.deleted = utcnow()
                self.model.changed()
        self._disrupt_unit(unit, expectation, cause, **kwargs)

    def replace_pod(self, app: Any, unit: Unit) -> None:
        """The old pod goes when Kubernetes removes it, then the StatefulSet makes the new
        one: with a lingering pod, after its whole grace period (Juju sets
        terminationGracePeriodSeconds: 300 s before 3.3, 30 s after)."""
        shown = self.show(unit.pod)
        if shown.deleted is None:
            shown.deleted = utcnow()
        if shown.gone is None:
            hostile = self.model.world.hostility.linger_terminating
            linger = shown.grace if hostile else timing.HOOK
            shown.gone = max(self.later(linger, shown.deleted), self.unit(unit.name).free_at)
        self.model.changed()
        self.wait_until(shown.gone)
        self._replace_pod(app, unit)
        self.model.changed()

    def restart_container(self, app: Any, unit: Unit, container: str, reason: str) -> None:
        """A container comes back with a fresh root filesystem: after the kubelet's restart
        delay for a killed PID 1; with the node, when the node starts."""
        shown = self.show(unit.pod)
        if self.cause == "node-restart":
            self._restart_container(app, unit, container, reason)
            started = self.model.world.node_started or utcnow()
            shown.ready_at[container] = self.later(timing.CONTAINERS_READY, started)
            if container == "charm":
                self.model.agent_start(unit.tag, self.later(timing.AGENT_START, started))
            self.model.changed()
            return
        shown.ready_at[container] = datetime.max.replace(tzinfo=timezone.utc)
        self.model.changed()
        self.wait_until(self.later(timing.RESTART))
        self._restart_container(app, unit, container, reason)
        shown.ready_at[container] = self.later(timing.HOOK)
        if container == "charm":
            self.model.agent_start(unit.tag, self.later(timing.HOOK))
            shown.first_hook = self.later(timing.FIRST_HOOK)
            shown.agent_logged = True
        self.model.changed()

    def hook_start(self, unit: Unit, hook: str, cause: str) -> datetime | None:
        """When a real uniter would start ``hook`` (None: never, the controller is gone)."""
        shown = self.show(unit.pod)
        state = self.unit(unit.name)
        start = max(utcnow(), state.free_at, shown.first_hook)
        if hook.endswith("-pebble-ready"):
            # The uniter polls each workload's pebble every 5 s and queues pebble-ready when
            # its boot id is new (worker/uniter/pebblepoller.go@juju-2.9.31 and @3.6,
            # internal/worker/uniter/pebblepoller.go@main); nothing bounds how long after
            # the container's readiness that is (pebble starting slowly, the uniter busy).
            container = hook[: -len("-pebble-ready")]
            ready = shown.ready_at.get(container, start)
            late = self.model.world.hostility.late_pebble_ready if cause in DISRUPTIONS else 0
            start = max(start, self.later(timing.PEBBLE_POLL / 2 + late, ready))
        world = self.model.world
        if cause == "node-restart" or world.controller_away(start):
            # No hook runs without the controller: after a node restart the agents dial it
            # again once it is back (never, while it stays away).
            back = world.controller_back
            if back is None:
                return None
            start = max(start, self.later(timing.AGENT_RECONNECT, back))
        return self.later(timing.GAP, start)

    def run_hook(self, unit: Unit, hook: str, cause: str, **kwargs: Any) -> None:
        shown = self.show(unit.pod)
        if not shown.agent_logged:  # the first hook on a new pod: its agent started first
            shown.agent_logged = True
            self.model.agent_start(unit.tag, self.later(timing.AGENT_START, shown.created))
        start = self.hook_start(unit, hook, cause)
        while start is None and not self.model.world.stopping.is_set():
            self.wait_until(self.later(timing.AGENT_RECONNECT))  # the controller is away
            start = self.hook_start(unit, hook, cause)
        self.wait_until(start)
        began = utcnow()
        end = self.later(timing.HOOK, began)
        state = self.unit(unit.name)
        state.busy, state.free_at = (began, end), end
        self.clock.set_hook_end(end)
        ran = len(self.twin.uniter.dispatched)
        self._run_hook(unit, hook, cause, **kwargs)
        for item in self.twin.uniter.dispatched[ran:]:
            self._log(unit, item, began)
        self.model.changed()
        self.wait_until(end)
        state.busy = None

    def run_action(self, unit: Unit, run: Callable[[], Any]) -> Any:
        """An action runs between hooks, on the unit's agent."""
        state = self.unit(unit.name)
        self.wait_until(max(utcnow(), state.free_at))
        began = utcnow()
        end = self.later(timing.GAP, began)
        state.busy, state.free_at = (began, end), end
        try:
            return run()
        finally:
            self.model.changed()
            self.wait_until(end)
            state.busy = None

    # The uniter's lines -------------------------------------------------------------------

    def _log(self, unit: Unit, item: Dispatched, began: datetime) -> None:
        if item.outcome == "skipped":
            return  # Juju runs no hook that does not apply, and says nothing
        model, entity = self.model, unit.tag
        held = None
        hostility = model.world.hostility
        if (
            hostility.hold_record
            and item.hook == hostility.hold_hook
            and item.cause in DISRUPTIONS
            and not model.held_once
        ):
            model.held_once = True
            held = self.later(hostility.hold_record, item.time)
        if item.reboot:
            model.agent_log(
                entity,
                began,
                "INFO",
                "juju.worker.uniter",
                "reboot detected; triggering implicit start hook to notify charm",
            )
        # ops logs every event it emits through juju-log at DEBUG (ops/_main.py); the agent
        # drops it unless logging-config keeps `unit` at DEBUG.
        event = item.hook.replace("-", "_")
        model.agent_log(
            entity,
            began + timedelta(milliseconds=5),
            "DEBUG",
            f"unit.{unit.name}.juju-log",
            f"Emitting Juju event {event}.",
        )
        if item.outcome == "ok":
            # worker/uniter/operation/runhook.go (2.9.31, 3.6; internal/... on main)
            message = f'ran "{item.hook}" hook (via hook dispatching script: dispatch)'
            level = "INFO"
        else:
            detail = " ".join(item.detail.split()) or "exit status 1"
            message = (
                f'hook "{item.hook}" (via hook dispatching script: dispatch) failed: {detail}'
            )
            level = "ERROR"
        model.agent_log(
            entity, item.time, level, "juju.worker.uniter.operation", message, not_before=held
        )
