"""The ports a scenario drives. The live backend and the twin implement the same ones.

Everything is async because python-libjuju and pytest-operator are. Methods return the
frozen values of ``harness.common.observations``; raw JSON never crosses a port.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from harness.common.observations import Databag, FileState, PodIdentity, UnitStatus
from harness.common.rehearsal import Rehearsal
from harness.common.versions import Versions

Backend = Literal["live", "twin"]


@dataclass(frozen=True)
class AppSpec:
    """One application to deploy: a Charmhub name or a local ``.charm`` path."""

    app: str
    charm: str
    channel: str | None = None
    trust: bool = False
    units: int = 1
    config: Mapping[str, str] = field(default_factory=dict)
    resources: Mapping[str, str] = field(default_factory=dict)
    base: str | None = None  # e.g. "ubuntu@22.04"; series is derived for Juju 2.9
    revision: int | None = None  # a Charmhub revision (with a channel, as Juju requires)
    constraints: str | None = None  # e.g. "arch=amd64"
    storage: Mapping[str, str] = field(default_factory=dict)  # e.g. {"pgdata": "kubernetes,1,1G"}


@dataclass(frozen=True)
class ActionResult:
    """An action's outcome, the same for ``juju run`` (3.x) and ``run-action --wait`` (2.9)."""

    unit: str
    action: str
    status: str  # "completed" | "failed" | ...
    results: Mapping[str, str]
    return_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    message: str = ""


@dataclass(frozen=True)
class ExecResult:
    stdout: str
    stderr: str
    exit_code: int


class Clock(Protocol):
    """Wall time for evidence, monotonic time and sleeping for waits (fake in tests/twin)."""

    def now(self) -> datetime: ...

    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class JujuPort(Protocol):
    """One Juju model."""

    @property
    def model_name(self) -> str: ...

    async def deploy(self, spec: AppSpec) -> None: ...

    async def integrate(self, endpoint_a: str, endpoint_b: str) -> None: ...

    async def set_config(self, app: str, values: Mapping[str, str]) -> None: ...

    async def trust(self, app: str) -> None: ...

    async def refresh(
        self,
        app: str,
        *,
        path: str | None = None,
        channel: str | None = None,
        resources: Mapping[str, str] | None = None,
    ) -> None: ...

    async def scale(self, app: str, units: int) -> None: ...

    async def units(self, app: str) -> tuple[str, ...]: ...

    async def statuses(self, apps: Sequence[str] = ()) -> tuple[UnitStatus, ...]: ...

    async def run_action(
        self, unit: str, action: str, params: Mapping[str, object] | None = None
    ) -> ActionResult: ...

    async def unit_relations(self, unit: str) -> tuple[Databag, ...]:
        """Every databag the unit can see, as ``juju show-unit`` reports it."""
        ...

    async def debug_log(self) -> str:
        """The model's whole debug-log (``--replay``), hook lines kept."""
        ...

    async def debug_log_recent(self, lines: int) -> str:
        """The most recent ``lines`` lines of the hook-related debug-log, oldest first.

        Filtered where the log is kept (``juju debug-log --include-module``): uniter hook
        and reboot lines and the agent's start, so a look costs what it asks for.
        ``harness.observe.log_cursor`` builds "what is new since the last look" on it.
        """
        ...

    async def ops_log_recent(self, lines: int) -> str:
        """The most recent ``lines`` lines of the charms' own log (``unit.<app>/<n>.juju-log``)
        at DEBUG and up, oldest first: where ops logs ``Emitting Juju event <name>.``.

        ``""`` where the model does not keep those lines (its logging-config drops DEBUG
        for them) or the backend has none, so a caller never pays for a useless read.
        """
        ...

    async def versions(self) -> Versions: ...

    async def reconnect(self) -> None:
        """Wait for the controller API to answer again and reconnect (after a node restart)."""
        ...


class ClusterPort(Protocol):
    """The Kubernetes namespace that backs the model."""

    @property
    def namespace(self) -> str: ...

    async def pods(self, app: str) -> tuple[PodIdentity, ...]: ...

    async def delete_pod(self, pod: str) -> None: ...

    async def patch_pod_template(self, app: str, annotations: Mapping[str, str]) -> None:
        """Patch the application's StatefulSet pod template (rolls its pods)."""
        ...

    async def exec(self, pod: str, container: str, argv: Sequence[str]) -> ExecResult: ...

    async def list_files(
        self, pod: str, container: str, paths: Sequence[str]
    ) -> tuple[FileState, ...]:
        """Each path and everything below it: sha256, ``dir``, ``absent``, or ``unlisted``
        with the reason (a folder ``find`` could not list). Raises when nothing could be
        listed (no ``sh``, the container refused the exec)."""
        ...

    async def write_file(self, pod: str, container: str, path: str, content: str) -> None:
        """Create ``path`` (and its parents) with ``content``: the harness's own markers."""
        ...

    async def kill_pid1(self, pod: str, container: str, signal: str = "TERM") -> None:
        """Signal PID 1 of one container: ``TERM``, ``KILL`` or ``OOM`` (an OOM kill)."""
        ...

    async def server_version(self) -> str | None: ...


class NodePort(Protocol):
    """The single MicroK8s node: stopping it takes the controller down too."""

    async def stop(self) -> None: ...

    async def start(self) -> None: ...

    async def wait_ready(self, timeout: float) -> None: ...

    async def version(self) -> str | None: ...


@dataclass(frozen=True)
class Lab:
    """One Juju model and the cluster beneath it, on one backend."""

    backend: Backend
    juju: JujuPort
    cluster: ClusterPort
    node: NodePort
    clock: Clock
    # A live Lab run against a rehearsal world (``harness.common.rehearsal``): its evidence
    # says REHEARSAL. None for a real run and for the twin.
    rehearsal: Rehearsal | None = None

    @property
    def simulated(self) -> bool:
        return self.backend == "twin"
