"""Simulated stand-ins for mysql-k8s and mysql-router-k8s, which the twin cannot run.

They are small ops charms that speak the ``mysql_client`` protocol the way the real ones
do with requirers that ask for plain databag fields (``database`` in, ``username``,
``password``, ``endpoints`` out), and every status message they set says they are
simulated stand-ins. They are not models of the real charms' internals.

The router stand-in reproduces the behaviour reported in Juju bug 2021891: it writes
``/etc/mysqlrouter/mysqlrouter.conf`` into its ``mysql-router`` container once, when it
bootstraps (on ``backend-database-relation-changed``, when the database first hands it
credentials), and nothing in install, upgrade-charm, config-changed, start or
pebble-ready writes it again. After any disruption that gives the container a fresh root
filesystem (pod delete, node restart, container restart) the file stays gone, as the
reporter saw.
"""

from __future__ import annotations

import hashlib
from typing import Any

import ops

from harness.twin.charms import CharmSource

SIMULATED = "SIMULATED stand-in"
ROUTER_CONFIG = "/etc/mysqlrouter/mysqlrouter.conf"

MYSQL_META: dict[str, Any] = {
    "name": "mysql-k8s",
    "summary": f"{SIMULATED} for mysql-k8s",
    "containers": {"mysql": {"resource": "mysql-image"}},
    "resources": {"mysql-image": {"type": "oci-image"}},
    "peers": {"database-peers": {"interface": "mysql_peers"}},
    "provides": {"database": {"interface": "mysql_client"}},
}

ROUTER_META: dict[str, Any] = {
    "name": "mysql-router-k8s",
    "summary": f"{SIMULATED} for mysql-router-k8s",
    "containers": {"mysql-router": {"resource": "mysql-router-image"}},
    "resources": {"mysql-router-image": {"type": "oci-image"}},
    "peers": {"mysql-router-peers": {"interface": "mysql_router_peers"}},
    "provides": {"database": {"interface": "mysql_client"}},
    "requires": {"backend-database": {"interface": "mysql_client", "limit": 1}},
}


def _password(*parts: object) -> str:
    """A stable, obviously fake password: the same run gives the same bundle."""
    text = "/".join(str(p) for p in parts)
    return "simulated-" + hashlib.sha256(text.encode()).hexdigest()[:20]


class MySQLStandIn(ops.CharmBase):
    """Answers every ``database`` request with credentials in the app databag."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.database_relation_changed, self._answer)
        framework.observe(self.on.collect_unit_status, self._status)

    def _answer(self, event: ops.RelationChangedEvent) -> None:
        if not self.unit.is_leader() or event.app is None:
            return
        wanted = event.relation.data[event.app].get("database")
        bag = event.relation.data[self.app]
        if not wanted or bag.get("database") == wanted:
            return
        bag.update(
            {
                "database": wanted,
                "username": f"relation-{event.relation.id}",
                "password": _password(self.app.name, event.relation.id, wanted),
                "endpoints": f"mysql-k8s-primary.{self.model.name}.svc.cluster.local:3306",
                "read-only-endpoints": (
                    f"mysql-k8s-replicas.{self.model.name}.svc.cluster.local:3306"
                ),
                "version": "8.0-simulated",
            }
        )

    def _status(self, event: ops.CollectStatusEvent) -> None:
        event.add_status(ops.ActiveStatus(f"{SIMULATED} for mysql-k8s"))


class RouterStandIn(ops.CharmBase):
    """Gets credentials from the database, then serves its own clients."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        for event in (
            self.on.start,
            self.on.backend_database_relation_joined,
            self.on.backend_database_relation_changed,
        ):
            framework.observe(event, self._request_backend)
        framework.observe(self.on.backend_database_relation_changed, self._bootstrap)
        framework.observe(self.on.backend_database_relation_changed, self._serve)
        framework.observe(self.on.database_relation_changed, self._serve)
        framework.observe(self.on.collect_unit_status, self._status)

    def _backend(self) -> ops.Relation | None:
        return self.model.get_relation("backend-database")

    def _backend_credentials(self) -> dict[str, str] | None:
        relation = self._backend()
        if relation is None or relation.app is None:
            return None
        bag = dict(relation.data[relation.app])
        return bag if bag.get("username") and bag.get("password") else None

    def _request_backend(self, event: ops.EventBase) -> None:
        relation = self._backend()
        if relation is not None and self.unit.is_leader():
            bag = relation.data[self.app]
            if bag.get("database") != "mysqlrouter":
                bag["database"] = "mysqlrouter"

    def _bootstrap(self, event: ops.EventBase) -> None:
        # Written once, when the backend first answers (the LP#2021891 behaviour).
        credentials = self._backend_credentials()
        container = self.unit.get_container("mysql-router")
        if credentials is None or not container.can_connect():
            return
        peer = self.model.get_relation("mysql-router-peers")
        if peer is not None and peer.data[self.unit].get("bootstrapped") == "true":
            return
        container.push(
            ROUTER_CONFIG,
            "# written by the SIMULATED mysql-router-k8s stand-in\n"
            "[DEFAULT]\n"
            f"name={self.unit.name.replace('/', '-')}\n"
            f"[metadata_cache:bootstrap]\nuser={credentials['username']}\n",
            make_dirs=True,
        )
        if peer is not None:
            peer.data[self.unit]["bootstrapped"] = "true"

    def _serve(self, event: ops.EventBase) -> None:
        if not self.unit.is_leader() or self._backend_credentials() is None:
            return
        for relation in self.model.relations.get("database", []):
            if relation.app is None:
                continue
            wanted = relation.data[relation.app].get("database")
            bag = relation.data[self.app]
            if not wanted or bag.get("database") == wanted:
                continue
            bag.update(
                {
                    "database": wanted,
                    "username": f"router-relation-{relation.id}",
                    "password": _password(self.app.name, relation.id, wanted),
                    "endpoints": f"{self.app.name}.{self.model.name}.svc.cluster.local:6446",
                    "read-only-endpoints": (
                        f"{self.app.name}.{self.model.name}.svc.cluster.local:6447"
                    ),
                }
            )

    def _status(self, event: ops.CollectStatusEvent) -> None:
        if self._backend_credentials() is None:
            event.add_status(ops.WaitingStatus(f"{SIMULATED}: waiting for mysql-k8s"))
        event.add_status(ops.ActiveStatus(f"{SIMULATED} for mysql-router-k8s"))


def mysql_source() -> CharmSource:
    return CharmSource("mysql-k8s", MySQLStandIn, MYSQL_META, simulated_stand_in=True)


def router_source() -> CharmSource:
    return CharmSource("mysql-router-k8s", RouterStandIn, ROUTER_META, simulated_stand_in=True)
