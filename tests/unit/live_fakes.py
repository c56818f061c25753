"""In-memory ports and a fake clock for the live backend's tests (no cluster, no sleeps)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import partial

from harness.common.observations import (
    ContainerStatus,
    Databag,
    FileState,
    PodIdentity,
    UnitStatus,
)
from harness.common.versions import CharmVersion, Versions
from harness.lab.ports import ActionResult, AppSpec, ExecResult, Lab

EPOCH = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


class FakeClock:
    """Time moves only when someone sleeps; callbacks run at given moments."""

    def __init__(self) -> None:
        self.elapsed = 0.0
        self.sleeps: list[float] = []
        self._at: list[tuple[float, Callable[[], None]]] = []

    def now(self) -> datetime:
        return EPOCH + timedelta(seconds=self.elapsed)

    def monotonic(self) -> float:
        return self.elapsed

    def at(self, moment: float, action: Callable[[], None]) -> None:
        self._at.append((moment, action))

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.elapsed += seconds
        due = [a for a in self._at if a[0] <= self.elapsed]
        self._at = [a for a in self._at if a[0] > self.elapsed]
        for _, action in due:
            action()
        await asyncio.sleep(0)


def container(name: str, restarts: int = 0, ready: bool = True) -> ContainerStatus:
    return ContainerStatus(name=name, restart_count=restarts, ready=ready)


def pod(unit: str, uid: str, *, ready: bool = True, restarts: int = 0) -> PodIdentity:
    app, _, n = unit.rpartition("/")
    return PodIdentity(
        unit=unit,
        name=f"{app}-{n}",
        uid=uid,
        phase="Running",
        containers=(container("charm", 0, ready), container("workload", restarts, ready)),
    )


@dataclass
class FakeCluster:
    """Pods per app; deleting a pod queues its replacement (a new uid) for the next look."""

    namespace: str = "test-model"
    pods_of: dict[str, list[PodIdentity]] = field(default_factory=dict)
    deleted: list[str] = field(default_factory=list)
    patched: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    killed: list[tuple[str, str]] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    written: list[tuple[str, str, str, str]] = field(default_factory=list)
    files: dict[tuple[str, str], tuple[FileState, ...]] = field(default_factory=dict)
    listed: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    on_look: Callable[[FakeCluster], None] | None = None
    looks: int = 0
    counter: int = 0

    def new_uid(self) -> str:
        self.counter += 1
        return f"uid-new-{self.counter}"

    async def pods(self, app: str) -> tuple[PodIdentity, ...]:
        self.looks += 1
        if self.on_look:
            self.on_look(self)
        return tuple(self.pods_of.get(app, []))

    async def delete_pod(self, pod_name: str) -> None:
        self.deleted.append(pod_name)
        for app, pods in self.pods_of.items():
            self.pods_of[app] = [
                replace(p, uid=self.new_uid()) if p.name == pod_name else p for p in pods
            ]

    async def patch_pod_template(self, app: str, annotations: Mapping[str, str]) -> None:
        self.patched.append((app, dict(annotations)))
        self.pods_of[app] = [replace(p, uid=self.new_uid()) for p in self.pods_of.get(app, [])]

    async def exec(self, pod: str, container: str, argv: Sequence[str]) -> ExecResult:
        return ExecResult("", "", 0)

    async def list_files(
        self, pod: str, container: str, paths: Sequence[str]
    ) -> tuple[FileState, ...]:
        self.listed.append((pod, container, tuple(paths)))
        return self.files.get((pod, container), ())

    async def write_file(self, pod: str, container: str, path: str, content: str) -> None:
        self.written.append((pod, container, path, content))

    async def kill_pid1(self, pod: str, container: str, signal: str = "TERM") -> None:
        self.killed.append((pod, container))
        self.signals.append(signal)
        for app, pods in self.pods_of.items():
            self.pods_of[app] = [
                replace(
                    p,
                    containers=tuple(
                        replace(c, restart_count=c.restart_count + 1) if c.name == container else c
                        for c in p.containers
                    ),
                )
                if p.name == pod
                else p
                for p in pods
            ]

    async def server_version(self) -> str | None:
        return "v1.28.3"


@dataclass
class FakeJuju:
    """Units and statuses per app, scripted action results, a growing debug-log."""

    model_name: str = "test-model"
    statuses_of: list[UnitStatus] = field(default_factory=list)
    relations: dict[str, tuple[Databag, ...]] = field(default_factory=dict)
    action_results: dict[tuple[str, str], ActionResult] = field(default_factory=dict)
    actions: list[tuple[str, str, dict[str, object]]] = field(default_factory=list)
    log_lines: list[str] = field(default_factory=list)
    recent_asked: list[int] = field(default_factory=list)  # debug_log_recent's `lines`
    calls: list[tuple[object, ...]] = field(default_factory=list)
    charm_revision: int = 1
    reconnected: int = 0

    async def deploy(self, spec: AppSpec) -> None:
        self.calls.append(("deploy", spec.app))

    async def integrate(self, endpoint_a: str, endpoint_b: str) -> None:
        self.calls.append(("integrate", endpoint_a, endpoint_b))

    async def set_config(self, app: str, values: Mapping[str, str]) -> None:
        self.calls.append(("config", app, dict(values)))

    async def trust(self, app: str) -> None:
        self.calls.append(("trust", app))

    async def refresh(
        self,
        app: str,
        *,
        path: str | None = None,
        channel: str | None = None,
        resources: Mapping[str, str] | None = None,
    ) -> None:
        self.calls.append(("refresh", app, path, channel, dict(resources or {})))
        if path:
            self.charm_revision += 1

    async def scale(self, app: str, units: int) -> None:
        self.calls.append(("scale", app, units))

    async def units(self, app: str) -> tuple[str, ...]:
        return tuple(s.unit for s in self.statuses_of if s.unit.rpartition("/")[0] == app)

    async def statuses(self, apps: Sequence[str] = ()) -> tuple[UnitStatus, ...]:
        return tuple(s for s in self.statuses_of if not apps or s.unit.rpartition("/")[0] in apps)

    async def run_action(
        self, unit: str, action: str, params: Mapping[str, object] | None = None
    ) -> ActionResult:
        self.actions.append((unit, action, dict(params or {})))
        return self.action_results.get((unit, action), ActionResult(unit, action, "completed", {}))

    async def unit_relations(self, unit: str) -> tuple[Databag, ...]:
        return self.relations.get(unit, ())

    async def debug_log(self) -> str:
        return "\n".join(self.log_lines)

    async def debug_log_recent(self, lines: int) -> str:
        self.recent_asked.append(lines)
        return "\n".join(self.log_lines[-lines:])

    async def ops_log_recent(self, lines: int) -> str:
        return ""  # a model whose logging-config drops the charms' DEBUG lines (Juju's default)

    async def versions(self) -> Versions:
        return Versions(charms=(CharmVersion("probe", "probe", None, self.charm_revision),))

    async def reconnect(self) -> None:
        self.reconnected += 1
        self.calls.append(("reconnect",))


@dataclass
class FakeNode:
    calls: list[str] = field(default_factory=list)
    on_stop: Callable[[], None] | None = None

    async def stop(self) -> None:
        self.calls.append("stop")
        if self.on_stop:
            self.on_stop()

    async def start(self) -> None:
        self.calls.append("start")

    async def wait_ready(self, timeout: float) -> None:
        self.calls.append("wait_ready")

    async def version(self) -> str | None:
        return "MicroK8s v1.28.3 revision 6089"


def status(
    unit: str, agent: str = "idle", workload: str = "active", leader: bool = False
) -> UnitStatus:
    return UnitStatus(
        unit=unit, workload=workload, workload_message="", agent=agent, leader=leader
    )


def make_lab(
    juju: FakeJuju | None = None,
    cluster: FakeCluster | None = None,
    node: FakeNode | None = None,
    clock: FakeClock | None = None,
) -> Lab:
    return Lab(
        backend="live",
        juju=juju or FakeJuju(),
        cluster=cluster or FakeCluster(),
        node=node or FakeNode(),
        clock=clock or FakeClock(),
    )


class FakeJujuRunner:
    """Answers ``juju <args>`` by argv prefix (a queue per prefix, the last answer repeats)."""

    def __init__(self, version: str = "3.6.1-genericlinux-amd64") -> None:
        self.calls: list[tuple[str, ...]] = []
        self.answers: dict[tuple[str, ...], list[tuple[int, str, str]]] = {}
        self.answer(("version",), 0, version + "\n")

    def answer(self, prefix: tuple[str, ...], rc: int, out: str = "", err: str = "") -> None:
        self.answers.setdefault(prefix, []).append((rc, out, err))

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        self.calls.append(tuple(args))
        for prefix, queue in self.answers.items():
            if tuple(args[: len(prefix)]) == prefix:
                return queue.pop(0) if len(queue) > 1 else queue[0]
        return 0, "", ""


# --- the hostile world: pods, agents and APIs that behave as the real ones do -------------


@dataclass(frozen=True)
class Timing:
    """Seconds on the fake clock, in the range a MicroK8s runner shows."""

    grace: float = 30.0  # a deleted pod stays Running, with a deletion timestamp
    gap: float = 5.0  # then there is no pod at all
    startup: float = 12.0  # the new pod's containers are not ready yet
    agent: float = 25.0  # the new agent reports after that (status stays the old `idle`)
    hook: float = 3.0  # between one hook line and the next
    api_down: float = 40.0  # after `microk8s start`: 503 / refused, juju cannot connect
    backoff: float = 60.0  # unit agents back off while the controller was down


def _api_unavailable(n: int) -> Exception:
    from kubernetes.client.exceptions import ApiException

    if n % 2:
        return ApiException(status=503, reason="Service Unavailable")
    return ConnectionRefusedError(111, "Connection refused")


def _juju_unreachable(args: tuple[str, ...]) -> Exception:
    from harness.live.juju_cli import JujuCLIError

    return JujuCLIError(
        args, 1, "", "ERROR cannot connect to API: dial tcp 10.152.183.10:17070: refused\n"
    )


class HostileWorld:
    """One model's pods, agents and debug-log on a fake clock, as hostile as the real ones.

    A deleted pod stays Running with a deletion timestamp for the grace period, then there
    is no pod, then a new one (new uid) whose containers become ready later; a template
    change rolls one ordinal at a time from the highest, each after the previous is Ready;
    a unit's status stays the old ``idle`` until its new agent reports, then ``executing``
    while its hooks run (one debug-log line each), then ``idle``; a node stop takes the
    Kubernetes API (503, refused) and the controller (``juju`` cannot connect) down until
    a while after the start, and the agents back off before they run anything.
    """

    def __init__(self, clock: FakeClock, units: int = 2, timing: Timing | None = None) -> None:
        self.clock = clock
        self.timing = timing or Timing()
        self.app = "probe"
        self.api_back_at = 0.0
        self.node_down = False
        self.revision = 1
        self.failures = 0
        self.counter = 0
        self.pods: dict[str, PodIdentity] = {}
        self.status: dict[str, UnitStatus] = {}
        self.log: list[str] = []
        self.lines_served: list[int] = []
        # The model's logging-config decides which hook lines exist: Juju's default keeps the
        # uniter's (INFO) and drops ops' (DEBUG); "<root>=WARNING;unit=DEBUG" the other way.
        self.uniter_lines = True
        self.ops_lines = False
        self.ops_log: list[str] = []  # the charms' juju-log lines (ops' event lines)
        self.rolling: list[str] = []
        for n in range(units):
            unit = f"{self.app}/{n}"
            self.pods[unit] = pod(unit, self._uid())
            self.status[unit] = status(unit, leader=n == 0)
        self.cluster = HostileCluster(self)
        self.juju = HostileJuju(self)
        self.node = HostileNode(self)

    def lab(self) -> Lab:
        return Lab(
            backend="live", juju=self.juju, cluster=self.cluster, node=self.node, clock=self.clock
        )

    def _uid(self) -> str:
        self.counter += 1
        return f"uid-{self.counter:04d}-0000"

    def api_up(self) -> bool:
        return not self.node_down and self.clock.elapsed >= self.api_back_at

    def unavailable(self) -> Exception | None:
        if self.api_up():
            return None
        self.failures += 1
        return _api_unavailable(self.failures)

    def line(self, unit: str, message: str, module: str = "juju.worker.uniter.operation") -> None:
        stamp = self.clock.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        tag = "unit-" + unit.replace("/", "-")
        self.log.append(f"{tag}: {stamp} INFO {module} {message}")

    def hooks_of(self, unit: str) -> list[str]:
        prefix = "unit-" + unit.replace("/", "-") + ":"
        return [
            line.split('ran "', 1)[1].split('"', 1)[0]
            for line in self.log
            if line.startswith(prefix) and 'ran "' in line
        ]

    # Agents.

    def run_agent(self, unit: str, hooks: Sequence[str], first: str, after: float) -> None:
        """In ``after`` s the unit's agent reports: ``first`` line, then each hook."""
        t = self.timing

        def report() -> None:
            self.status[unit] = replace(self.status[unit], agent="executing")
            if first == "reboot":
                self.line(
                    unit,
                    "reboot detected; triggering implicit start hook to notify charm",
                    "juju.worker.uniter",
                )
            elif first == "agent-start":
                self.line(unit, "running containerAgent [3.6.1 abc go1.23]", "juju.cmd")
            for i, hook in enumerate(hooks):
                self.clock.at(
                    self.clock.elapsed + t.hook * (i + 1), partial(self._ran, unit, hook)
                )
            self.clock.at(
                self.clock.elapsed + t.hook * (len(hooks) + 1), partial(self._idle, unit)
            )

        self.clock.at(self.clock.elapsed + after, report)

    def _ran(self, unit: str, hook: str) -> None:
        if self.ops_lines:  # ops logs it while the hook runs, before the uniter's line
            stamp = self.clock.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
            tag = "unit-" + unit.replace("/", "-")
            event = hook.replace("-", "_")
            self.ops_log.append(
                f"{tag}: {stamp} DEBUG unit.{unit}.juju-log Emitting Juju event {event}."
            )
        if self.uniter_lines:
            self.line(unit, f'ran "{hook}" hook (via hook dispatching script: dispatch)')

    def _idle(self, unit: str) -> None:
        if unit in self.status:
            self.status[unit] = replace(self.status[unit], agent="idle")

    # Pods.

    def replace_pod(
        self, unit: str, hooks: Sequence[str], then: Callable[[], None] | None = None
    ) -> None:
        """Terminating for the grace period, a gap with no pod, a new pod, ready later."""
        t, now = self.timing, self.clock.elapsed
        old = self.pods[unit]
        self.pods[unit] = replace(old, deletion_timestamp=self.clock.now().isoformat())
        self._ran(unit, "stop")

        def gone() -> None:
            self.pods.pop(unit, None)

        def new() -> None:
            fresh = pod(unit, self._uid(), ready=False)
            self.pods[unit] = replace(fresh, phase="Pending")

        def ready() -> None:
            current = self.pods.get(unit)
            if current is not None:
                self.pods[unit] = replace(
                    current,
                    phase="Running",
                    containers=tuple(replace(c, ready=True) for c in current.containers),
                )
            self.run_agent(unit, hooks, "agent-start", t.agent)
            if then is not None:
                then()

        self.clock.at(now + t.grace, gone)
        self.clock.at(now + t.grace + t.gap, new)
        self.clock.at(now + t.grace + t.gap + t.startup, ready)

    def roll(self, hooks: Sequence[str] = ("upgrade-charm", "config-changed", "start")) -> None:
        """A StatefulSet rolling update: highest ordinal first, each after the last is Ready."""
        order = sorted(self.pods, key=lambda u: -int(u.rpartition("/")[2]))
        self.rolling = list(order)

        def step(i: int) -> None:
            if i < len(order):
                self.replace_pod(order[i], hooks, then=partial(step, i + 1))

        step(0)

    def restart_containers(self, unit: str, names: Sequence[str], ready_at: float) -> None:
        current = self.pods[unit]
        self.pods[unit] = replace(
            current,
            containers=tuple(
                replace(c, ready=False, restart_count=c.restart_count + 1)
                if c.name in names
                else c
                for c in current.containers
            ),
        )

        def ready() -> None:
            now = self.pods[unit]
            self.pods[unit] = replace(
                now, containers=tuple(replace(c, ready=True) for c in now.containers)
            )

        self.clock.at(ready_at, ready)


