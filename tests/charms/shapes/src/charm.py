#!/usr/bin/env python3
"""shapes: what real charms do that the twin must run as Juju runs it (see README.md)."""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from pathlib import Path

import database
import ops

WRITTEN = "written-by-charm"


def valid_model_uuid(text: str) -> bool:
    """cos-lib's ``JujuTopology.is_valid_uuid``: a canonical version-4 uuid only."""
    try:
        return str(uuid.UUID(text, version=4)) == text
    except (ValueError, TypeError):
        return False


class ShapesCharm(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        if not valid_model_uuid(self.model.uuid):
            raise ValueError(f"invalid model uuid {self.model.uuid!r} (cosl: InvalidUUIDError)")
        # Relative to the working directory, in __init__, as pgbouncer-k8s reads its
        # src/dependency.json: Juju runs every hook in the charm directory.
        self.settings = json.loads(Path("src/settings.json").read_text())
        for event in (
            self.on.install,
            self.on.config_changed,
            self.on.start,
            self.on.upgrade_charm,
            self.on.stop,
            self.on.app_pebble_ready,
            self.on.db_relation_changed,
            self.on.api_relation_joined,
        ):
            framework.observe(event, self._on_event)
        framework.observe(self.on.install, self._on_install)
        framework.observe(self.on.start, self._on_start)
        framework.observe(self.on.upgrade_charm, self._on_upgrade)
        framework.observe(self.on.app_pebble_ready, self._on_pebble_ready)
        framework.observe(self.on.collect_unit_status, self._status)

    def _on_event(self, event: ops.EventBase) -> None:
        raising = str(self.config.get("raise-in") or "")
        if raising and raising == os.environ.get("JUJU_HOOK_NAME"):
            raise RuntimeError(f"raise-in={raising}: a charm bug, on purpose")

    def _on_start(self, event: ops.StartEvent) -> None:
        if self.config.get("read-namespace"):  # as the COS libraries do, in every hook
            Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace").read_text()

    def _on_install(self, event: ops.InstallEvent) -> None:
        (self.charm_dir / WRITTEN).write_text("install\n")
        # A file resource nobody uploaded: Juju's resource-get fails, ops says ModelError.
        with contextlib.suppress(ops.ModelError):
            self.model.resources.fetch("extra-config")

    def _on_upgrade(self, event: ops.UpgradeCharmEvent) -> None:
        # A new pod unpacks the charm again: its files are there, what it wrote is not.
        if (self.charm_dir / WRITTEN).exists():
            raise RuntimeError(f"{WRITTEN} survived into a new pod's charm directory")
        if not (self.charm_dir / "templates" / "app.conf").is_file():
            raise RuntimeError("the charm directory lost the charm's own files")
        # As charm libraries do (rolling-ops writes its lock state): a key added to its own
        # peer databag in the disruption's hooks. Juju lost nothing.
        peers = self.model.get_relation("shapes-peers")
        if peers is not None:
            peers.data[self.unit]["upgraded"] = "yes"

    def _on_pebble_ready(self, event: ops.PebbleReadyEvent) -> None:
        template = (self.charm_dir / "templates" / "app.conf").read_text()
        db = database.host(self.model.get_relation("db"))
        content = template.format(listen=self.settings["listen"], db=db)
        event.workload.push(self.settings["config_path"], content, make_dirs=True)
        # As wordpress-k8s checks its uploads storage before anything else: the kernel's
        # mount table in the workload container, not a file of the image.
        if self.config.get("check-mounts"):
            mounts = event.workload.pull("/proc/mounts").read().splitlines()
            if not any(line.split()[1] == "/srv/data" for line in mounts):
                raise RuntimeError(f"/srv/data not in /proc/mounts: {mounts}")
        if self.config.get("workload-version-from-exec"):
            version, _ = event.workload.exec(["shapes-app", "--version"]).wait_output()
            self.unit.set_workload_version(version.strip())

    def _status(self, event: ops.CollectStatusEvent) -> None:
        event.add_status(ops.ActiveStatus())


if __name__ == "__main__":  # pragma: nocover
    ops.main(ShapesCharm)
