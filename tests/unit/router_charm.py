"""A router charm shaped like mysql-router-k8s in May 2023, before and after its fix.

Written here (not the real charm) so the twin's public API can be tried on a charm with
the shape that hit Juju bug 2021891:

- one workload container, ``mysql-router``, whose image ships ``/etc/mysqlrouter``;
- the workload configures itself: ``mysqlrouter --bootstrap`` (run through Pebble exec)
  writes ``/etc/mysqlrouter/mysqlrouter.conf`` and refuses to bootstrap a second time
  unless the old configuration is cleaned up or ``--force`` is given
  (``MySQLRouterBinary``, an exec handler: the twin's model of the binary);
- a ``backend-database`` relation (interface ``mysql_client``) that hands it credentials
  and endpoints, a ``database`` relation it serves its own clients on, and a peer
  relation;
- a Pebble layer running the router with that configuration.

``BrokenRouter`` (re)configures the workload when the database answers and on
``upgrade-charm``: fine on a pod delete, which brings ``upgrade-charm``; broken on the
restarts that bring none (node restart, workload container restart). ``FixedRouter`` does
what mysql-router-k8s's fix did ("use pebble ready instead of upgrade charm"): it
configures whenever the workload container is ready and not configured.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ops
from ops import testing

from harness.twin import ExecCall, ExecResult, Image

CONTAINER = "mysql-router"
CONFIG = "/etc/mysqlrouter/mysqlrouter.conf"
SERVICE = "mysql_router"
META: dict[str, Any] = {
    "name": "router",
    "containers": {CONTAINER: {"resource": "mysql-router-image"}},
    "resources": {"mysql-router-image": {"type": "oci-image"}},
    "peers": {"mysql-router-peers": {"interface": "mysql_router_peers"}},
    "provides": {"database": {"interface": "mysql_client"}},
    "requires": {"backend-database": {"interface": "mysql_client", "limit": 1}},
}
# What the router image ships: a Linux base with the package's configuration directory.
IMAGES = {CONTAINER: Image.linux(["/etc/mysqlrouter", "/var/lib/mysqlrouter"])}


class MySQLRouterBinary:
    """The workload's ``mysqlrouter`` binary, as far as the charm can tell (SIMULATED).

    ``--bootstrap <user>@<host>`` writes the configuration and a key file; run again while
    they are there it fails, unless ``--force`` is given. Counts its bootstraps.
    """

    def __init__(self) -> None:
        self.bootstraps = 0

    def __call__(self, call: ExecCall) -> ExecResult:
        if "--bootstrap" not in call.command:
            return ExecResult(64, stderr="simulated mysqlrouter: only --bootstrap is modelled")
        conf = call.path(CONFIG)
        if conf.exists() and "--force" not in call.command:
            return ExecResult(
                1,
                stderr="Error: this host already has a bootstrapped router "
                "(simulated); remove it or use --force",
            )
        if not conf.parent.is_dir():
            return ExecResult(1, stderr=f"Error: cannot write {CONFIG}: no such directory")
        server = call.command[call.command.index("--bootstrap") + 1]
        conf.write_text(f"[metadata_cache:bootstrap]\nbootstrap_server_addresses={server}\n")
        call.path("/var/lib/mysqlrouter/keyring").write_text("simulated keyring\n")
        self.bootstraps += 1
        return ExecResult(0, stdout="# MySQL Router configured (simulated)\n")


class BrokenRouter(ops.CharmBase):
    """Configures the workload when the database answers, and on upgrade-charm only."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.backend_database_relation_created, self._request)
        framework.observe(self.on.backend_database_relation_changed, self._reconcile)
        framework.observe(self.on.upgrade_charm, self._reconcile)
        framework.observe(self.on.database_relation_changed, self._serve)
        framework.observe(self.on.collect_unit_status, self._status)

    def _credentials(self) -> dict[str, str] | None:
        relation = self.model.get_relation("backend-database")
        if relation is None or relation.app is None:
            return None
        data = dict(relation.data[relation.app])
        return data if {"username", "password", "endpoints"} <= set(data) else None

    def _request(self, event: ops.RelationCreatedEvent) -> None:
        if self.unit.is_leader():
            event.relation.data[self.app]["database"] = "mysqlrouter"

    def _reconcile(self, event: ops.EventBase) -> None:
        container = self.unit.get_container(CONTAINER)
        credentials = self._credentials()
        if credentials is None or not container.can_connect():
            return
        if not container.exists(CONFIG):
            server = f"{credentials['username']}@{credentials['endpoints']}"
            process = container.exec(
                ["mysqlrouter", "--bootstrap", server, "--directory", "/etc/mysqlrouter"]
            )
            process.wait_output()
        container.add_layer(
            "mysql-router",
            {
                "services": {
                    SERVICE: {
                        "override": "replace",
                        "command": f"mysqlrouter --config {CONFIG}",
                        "startup": "enabled",
                    }
                }
            },
            combine=True,
        )
        container.replan()
        self._serve(event)

    def _serve(self, event: ops.EventBase) -> None:
        if not self.unit.is_leader() or self._credentials() is None:
            return
        for relation in self.model.relations["database"]:
            bag = relation.data[self.app]
            if bag.get("endpoints") is None:
                bag["endpoints"] = f"{self.app.name}.{self.model.name}.svc:6446"

    def _status(self, event: ops.CollectStatusEvent) -> None:
        if self._credentials() is None:
            event.add_status(ops.WaitingStatus("waiting for the database"))
        event.add_status(ops.ActiveStatus())