class HostileCluster(FakeCluster):
    def __init__(self, world: HostileWorld) -> None:
        super().__init__()
        self.world = world

    async def pods(self, app: str) -> tuple[PodIdentity, ...]:
        self.looks += 1
        error = self.world.unavailable()
        if error is not None:
            raise error
        return tuple(
            sorted(
                (p for p in self.world.pods.values() if p.unit.startswith(f"{app}/")),
                key=lambda p: int(p.unit.rpartition("/")[2]),
            )
        )

    async def delete_pod(self, pod_name: str) -> None:
        self.deleted.append(pod_name)
        unit = next(u for u, p in self.world.pods.items() if p.name == pod_name)
        self.world.replace_pod(unit, ("upgrade-charm", "config-changed", "start"))

    async def patch_pod_template(self, app: str, annotations: Mapping[str, str]) -> None:
        self.patched.append((app, dict(annotations)))
        self.world.roll()

    async def kill_pid1(self, pod: str, container: str, signal: str = "TERM") -> None:
        self.killed.append((pod, container))
        unit = next(u for u, p in self.world.pods.items() if p.name == pod)
        t = self.world.timing
        self.world.restart_containers(unit, [container], self.world.clock.elapsed + t.startup)
        self.world.run_agent(unit, (f"{container}-pebble-ready",), "none", t.startup + t.agent)


