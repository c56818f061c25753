"""Incarnation markers (created when absent) and the workload marker (never recreated).

- root incarnation: in the charm container's root filesystem, lost on any restart of
  that container (and with the pod);
- charm-dir incarnation: in the charm directory on the charm-data EmptyDir, lost only
  with the pod;
- workload marker: written by the write-marker action into the workload container;
  the probe only checks it, so its loss stays visible.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import durable
import ops
from paths import CHARM_DIR_INCARNATION, WORKLOAD_MARKER, root_incarnation_path

MarkerState = Literal["present", "absent", "unreachable"]


@dataclass(frozen=True)
class Incarnation:
    id: str
    new: bool  # created by this event: the previous one (if any) was lost


def ensure(path: Path) -> Incarnation:
    """Return the marker's id, creating it (durably) with a fresh id when absent or empty."""
    try:
        existing = path.read_text().strip()
    except OSError:
        existing = ""
    if existing:
        return Incarnation(existing, new=False)
    fresh = uuid.uuid4().hex
    durable.replace_bytes(path, (fresh + "\n").encode())
    return Incarnation(fresh, new=True)


def root_incarnation() -> Incarnation:
    return ensure(root_incarnation_path())


def charm_dir_incarnation(charm_dir: Path) -> Incarnation:
    return ensure(charm_dir / CHARM_DIR_INCARNATION)


def workload_marker(container: ops.Container) -> MarkerState:
    """Whether the workload marker is there; "unreachable" when Pebble cannot answer."""
    try:
        if not container.can_connect():
            return "unreachable"
        return "present" if container.exists(WORKLOAD_MARKER) else "absent"
    except (ops.pebble.Error, OSError):
        return "unreachable"
