"""The stack every scenario deploys: mysql-k8s, mysql-router-k8s and two probe apps."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness.catalogue.model import Layer
from harness.lab.ports import AppSpec

if TYPE_CHECKING:
    from harness.scenario.bundle.model import BundleSpec
    from harness.scenario.charm_meta import CharmMeta

MYSQL = "mysql-k8s"
ROUTER = "mysql-router-k8s"
PROBE = "probe"
PROBE_PEER = "probe-peer"

# Paths the probe charm uses; kept in step with charms/probe/src/paths.py.
PROBE_WORKLOAD_MARKER = "/probe/workload-marker"
PROBE_ROOT_INCARNATION = "/tmp/probe/root-incarnation"
# The journal storage as mounted in the workload container; it grows, so it is not watched.
PROBE_JOURNAL = "/var/lib/probe-journal/journal.jsonl"
ROUTER_CONFIG_DIR = "/etc/mysqlrouter"
# Written by the harness itself: the router may rewrite its own files, this one it never does.
ROUTER_MARKER = "/etc/mysqlrouter/.harness-marker"


@dataclass(frozen=True)
class WatchedPath:
    """A path whose survival the snapshot records, in one container of an application.

    ``layer`` is the filesystem layer it lives in (None: recorded but not judged); with
    ``seed`` the harness writes the file itself (through the cluster port) before disrupting.
    ``judged=False`` records a known layer without judging it. ``charm_written`` (a
    ``--watch`` path) is judged on its metadata, not its digest: the charm may write it
    again after the disruption (``harness.verdict.file_survival``).
    """

    app: str
    container: str
    path: str
    layer: Layer | None
    seed: bool = False
    judged: bool = True
    charm_written: bool = False


@dataclass(frozen=True)
class Stack:
    apps: tuple[AppSpec, ...]
    relations: tuple[tuple[str, str], ...]
    watched: tuple[WatchedPath, ...]
    # The user's bundle this stack was built from (None: the default stack).
    bundle: BundleSpec | None = None
    # Each bundle app's metadata, where known: names the verdict's {container} templates.
    metas: Mapping[str, CharmMeta] = field(default_factory=dict)
    # Keys the user named secret (repro run --redact): their values are never shown.
    redact: tuple[str, ...] = ()

    @property
    def app_names(self) -> tuple[str, ...]:
        return tuple(spec.app for spec in self.apps)

    @property
    def has_probe(self) -> bool:
        return PROBE in self.app_names

    @property
    def layers(self) -> dict[tuple[str, str], Layer]:
        """(container, path) -> layer, for the verdict's file checks."""
        return {
            (w.container, w.path): w.layer
            for w in self.watched
            if w.layer is not None and w.judged
        }

    @property
    def charm_written(self) -> frozenset[tuple[str, str]]:
        """(container, path) of the judged paths the charm writes (judged on metadata)."""
        return frozenset(
            (w.container, w.path)
            for w in self.watched
            if w.layer is not None and w.judged and w.charm_written
        )


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
            WatchedPath(ROUTER, "mysql-router", ROUTER_CONFIG_DIR, None),
            WatchedPath(ROUTER, "mysql-router", ROUTER_MARKER, "container-root", seed=True),
            WatchedPath(PROBE, "workload", PROBE_WORKLOAD_MARKER, "container-root"),
            WatchedPath(PROBE, "charm", PROBE_ROOT_INCARNATION, "container-root"),
            WatchedPath(PROBE_PEER, "workload", PROBE_WORKLOAD_MARKER, "container-root"),
        ),
    )
