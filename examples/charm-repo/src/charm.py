#!/usr/bin/env python3
"""demo-config: writes its workload's config whenever the container is (again) ready."""

from __future__ import annotations

import ops

CONFIG = "/etc/demo/demo.conf"


class DemoConfigCharm(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.app_pebble_ready, self._write)
        framework.observe(self.on.config_changed, self._write)
        framework.observe(self.on.info_relation_joined, self._publish)
        framework.observe(self.on.collect_unit_status, self._status)

    def _write(self, event: ops.EventBase) -> None:
        container = self.unit.get_container("app")
        if not container.can_connect():
            return
        # Written on every pebble-ready: a new pod or a restarted container starts from its
        # image, so a file written only at install time would be gone (Juju bug 2021891).
        container.push(CONFIG, f"greeting={self.config['greeting']}\n", make_dirs=True)

    def _publish(self, event: ops.RelationJoinedEvent) -> None:
        if self.unit.is_leader():
            event.relation.data[self.app]["greeting"] = str(self.config["greeting"])

    def _status(self, event: ops.CollectStatusEvent) -> None:
        event.add_status(ops.ActiveStatus())


if __name__ == "__main__":  # pragma: nocover
    ops.main(DemoConfigCharm)
