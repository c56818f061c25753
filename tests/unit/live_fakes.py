"""In-memory ports and a fake clock for the live backend's tests (no cluster, no sleeps)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone

from harness.observations import ContainerStatus, Databag, FileState, PodIdentity, UnitStatus
from harness.ports import ActionResult, AppSpec, ExecResult, Lab
from harness.versions import CharmVersion, Versions

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

    async def kill_pid1(self, pod: str, container: str) -> None:
        self.killed.append((pod, container))
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
