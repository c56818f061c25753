"""A charm that marks every layer the catalogue makes a claim about, and reads them back.

One workload container ``app`` (a storage volume ``data`` mounted at ``/data``), a peer
relation and a ``db`` relation (interface ``mysql_client``). The action ``mark`` writes a
marker into local StoredState (the charm directory), the unit's databags and (leader) the
application's; ``read`` returns the StoredState marker. Files are marked by the test. It
writes nothing in any hook, so whatever survives was kept by the twin, not rewritten.
"""

from __future__ import annotations

from typing import Any

import ops

META: dict[str, Any] = {
    "name": "marker",
    "containers": {"app": {"mounts": [{"storage": "data", "location": "/data"}]}},
    "storage": {"data": {"type": "filesystem"}},
    "peers": {"peers": {"interface": "marker-peers"}},
    "requires": {"db": {"interface": "mysql_client"}},
    "actions": {"mark": {}, "read": {}},
}


class MarkerCharm(ops.CharmBase):
    _stored = ops.StoredState()

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        self._stored.set_default(marker="")
        framework.observe(self.on.mark_action, self._mark)
        framework.observe(self.on.read_action, self._read)

    def _mark(self, event: ops.ActionEvent) -> None:
        self._stored.marker = "kept"
        for relation in (*self.model.relations["db"], *self.model.relations["peers"]):
            relation.data[self.unit]["marker"] = "kept"
            if self.unit.is_leader():
                relation.data[self.app]["marker"] = "kept"

    def _read(self, event: ops.ActionEvent) -> None:
        event.set_results({"stored": self._stored.marker or "lost"})
