"""The stack every scenario deploys: mysql-k8s, mysql-router-k8s and two probe apps."""

from __future__ import annotations

from dataclasses import dataclass

from harness.ports import AppSpec

MYSQL = "mysql-k8s"
ROUTER = "mysql-router-k8s"
PROBE = "probe"
PROBE_PEER = "probe-peer"

# Paths the probe charm uses; kept in step with charms/probe/src/paths.py.
PROBE_WORKLOAD_MARKER = "/probe/workload-marker"
PROBE_ROOT_INCARNATION = "/tmp/probe/root-incarnation"
ROUTER_CONFIG_DIR = "/etc/mysqlrouter"


@dataclass(frozen=True)
class WatchedPath:
    """A path whose survival the snapshot records, in one container of an application."""

    app: str
    container: str
    path: str


@dataclass(frozen=True)
class Stack:
    apps: tuple[AppSpec, ...]
    relations: tuple[tuple[str, str], ...]
    watched: tuple[WatchedPath, ...]

    @property
    def app_names(self) -> tuple[str, ...]:
        return tuple(spec.app for spec in self.apps)


def default_stack(
    probe_charm: str,
    *,
    mysql_channel: str = "8.0/edge",
    router_channel: str = "8.0/edge",
    probe_image: str = "ubuntu/nginx:1.24-24.04_beta",
) -> Stack:
    """mysql-k8s (trusted) <- mysql-router-k8s <- probe (database) <-> probe-peer (probe)."""
    return Stack(
        apps=(
            AppSpec(MYSQL, "mysql-k8s", channel=mysql_channel, trust=True),
            AppSpec(ROUTER, "mysql-router-k8s", channel=router_channel, trust=True),
            AppSpec(PROBE, probe_charm, resources={"workload-image": probe_image}),
            AppSpec(PROBE_PEER, probe_charm, resources={"workload-image": probe_image}),
        ),
        relations=(
            (f"{ROUTER}:backend-database", f"{MYSQL}:database"),
            (f"{PROBE}:database", f"{ROUTER}:database"),
            (f"{PROBE}:probe-provider", f"{PROBE_PEER}:probe-requirer"),
        ),
        watched=(
            WatchedPath(ROUTER, "mysql-router", ROUTER_CONFIG_DIR),
            WatchedPath(PROBE, "workload", PROBE_WORKLOAD_MARKER),
            WatchedPath(PROBE, "charm", PROBE_ROOT_INCARNATION),
            WatchedPath(PROBE_PEER, "workload", PROBE_WORKLOAD_MARKER),
        ),
    )
