#!/usr/bin/env python3
"""needs-deps: imports a package that only its own virtual environment has, as real charms
import psycopg2, kazoo or boto3, which repro's environment does not."""

from __future__ import annotations

import ops
import shapes_only_dependency


class NeedsDepsCharm(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.collect_unit_status, self._status)

    def _status(self, event: ops.CollectStatusEvent) -> None:
        event.add_status(ops.ActiveStatus(shapes_only_dependency.GREETING))


if __name__ == "__main__":  # pragma: nocover
    ops.main(NeedsDepsCharm)
