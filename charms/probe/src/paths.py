"""Every path and name the probe uses, in one place.

Keep WORKLOAD_MARKER and ROOT_INCARNATION in step with harness/scenario/stack.py
(PROBE_WORKLOAD_MARKER, PROBE_ROOT_INCARNATION): the harness watches the same files.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

# Charm metadata names.
WORKLOAD_CONTAINER = "workload"
JOURNAL_STORAGE = "journal"
PEER_ENDPOINT = "probe-peers"
DATABASE_ENDPOINT = "database"

# On the journal storage volume.
JOURNAL_FILE = "journal.jsonl"
# Highest seq ever handed out before a clear-journal, so cursors stay valid after a clear.
JOURNAL_FLOOR_FILE = "journal.floor"

# In the charm directory (charm-data EmptyDir on Kubernetes: survives a container restart,
# not a new pod).
BUFFER_FILE = ".probe-journal-buffer.jsonl"
CHARM_DIR_INCARNATION = ".probe-charm-dir-incarnation"

# In the charm container's root filesystem: lost on any restart of the charm container.
ROOT_INCARNATION = "/tmp/probe/root-incarnation"
# Lets the in-process twin give each simulated unit its own root filesystem.
ROOTFS_ENV = "PROBE_ROOTFS"

# In the workload container, through Pebble; never recreated automatically.
WORKLOAD_MARKER = "/probe/workload-marker"

# Controller-backed token, kept in this unit's databag of the peer relation.
PEER_TOKEN_KEY = "probe-token"

# The pod template annotation the charm patches onto its own StatefulSet.
TEMPLATE_ANNOTATION = "probe.juju.is/template-token"


def rootfs() -> Path:
    """The charm container's root filesystem: "/" unless PROBE_ROOTFS says otherwise."""
    return Path(os.environ.get(ROOTFS_ENV) or "/")


def in_rootfs(container_path: str) -> Path:
    """Map an absolute path in the charm container to where it lives on this machine."""
    relative = PurePosixPath(container_path).relative_to("/")
    return rootfs() / relative


def root_incarnation_path() -> Path:
    return in_rootfs(ROOT_INCARNATION)
