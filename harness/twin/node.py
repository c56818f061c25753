"""The simulated node and the pods on it: StatefulSet pods with uids, container runs with
restart counts, and each run's root filesystem laid down from its image.

What happens to pods physically is Kubernetes' behaviour and lives here; which hooks the
uniter runs in reaction is Juju's (``harness.twin.uniter``, from the catalogue).
"""

from __future__ import annotations

import hashlib
import itertools
import shutil
import uuid
from collections.abc import Iterable, Mapping
from datetime import timedelta
from pathlib import Path

from ops import testing

from harness.common.errors import EnvironmentUnavailable
from harness.twin import layers
from harness.twin.charm_dir import add_dispatch, unpack
from harness.twin.clock import TwinClock, iso
from harness.twin.image import image_for
from harness.twin.model import CHARM_CONTAINER, App, ContainerRun, Pod, Unit
from harness.twin.names import TWIN_IDS
from harness.twin.stamps import FileStamps


class Node:
    """One Kubernetes node: up or stopped, and the filesystem layers of its pods."""

    def __init__(self, workdir: Path, clock: TwinClock) -> None:
        self.workdir = workdir
        self.clock = clock
        # Images were unpacked on the node before any container started.
        self.stamps = FileStamps(clock.peek() - timedelta(hours=1))
        self.up = True
        self._pods = itertools.count()
        self._agent_restarted: set[str] = set()

    def require_up(self) -> None:
        if not self.up:
            raise EnvironmentUnavailable(
                "the simulated node is stopped: the controller and the cluster API are down",
                "start it with lab.node.start()",
            )

    # Pods and layers -----------------------------------------------------------------------

    def new_pod(self, app: App, ordinal: int, storage_index: Mapping[str, int]) -> Pod:
        serial = next(self._pods)
        name = f"{app.name}-{ordinal}"
        uid = str(uuid.uuid5(TWIN_IDS, f"pod/{name}/{serial}"))
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
        mounted: list[str] = []
        if container == CHARM_CONTAINER:
            # The charm-data EmptyDir is mounted at /var/lib/juju in the charm container.
            layers.link(root, "/var/lib/juju", pod.charm_data)
            mounted.append("/var/lib/juju")
        else:
            for storage, location in app.charm.storage_mounts(container):
                if storage in storage_index:
                    volume = testing.Storage(storage, index=storage_index[storage])
                    layers.link(root, location, volume.get_filesystem(app.ctx))
                    mounted.append(location)
        layers.mount_table(root, mounted)
        self.stamps.image(
            root, app.name, container, (*image.directories, *image.files, layers.MOUNTS_FILE)
        )
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

    def charm_dir(self, unit: Unit, source: Path | None = None) -> Path:
        """Where Juju unpacks the charm: /var/lib/juju/agents/unit-<app>-<n>/charm.

        On the pod's charm-data volume: a new pod's is unpacked again from ``source`` (the
        charm's folder), without what the charm wrote there before (``charm_dir.py``).
        """
        path = unit.pod.charm_data / "agents" / unit.tag / "charm"
        if not path.is_dir():
            path.mkdir(parents=True)
            if source is not None:
                unpack(source, path)
            add_dispatch(path)
        return path

    def replace_pod(self, app: App, unit: Unit) -> None:
        """The pod is deleted and the StatefulSet creates a new one with the same ordinal."""
        old = unit.pod
        unit.pod = self.new_pod(app, old.ordinal, unit.storage_index)
        shutil.rmtree(old.directory, ignore_errors=True)
        self._agent_restarted.add(unit.name)

    def restart_container(self, app: App, unit: Unit, container: str, reason: str) -> None:
        """PID 1 of one container exits: same pod, restart count +1, a fresh root fs."""
        pod = unit.pod
        old = pod.containers[container]
        termination = f"{reason} at {iso(self.clock.now())}"
        pod.containers[container] = self._container_run(
            app, pod, container, old.restart_count + 1, unit.storage_index, termination
        )
        shutil.rmtree(old.root, ignore_errors=True)
        if container == CHARM_CONTAINER:
            self._agent_restarted.add(unit.name)

    def remove_pod(self, unit: Unit) -> None:
        """The unit's pod is gone for good (scale down), with its layers."""
        shutil.rmtree(unit.pod.directory, ignore_errors=True)

    def agent_restarted(self, unit: Unit) -> bool:
        """Whether the unit's agent restarted (new pod, charm container) since the last
        time this was asked: its next ``start`` follows a "reboot detected"."""
        if unit.name not in self._agent_restarted:
            return False
        self._agent_restarted.discard(unit.name)
        return True

    # The node going down and up --------------------------------------------------------

    def stop(self, units: Iterable[Unit]) -> None:
        """Down: every container stops being ready; the pods' phase is unknown."""
        self.up = False
        for unit in units:
            for run in unit.pod.containers.values():
                run.ready = False
            unit.pod.phase = "Unknown"

    def start(self, units: Iterable[Unit]) -> None:
        """Up again: the same pods run, every container ready."""
        self.up = True
        for unit in units:
            for run in unit.pod.containers.values():
                run.ready = True
            unit.pod.phase = "Running"