class FixedRouter(BrokenRouter):
    """The fix: configure whenever the workload's container is ready."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.mysql_router_pebble_ready, self._reconcile)


class BootstrapsOnStart(BrokenRouter):
    """A wrong fix: bootstrap on every start, without checking or forcing."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.start, self._bootstrap)

    def _bootstrap(self, event: ops.EventBase) -> None:
        credentials = self._credentials()
        container = self.unit.get_container(CONTAINER)
        if credentials is not None and container.can_connect():
            server = f"{credentials['username']}@{credentials['endpoints']}"
            container.exec(["mysqlrouter", "--bootstrap", server]).wait_output()


def configured_unit(tmp_path: Path, *, leader: bool = True) -> testing.State:
    """A unit as the database left it: credentials in the relation, the workload
    bootstrapped (its configuration in the container) and running."""
    etc = tmp_path / "etc-mysqlrouter"
    etc.mkdir()
    (etc / "mysqlrouter.conf").write_text("[metadata_cache:bootstrap]\n")
    layer = ops.pebble.Layer(
        {
            "services": {
                SERVICE: {
                    "override": "replace",
                    "command": f"mysqlrouter --config {CONFIG}",
                    "startup": "enabled",
                }
            }
        }
    )
    return testing.State(
        leader=leader,
        containers={
            testing.Container(
                CONTAINER,
                can_connect=True,
                mounts={"conf": testing.Mount(location="/etc/mysqlrouter", source=etc)},
                layers={"mysql-router": layer},
                service_statuses={SERVICE: ops.pebble.ServiceStatus.ACTIVE},
            )
        },
        relations={
            testing.Relation(
                "backend-database",
                interface="mysql_client",
                remote_app_name="mysql-k8s",
                local_app_data={"database": "mysqlrouter"} if leader else {},
                remote_app_data={
                    "username": "relation-4",
                    "password": "simulated-secret",
                    "endpoints": "mysql-k8s-primary.model.svc:3306",
                },
                remote_units_data={0: {}},
            ),
            testing.Relation(
                "database",
                interface="mysql_client",
                remote_app_name="app",
                remote_app_data={"database": "app"},
                local_app_data={"endpoints": "router.model.svc:6446"} if leader else {},
            ),
            testing.PeerRelation("mysql-router-peers", peers_data={1: {}}),
        },
    )