class HostileJuju(FakeJuju):
    def __init__(self, world: HostileWorld) -> None:
        super().__init__()
        self.world = world

    def _check(self, *args: str) -> None:
        if not self.world.api_up():
            raise _juju_unreachable(args)

    async def statuses(self, apps: Sequence[str] = ()) -> tuple[UnitStatus, ...]:
        self._check("status")
        return tuple(
            s
            for u, s in sorted(self.world.status.items())
            if not apps or u.rpartition("/")[0] in apps
        )

    async def units(self, app: str) -> tuple[str, ...]:
        return tuple(s.unit for s in await self.statuses((app,)))

    async def debug_log(self) -> str:
        self._check("debug-log")
        return "\n".join(self.world.log)

    async def debug_log_recent(self, lines: int) -> str:
        self._check("debug-log")
        self.recent_asked.append(lines)
        served = self.world.log[-lines:]
        self.world.lines_served.append(len(served))
        return "\n".join(served)

    async def ops_log_recent(self, lines: int) -> str:
        self._check("debug-log")
        served = self.world.ops_log[-lines:]
        self.world.lines_served.append(len(served))
        return "\n".join(served)

    async def trust(self, app: str) -> None:
        await super().trust(app)
        world = self.world
        self.trusted_at = world.clock.elapsed
        # The trust reaches each unit as a config-changed hook, a while later.
        for unit in sorted(world.status):
            world.clock.at(world.clock.elapsed + 15, partial(world._ran, unit, "config-changed"))

    async def set_config(self, app: str, values: Mapping[str, str]) -> None:
        await super().set_config(app, values)
        self.configured_at = self.world.clock.elapsed
        if "pod-template-annotation" in values:
            self.world.roll()

    async def refresh(
        self,
        app: str,
        *,
        path: str | None = None,
        channel: str | None = None,
        resources: Mapping[str, str] | None = None,
    ) -> None:
        await super().refresh(app, path=path, channel=channel, resources=resources)
        # The new revision shows in `juju status` at once; the pods roll afterwards.
        self.world.revision += 1
        self.world.clock.at(self.world.clock.elapsed + 20, self.world.roll)

    async def versions(self) -> Versions:
        return Versions(charms=(CharmVersion("probe", "probe", None, self.world.revision),))

    async def scale(self, app: str, units: int) -> None:
        await super().scale(app, units)
        world, t = self.world, self.world.timing
        if units == 0:
            for unit in list(world.pods):
                world.pods[unit] = replace(
                    world.pods[unit], deletion_timestamp=world.clock.now().isoformat()
                )

            def gone() -> None:
                world.pods.clear()
                world.status.clear()

            world.clock.at(world.clock.elapsed + t.grace, gone)
            return

        def up() -> None:
            for n in range(units):
                unit = f"{app}/{n}"
                world.pods[unit] = pod(unit, world._uid())
                world.status[unit] = status(unit, agent="allocating", leader=n == 0)
                world.run_agent(unit, ("install", "start"), "agent-start", t.agent)

        world.clock.at(world.clock.elapsed + t.startup, up)


class HostileNode(FakeNode):
    def __init__(self, world: HostileWorld) -> None:
        super().__init__()
        self.world = world

    async def stop(self) -> None:
        await super().stop()
        self.world.node_down = True

    async def start(self) -> None:
        await super().start()
        world, t = self.world, self.world.timing
        world.node_down = False
        world.api_back_at = world.clock.elapsed + t.api_down
        for unit in list(world.pods):
            world.restart_containers(unit, ("charm", "workload"), world.api_back_at + t.startup)
            # statuses stay the old `idle` until the backed-off agent reports
            world.run_agent(unit, ("start",), "reboot", t.api_down + t.backoff)
