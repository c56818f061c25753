"""``make_lab``: a Lab whose ports are the twin (backend ``twin``, always simulated)."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Mapping
from pathlib import Path

from harness.lab.ports import Lab
from harness.scenario.stack import Stack
from harness.twin.charms import CharmSource, probe_source
from harness.twin.clock import TwinClock
from harness.twin.cluster import TwinCluster, TwinNode
from harness.twin.expectations import ExpectationSource, twin_version
from harness.twin.juju import TwinJuju
from harness.twin.stand_ins import mysql_source, router_source
from harness.twin.world import Twin


def default_charms(probe_dir: Path | None = None) -> dict[str, CharmSource]:
    """The real probe charm, and simulated stand-ins for mysql-k8s and mysql-router-k8s."""
    return {
        "probe": probe_source(probe_dir),
        "mysql-k8s": mysql_source(),
        "mysql-router-k8s": router_source(),
    }


def catalogue_expectations() -> ExpectationSource:
    from harness.catalogue import load

    return load().expect


def make_lab(
    stack: Stack | None = None,
    *,
    juju_version: str = "3.6",
    workdir: str | Path | None = None,
    probe_dir: str | Path | None = None,
    charms: Mapping[str, CharmSource] | None = None,
    expectations: ExpectationSource | None = None,
    variants: Mapping[str, str] | None = None,
) -> Lab:
    """A simulated Juju model on Kubernetes, as a Lab with backend ``twin``.

    With a ``stack``, its applications are deployed and related before this returns
    (markers and settling are the caller's, as on live). ``workdir`` holds the pods'
    filesystem layers (a temporary directory, removed with the lab, when not given).
    ``charms`` adds or replaces charms by name (a deploy names them by Charmhub name, or
    by a path whose last part starts with ``probe`` for the probe). ``variants`` maps a
    disruption to the catalogued branch the twin follows for it (``{"pod-delete":
    "interrupted-stop"}``); an unknown one is a one-line error.
    """
    version = twin_version(juju_version)
    if workdir is None:
        folder = Path(tempfile.mkdtemp(prefix="twin-simulated-"))
        owned = True
    else:
        folder, owned = Path(workdir), False
    known = default_charms(Path(probe_dir) if probe_dir else None)
    known.update(charms or {})
    twin = Twin(
        folder,
        juju_version=version,
        expectations=expectations or catalogue_expectations(),
        charms=known,
        clock=TwinClock(),
        variants=variants,
    )
    for disruption in variants or {}:
        # An unknown disruption or branch fails here, in one line.
        twin.expectations.expect(disruption)
    if owned:
        weakref.finalize(twin, shutil.rmtree, str(folder), True)
    juju = TwinJuju(twin, known)
    if stack is not None:
        for spec in stack.apps:
            juju.deploy_now(spec)
        for endpoint_a, endpoint_b in stack.relations:
            juju.integrate_now(endpoint_a, endpoint_b)
    return Lab(
        backend="twin",
        juju=juju,
        cluster=TwinCluster(twin),
        node=TwinNode(twin),
        clock=twin.clock,
    )
