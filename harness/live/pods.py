"""A unit's pod, from the ``kubernetes`` client's ``V1Pod``, as a PodIdentity.

Only regular containers count (Juju's ``charm`` container among them); init containers
(``charm-init``, podspec ``juju-init``) run once per pod and say nothing a new uid does not.
Times are ISO 8601 as the client parsed them (UTC from the API server).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from harness.common.errors import HarnessError
from harness.common.observations import ContainerStatus, PodIdentity

if TYPE_CHECKING:
    from kubernetes.client import V1Pod


def unit_for_pod(pod_name: str, app: str) -> str:
    """``probe-0`` of application ``probe`` -> ``probe/0`` (StatefulSet ordinal = unit number)."""
    if pod_name.startswith(f"{app}-"):
        ordinal = pod_name[len(app) + 1 :]
        if ordinal.isdigit():
            return f"{app}/{int(ordinal)}"
    raise HarnessError(
        f"pod {pod_name!r} is not a unit pod of application {app!r}",
        f"unit pods are named {app}-<n>; podspec operator pods ({app}-operator-0) hold no unit",
    )


def pod_identity(pod: V1Pod, unit: str) -> PodIdentity:
    """The identity of ``pod`` (a ``kubernetes.client.V1Pod``) as unit ``unit``."""
    metadata = pod.metadata
    if metadata is None or not metadata.name or not metadata.uid:
        raise HarnessError(
            f"the pod given for {unit} has no metadata.name or metadata.uid",
            "pass a V1Pod read from the API server (read_namespaced_pod / list_namespaced_pod)",
        )
    status = pod.status
    spec = pod.spec
    statuses = (status.container_statuses if status is not None else None) or []
    return PodIdentity(
        unit=unit,
        name=metadata.name,
        uid=metadata.uid,
        phase=(status.phase if status is not None else None) or "Unknown",
        node=spec.node_name if spec is not None else None,
        start_time=_iso(status.start_time) if status is not None else None,
        containers=tuple(
            sorted((_container(c) for c in statuses), key=lambda container: container.name)
        ),
        deletion_timestamp=_iso(metadata.deletion_timestamp),
    )


def _container(status: Any) -> ContainerStatus:
    state = status.state
    running = state.running if state is not None else None
    return ContainerStatus(
        name=status.name,
        restart_count=int(status.restart_count or 0),
        ready=bool(status.ready),
        container_id=status.container_id or None,
        started_at=_iso(running.started_at) if running is not None else None,
        last_termination=_termination(status.last_state),
    )


def _termination(last_state: Any) -> str | None:
    """``Error (exit 137) at 2026-...`` for the container's previous run, if it had one."""
    terminated = last_state.terminated if last_state is not None else None
    if terminated is None:
        return None
    reason = terminated.reason or "Terminated"
    text = f"{reason} (exit {terminated.exit_code})"
    finished = _iso(terminated.finished_at)
    return f"{text} at {finished}" if finished else text


def _iso(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)
