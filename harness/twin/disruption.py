"""``run_disruption``: put one unit of any ops charm through a disruption, in a unit test.

    from ops import testing
    from harness.twin import Image, run_disruption

    ctx = testing.Context(MyCharm)
    state = testing.State(leader=True, containers={testing.Container("app", can_connect=True)})
    result = run_disruption(ctx, state, "node-restart", images={"app": Image.linux(["/etc/app"])})
    assert result.hooks == ("start", "app-pebble-ready")
    assert result.read_text("app", "/etc/app/app.conf") is not None  # written again?

What the disruption does to the unit is decided by ``harness.twin.engine`` from the
catalogue entry for the Juju version (the same decision the twin lab makes): the hooks,
in order, and between them the layers of a Kubernetes pod:

- a container that starts again starts from its image (``images``; by default the usual
  directories of a Linux image): what the charm or the workload wrote is gone; its
  Pebble plan and service statuses are empty. Every ``Mount`` of the given state is part
  of the container's root filesystem unless it is a volume: where the charm's metadata
  mounts storage (a volume is made there when the state mounts none), or named in
  ``storage_mounts``;
- a new pod also means a new charm directory: local ``StoredState`` and deferred events
  are lost, unless ``use_juju_for_storage=True`` (ops' controller-backed StoredState);
- relations, leadership, config, secrets and storages live on the controller: kept.

While a hook runs, ``exec_handlers`` answer the charm's ``Container.exec`` calls with
the workload's behaviour (see ``harness.twin.workload``). The result's ``state`` is an
ordinary ops.testing State: the caller's Context can run more events on it and sees the
filesystem the twin left. A charm exception becomes a ``CharmHookError`` naming the
disruption, step, hook and Juju version, with the partial result.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import warnings
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from ops import testing

from harness.catalogue.names import NAMES, not_runnable
from harness.common.errors import HarnessError, UnknownName
from harness.scenario.charm_assumes import simulated_refusal
from harness.twin import compat
from harness.twin.disruption_run import DisruptionRun
from harness.twin.engine import decide
from harness.twin.expectations import twin_version
from harness.twin.image import Image, check_images
from harness.twin.model import CHARM_CONTAINER
from harness.twin.result import TwinResult
from harness.twin.state_checks import (
    check_storage_mounts,
    with_declared_containers,
    with_storage_volumes,
)
from harness.twin.workload import ExecHandlers, normalise

REFUSED = {
    "resource-refresh": "resource-refresh only makes sense live: it needs a real image "
    "reference for Juju to roll out",
    "charm-pod-spec-change": "charm-pod-spec-change needs the probe charm patching its own "
    "StatefulSet; run the twin lab (harness.twin.make_lab) for it",
}


def run_disruption(
    ctx: testing.Context[Any],
    state: testing.State,
    disruption: str,
    juju_version: str = "3.6",
    *,
    variant: str | None = None,
    container: str | None = None,
    signal: str | None = None,
    images: Mapping[str, Image] | None = None,
    exec_handlers: ExecHandlers | None = None,
    storage_mounts: Collection[str] = (),
    use_juju_for_storage: bool = False,
    workdir: str | Path | None = None,
) -> TwinResult:
    """Run what the catalogue predicts for ``disruption`` on one unit (SIMULATED).

    ``variant`` selects a catalogued branch of the disruption (default: its main one).
    ``container`` is the container ``container-restart`` restarts (default: the first
    workload container the charm declares; ``"charm"``: the charm container) and
    ``signal`` what kills its PID 1 (``TERM``, the default, ``KILL`` or ``OOM``); together
    they pick the catalogued branch, as ``variant`` may (``charm``, ``charm-kill``).
    ``images`` gives each container's image (default ``Image()``: a Linux image's usual
    directories).
    ``exec_handlers`` maps container -> command prefix -> handler. The storage the charm's
    metadata mounts in a container is a volume; ``storage_mounts`` names more mounts that
    are. ``workdir`` holds the filesystem layers
    (a temporary directory removed when the Python process exits, by default).
    ``juju_version`` past every version the catalogue names (4.1, 5.0) is followed by the
    catalogue's newest range and warned about (``TwinResult.extrapolation`` says so).
    """
    if disruption in REFUSED:
        raise HarnessError(REFUSED[disruption])
    predict_only = not_runnable(disruption)
    if predict_only is not None:
        raise HarnessError(*predict_only)
    if disruption not in NAMES:
        choices = ", ".join(n for n in NAMES if n not in REFUSED)
        raise UnknownName(f"unknown disruption {disruption!r}", f"choose one of: {choices}")
    version = twin_version(juju_version)
    refused = simulated_refusal(compat.charm_meta(ctx), str(version))
    if refused is not None:
        raise refused
    from harness.catalogue import load

    catalogue = load()
    expectations = catalogue.expect
    extrapolation = catalogue.extrapolation(version)
    if extrapolation is not None:
        warnings.warn(f"SIMULATED: {extrapolation}", UserWarning, stacklevel=2)
    declared = compat.declared_containers(ctx)
    state = with_declared_containers(state, declared)
    names = sorted(c.name for c in state.containers)
    check_images(images, names)
    check_storage_mounts(storage_mounts, state)
    folder = Path(workdir) if workdir is not None else _temporary()
    folder.mkdir(parents=True, exist_ok=True)
    state, volumes = with_storage_volumes(state, compat.charm_meta(ctx), folder)
    handlers = normalise(exec_handlers, names)
    target: str | None = None
    if disruption == "container-restart":
        if container is not None and container not in (*names, CHARM_CONTAINER):
            raise UnknownName(
                f"the state has no container {container!r}",
                f"use one of: {', '.join([*names, CHARM_CONTAINER])}",
            )
        # The first the charm declares, as `repro run --bundle` picks it.
        first = next(iter(declared), names[0] if names else CHARM_CONTAINER)
        # A variant alone names its container kind; otherwise the container picks it.
        picked = container or (None if variant is not None else first)
        expectation = expectations(
            disruption, version, variant=variant, container=picked, signal=signal
        )
        target = picked or (CHARM_CONTAINER if expectation.container == "charm" else first)
        variant = expectation.variant
    else:
        if container is not None or signal is not None:
            raise HarnessError(
                f"container= and signal= apply to container-restart, not {disruption}",
                "leave them out",
            )
        expectation = expectations(disruption, version, variant=variant)
    run = DisruptionRun(
        ctx,
        disruption=disruption,
        variant=variant,
        version=str(version),
        workdir=folder,
        images=images,
        handlers=handlers,
        storage_mounts={*storage_mounts, *volumes},
        use_juju_for_storage=use_juju_for_storage,
        extrapolation=extrapolation,
    )
    with run.juju_version():
        current = run.adopt(state)
        unit_plan = decide(
            expectation,
            containers=names,
            endpoints=sorted({r.endpoint for r in state.relations}),
            storages=sorted({s.name for s in state.storages}),
            leader=state.leader,
            target=target if expectation.scope == "container" else None,
            deploy=expectations("deploy", version),
        )
        current = run.follow(current, unit_plan, expectations("integrate", version))
    return run.result(current)


def _temporary() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="twin-simulated-"))
    # The returned state's mounts point here: keep it while the process runs.
    atexit.register(shutil.rmtree, str(folder), True)
    return folder
