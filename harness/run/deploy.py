"""Deploy the stack and leave the marks that later snapshots check for."""

from __future__ import annotations

import logging

from harness.common.observations import Step
from harness.lab.ports import Lab
from harness.observe.settle import wait_settled
from harness.scenario.stack import PROBE, PROBE_PEER, PROBE_WORKLOAD_MARKER, Stack

log = logging.getLogger(__name__)

# Databag values written after deploy: the relation checks compare them after a disruption.
PROBE_DATABAG_KEY = "probe-check"


async def deploy_stack(
    lab: Lab, stack: Stack, *, kept: list[Step] | None = None
) -> tuple[Step, ...]:
    """Deploy every app, relate them, settle, then write databag values and markers.

    Each step is added to ``kept`` (when given) as it ends, so that a deploy that fails or
    is interrupted part-way leaves the steps it finished in the evidence.
    """
    steps: list[Step] = kept if kept is not None else []
    start = lab.clock.now().isoformat()
    for spec in stack.apps:
        log.info("deploying %s (%s)", spec.app, spec.charm)
        await lab.juju.deploy(spec)
    for endpoint_a, endpoint_b in stack.relations:
        log.info("integrating %s with %s", endpoint_a, endpoint_b)
        await lab.juju.integrate(endpoint_a, endpoint_b)
    steps.append(Step("deploy", start, lab.clock.now().isoformat(), "deploy and integrate"))
    expected = {spec.app: spec.units for spec in stack.apps}
    stop = lab.simulated  # the twin has run Juju's retries when a unit shows an error
    steps.append(await wait_settled(lab, stack.app_names, expected, stop_on_error=stop))

    start = lab.clock.now().isoformat()
    for app in _probe_apps(stack):
        for unit in await lab.juju.units(app):
            await _set_databags(lab, app, unit)
    steps.append(Step("databags", start, lab.clock.now().isoformat(), "probe databag values"))
    steps.append(await wait_settled(lab, stack.app_names, expected, stop_on_error=stop))
    steps.append(await mark_stack(lab, stack))
    return tuple(steps)


async def mark_stack(lab: Lab, stack: Stack) -> Step:
    """Write every marker a snapshot checks: before each run, since a disruption wipes them.

    The probe writes its workload marker itself (an action, so it is what the charm sees);
    the harness seeds the others straight into the container through the cluster port.
    """
    start = lab.clock.now().isoformat()
    for app in _probe_apps(stack):
        for unit in await lab.juju.units(app):
            await lab.juju.run_action(
                unit,
                "write-marker",
                {"container": "workload", "path": PROBE_WORKLOAD_MARKER, "content": unit},
            )
    for watched in stack.watched:
        if not watched.seed:
            continue
        # Pods by identity, not by unit number: after scaling, probe/1 may live in probe-0.
        for pod in await lab.cluster.pods(watched.app):
            await lab.cluster.write_file(
                pod.name, watched.container, watched.path, f"{pod.unit}: written by the harness\n"
            )
    return Step("mark", start, lab.clock.now().isoformat(), "workload markers and seeded files")


def _probe_apps(stack: Stack) -> tuple[str, ...]:
    return tuple(app for app in (PROBE, PROBE_PEER) if app in stack.app_names)


async def _set_databags(lab: Lab, app: str, unit: str) -> None:
    """A value in each probe databag this unit may write (the app one only as leader)."""
    endpoint = "probe-provider" if app == PROBE else "probe-requirer"
    await lab.juju.run_action(
        unit,
        "set-databag",
        {"endpoint": endpoint, "scope": "unit", "key": PROBE_DATABAG_KEY, "value": unit},
    )
    leaders = {s.unit for s in await lab.juju.statuses((app,)) if s.leader}
    if unit in leaders:
        await lab.juju.run_action(
            unit,
            "set-databag",
            {"endpoint": endpoint, "scope": "app", "key": PROBE_DATABAG_KEY, "value": app},
        )
