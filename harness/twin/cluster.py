"""TwinCluster and TwinNode: the ClusterPort and NodePort of the twin.

Each call is a physical event in the simulated cluster; the twin's uniter reacts to it
with the hooks the catalogue gives for the matching disruption:

- ``delete_pod``          -> ``pod-delete``
- ``patch_pod_template``  -> ``pod-spec-change`` (``charm-pod-spec-change`` when the
  probe charm patched its own StatefulSet from a hook)
- ``kill_pid1``           -> ``container-restart`` (variant ``charm`` for the charm container)
- ``TwinNode.stop/start`` -> ``node-restart``
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from harness.catalogue import CHARM_CONTAINER, load
from harness.common.errors import HarnessError, WaitTimeout
from harness.common.observations import ContainerStatus, FileState, PodIdentity
from harness.lab.ports import ExecResult
from harness.twin import layers
from harness.twin.layer_paths import in_layer
from harness.twin.names import NAMESPACE, NODE_NAME
from harness.twin.world import Twin


class TwinCluster:
    """The ClusterPort over a ``Twin``: namespace ``twin-simulated``."""

    def __init__(self, twin: Twin) -> None:
        self._twin = twin
        self._gone: set[str] = set()  # deleted, not yet re-created by the StatefulSet

    @property
    def namespace(self) -> str:
        return NAMESPACE

    async def pods(self, app: str) -> tuple[PodIdentity, ...]:
        twin = self._twin
        twin.node.require_up()
        found: list[PodIdentity] = []
        for unit in sorted(twin.records.app(app).units, key=lambda u: u.pod.ordinal):
            pod = unit.pod
            if pod.name in self._gone:
                continue
            found.append(
                PodIdentity(
                    unit=unit.name,
                    name=pod.name,
                    uid=pod.uid,
                    phase=pod.phase,
                    node=NODE_NAME,
                    start_time=pod.started_at,
                    containers=tuple(
                        ContainerStatus(
                            name=run.name,
                            restart_count=run.restart_count,
                            ready=run.ready,
                            container_id=run.container_id,
                            started_at=run.started_at,
                            last_termination=run.last_termination,
                        )
                        for run in pod.containers.values()
                    ),
                )
            )
        return tuple(found)

    async def delete_pod(self, pod: str) -> None:
        self._twin.node.require_up()
        # Gone from the API at once; the StatefulSet re-creates it after other deletions
        # issued at the same moment: deleting every pod together leaves none for a while.
        self._gone.add(pod)
        try:
            await asyncio.sleep(0)
        finally:
            self._gone.discard(pod)
        self._twin.delete_pod(pod)

    async def patch_pod_template(self, app: str, annotations: Mapping[str, str]) -> None:
        self._twin.node.require_up()
        self._twin.patch_template(app, annotations, "pod-spec-change")

    async def exec(self, pod: str, container: str, argv: Sequence[str]) -> ExecResult:
        raise HarnessError(
            f"the twin cannot exec {' '.join(argv)!r} in {pod}/{container}: it runs no "
            "processes (simulated)",
            "use list_files or kill_pid1, which the twin implements",
        )

    async def list_files(
        self, pod: str, container: str, paths: Sequence[str]
    ) -> tuple[FileState, ...]:
        twin = self._twin
        twin.node.require_up()
        unit = twin.records.unit_of_pod(pod)
        run = unit.pod.containers.get(container)
        if run is None:
            known = ", ".join(unit.pod.containers)
            raise HarnessError(f"pod {pod} has no container {container!r}", f"use one of: {known}")
        return layers.file_states(
            unit.name, container, run.root, paths, twin.node.stamps, twin.clock.now()
        )

    async def write_file(self, pod: str, container: str, path: str, content: str) -> None:
        """Write into the container's current filesystem (its root layer or a volume)."""
        twin = self._twin
        twin.node.require_up()
        unit = twin.records.unit_of_pod(pod)
        run = unit.pod.containers.get(container)
        if run is None or not path.startswith("/"):
            known = ", ".join(unit.pod.containers)
            raise HarnessError(
                f"cannot write {path!r} in {pod}/{container}",
                f"give an absolute path and one of the containers: {known}",
            )
        target = in_layer(run.root, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        twin.node.notice_writes(unit)

    async def kill_pid1(self, pod: str, container: str, signal: str = "TERM") -> None:
        self._twin.node.require_up()
        # The catalogue's branch for this container and signal (charm, charm-kill, main).
        kind = CHARM_CONTAINER if container == CHARM_CONTAINER else "workload"
        variant = load().variant_for("container-restart", container=kind, signal=signal)
        self._twin.kill_pid1(pod, container, variant)

    async def server_version(self) -> str | None:
        return "simulated"


class TwinNode:
    """The NodePort: stopping the node stops every pod's containers and the controller."""

    def __init__(self, twin: Twin) -> None:
        self._twin = twin

    async def stop(self) -> None:
        self._twin.node_stop()

    async def start(self) -> None:
        self._twin.node_start()

    async def wait_ready(self, timeout: float) -> None:
        """Ready at once after start; a stopped node never becomes ready by waiting."""
        if not self._twin.node.up:
            # No time passes in the twin: a stopped node is a timeout at once.
            raise WaitTimeout(
                "the simulated node to be ready", timeout, "node stopped", simulated=True
            )

    async def version(self) -> str | None:
        return "simulated"
