"""The twin's world: pods, units, applications and relations, as mutable records.

These are the simulation's internal state (what Kubernetes and the Juju controller hold);
everything that leaves the twin through a port is converted to the frozen values of
``harness.common.observations`` first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import ops
from ops import testing

from harness.twin.charms import CharmSource

Role = Literal["provides", "requires", "peers"]
CHARM_CONTAINER = "charm"  # Juju's own container in every sidecar pod


@dataclass
class ContainerRun:
    """One container of a pod since its last (re)start: a fresh root filesystem each time."""

    name: str
    root: Path
    restart_count: int
    started_at: str
    container_id: str
    ready: bool = True
    last_termination: str | None = None
    # Pebble's plan lives in memory in the container: lost on restart, like the root fs.
    layers: dict[str, ops.pebble.Layer] = field(default_factory=dict)
    service_statuses: dict[str, ops.pebble.ServiceStatus] = field(default_factory=dict)


@dataclass
class Pod:
    """A StatefulSet pod; a new uid means a new pod (and a new charm-data EmptyDir)."""

    name: str
    uid: str
    ordinal: int
    directory: Path
    charm_data: Path  # the charm-data EmptyDir
    started_at: str
    containers: dict[str, ContainerRun]
    template: dict[str, str]  # the pod-template annotations it was created from
    phase: str = "Running"
    # Agent state in the charm directory (ops' unit-state database): lost with the pod.
    stored_states: frozenset[testing.StoredState] = frozenset()
    deferred: tuple[testing.DeferredEvent, ...] = ()


@dataclass
class Unit:
    app: str
    number: int
    pod: Pod
    storage_index: dict[str, int]
    storage_attached: bool = False
    status: Any = field(default_factory=testing.UnknownStatus)  # an ops.testing status
    agent: str = "idle"
    workload_version: str = ""
    opened_ports: frozenset[Any] = frozenset()
    # The hook the charm failed and Juju's retries did not get through: the unit is in
    # error and Juju runs no later hook as if it had succeeded (``harness.twin.retry``).
    failed: Any = None  # harness.twin.uniter.HookFailure
    # The status the charm had set when a hook failed: Juju shows it again once a retry
    # of that hook succeeds (the error status is the agent's, not the charm's).
    status_before_error: Any = None

    @property
    def name(self) -> str:
        return f"{self.app}/{self.number}"

    @property
    def tag(self) -> str:
        """As in debug-log lines: ``unit-<app>-<n>``."""
        return f"unit-{self.app}-{self.number}"


@dataclass
class App:
    name: str
    charm: CharmSource
    ctx: testing.Context[Any]
    charm_ref: str  # what deploy was given (Charmhub name or path)
    channel: str | None
    config: dict[str, str | int | float | bool]
    trusted: bool
    units: list[Unit] = field(default_factory=list)
    leader: int | None = None  # unit number
    next_unit: int = 0
    revision: int = 1
    template: dict[str, str] = field(default_factory=dict)
    resources: dict[str, str] = field(default_factory=dict)
    status: Any = field(default_factory=testing.UnknownStatus)
    secrets: frozenset[testing.Secret] = frozenset()
    address: str = ""

    def unit(self, number: int) -> Unit | None:
        return next((u for u in self.units if u.number == number), None)


@dataclass(frozen=True)
class RelationEnd:
    app: str
    endpoint: str
    interface: str
    role: Role


@dataclass
class TwinRelation:
    """One relation and its databags, held by the controller: pod churn never touches it."""

    id: int
    a: RelationEnd
    b: RelationEnd
    app_data: dict[str, dict[str, str]] = field(default_factory=dict)  # by app
    unit_data: dict[str, dict[str, str]] = field(default_factory=dict)  # by unit name

    @property
    def peer(self) -> bool:
        return self.a.role == "peers"

    def end(self, app: str) -> RelationEnd:
        return self.a if self.a.app == app else self.b

    def other(self, app: str) -> RelationEnd:
        return self.b if self.a.app == app else self.a

    def involves(self, app: str) -> bool:
        return app in (self.a.app, self.b.app)
