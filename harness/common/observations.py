"""What the harness observes, as frozen values shared by both backends.

Parsers at the edge (``harness/live``) and the twin produce these; observers, the verdict
and the evidence consume them and never see raw JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

ABSENT = "absent"
DIRECTORY = "dir"
# The observer could not list the path (no `find`, no `sh`, a container that never
# answered): whether it exists is unknown, and FileState.reason says why.
UNLISTED = "unlisted"

Outcome = Literal["ok", "failed", "terminated", "skipped", "not-run"]
HookSource = Literal["debug-log", "journal", "twin", "ops-log"]
DatabagSource = Literal["show-unit", "probe"]


@dataclass(frozen=True)
class ContainerStatus:
    """One container of a pod, as Kubernetes reports it."""

    name: str
    restart_count: int
    ready: bool
    container_id: str | None = None
    started_at: str | None = None
    last_termination: str | None = None  # e.g. "Error (exit 137) at 2026-..."


@dataclass(frozen=True)
class PodIdentity:
    """A unit's pod: a new uid means a new pod, a higher restart count the same pod."""

    unit: str  # "probe/0"
    name: str  # "probe-0"
    uid: str
    phase: str
    node: str | None = None
    start_time: str | None = None
    containers: tuple[ContainerStatus, ...] = ()
    # Set once the pod is being deleted; it may stay Running (and even Ready) for the whole
    # grace period, but it is on its way out and never counts as the unit's pod.
    deletion_timestamp: str | None = None

    def container(self, name: str) -> ContainerStatus | None:
        return next((c for c in self.containers if c.name == name), None)


@dataclass(frozen=True)
class FileState:
    """One path in one container of one unit: ``sha256:<hex>``, ``dir``, ``absent`` or
    ``unlisted`` (``reason`` then says why it could not be listed).

    The metadata (None where the observer could not read it) tells a file that survived
    from one written again: ``size`` in bytes; ``mtime``, ``ctime`` and ``birth`` as epoch
    seconds of the container's own clock (the node's kernel stamps them); ``inode``; and
    ``clock``, what that clock read when the path was listed, so times are only ever
    compared with readings of the same clock (``harness.verdict.file_survival``).
    """

    unit: str
    container: str
    path: str
    digest: str
    size: int | None = None
    mtime: float | None = None
    ctime: float | None = None
    inode: int | None = None
    birth: float | None = None
    clock: float | None = None
    reason: str | None = None

    @property
    def exists(self) -> bool:
        return self.digest != ABSENT


@dataclass(frozen=True)
class Databag:
    """One relation databag as one unit (``seen_by``) sees it, from one source."""

    relation_id: int
    endpoint: str  # endpoint of the unit that sees it
    remote_endpoint: str | None
    owner: str  # "mysql-router-k8s" (app databag) or "mysql-router-k8s/0" (unit databag)
    scope: Literal["app", "unit"]
    seen_by: str
    source: DatabagSource
    data: Mapping[str, str] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str, str]:
        """Stable identity across snapshots (relation ids survive pod churn)."""
        return (f"{self.endpoint}:{self.relation_id}", self.owner, self.seen_by, self.source)


@dataclass(frozen=True)
class UnitStatus:
    """A unit's statuses and leadership from ``juju status``."""

    unit: str
    workload: str
    workload_message: str
    agent: str
    leader: bool


@dataclass(frozen=True)
class JournalEntry:
    """One line of the probe charm's journal (see charms/probe/README.md for the format)."""

    seq: int
    time: str
    event: str  # the hook name, e.g. "upgrade-charm", "workload-pebble-ready"
    unit: str
    juju_version: str | None
    dispatch_path: str | None
    pod: str | None
    root_incarnation: str
    root_incarnation_new: bool
    charm_dir_incarnation: str
    charm_dir_incarnation_new: bool
    workload_marker: str  # "present" | "absent" | "unreachable"
    leader: bool
    databags: Mapping[str, str]  # "<endpoint>:<id>/<owner>" -> sha256 of its sorted JSON
    local_state_survived: bool
    controller_state_survived: bool
    buffered: bool = False  # logged before the storage was attached, flushed later

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> JournalEntry:
        stored = raw.get("stored_state") or {}
        return cls(
            seq=int(raw["seq"]),
            time=str(raw["time"]),
            event=str(raw["event"]),
            unit=str(raw["unit"]),
            juju_version=raw.get("juju_version"),
            dispatch_path=raw.get("dispatch_path"),
            pod=raw.get("pod"),
            root_incarnation=str(raw["root_incarnation"]),
            root_incarnation_new=bool(raw["root_incarnation_new"]),
            charm_dir_incarnation=str(raw["charm_dir_incarnation"]),
            charm_dir_incarnation_new=bool(raw["charm_dir_incarnation_new"]),
            workload_marker=str(raw["workload_marker"]),
            leader=bool(raw["leader"]),
            databags={str(k): str(v) for k, v in (raw.get("databags") or {}).items()},
            local_state_survived=bool(stored.get("local", False)),
            controller_state_survived=bool(stored.get("controller", False)),
            buffered=bool(raw.get("buffered", False)),
        )


@dataclass(frozen=True)
class HookRecord:
    """One thing a unit's agent did, from the debug-log, the probe journal or the twin.

    ``kind`` is ``hook`` for a hook run and ``reboot`` for a reboot-detected line; other
    kinds (``agent-start``) are allowed. ``hook`` and ``outcome`` are set for kind ``hook``.
    """

    unit: str  # "app/N"
    time: str  # as the source wrote it
    kind: str
    source: HookSource
    hook: str | None = None
    outcome: Outcome | None = None
    detail: str = ""


@dataclass(frozen=True)
class Step:
    """A timed step of a disruption or a wait, for the evidence and the timeline."""

    name: str
    start: str  # ISO 8601 UTC
    end: str
    detail: str = ""


@dataclass(frozen=True)
class Snapshot:
    """Everything observed at one moment, as values."""

    taken_at: str
    pods: tuple[PodIdentity, ...] = ()
    files: tuple[FileState, ...] = ()
    relations: tuple[Databag, ...] = ()
    statuses: tuple[UnitStatus, ...] = ()
    journal: tuple[JournalEntry, ...] = ()  # the latest entry of each probe unit

    def pod(self, unit: str) -> PodIdentity | None:
        return next((p for p in self.pods if p.unit == unit), None)

    def unlisted(self, unit: str, container: str, path: str) -> str | None:
        """Why ``path`` (or a watched folder holding it) could not be listed, if it was not."""
        for state in self.files:
            if state.digest != UNLISTED or (state.unit, state.container) != (unit, container):
                continue
            if path == state.path or path.startswith(state.path.rstrip("/") + "/"):
                return state.reason or "no reason given"
        return None
