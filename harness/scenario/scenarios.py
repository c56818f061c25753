"""Named reproductions: a disruption, its targets, and the bug it reproduces."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from harness.catalogue.names import NAMES, not_runnable
from harness.common.errors import HarnessError, UnknownName, choose_one_of
from harness.scenario.stack import PROBE, ROUTER


@dataclass(frozen=True)
class Target:
    """What a disruption acts on: units of one application (all of them when empty)."""

    app: str
    units: tuple[str, ...] = ()
    container: str | None = None  # for container-restart
    signal: str | None = None  # for container-restart: TERM (default), KILL or OOM
    # For pod template changes: also delete every pod at once, so that for a moment the
    # application has zero running pods (the race of Juju bug 1830745).
    zero_pods: bool = False
    resource: str | None = None  # for resource-refresh: "name=image-reference"


@dataclass(frozen=True)
class Scenario:
    name: str
    disruption: str
    targets: tuple[Target, ...]
    summary: str
    bug: str | None = None


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "lp2021891-pod-delete",
        "pod-delete",
        (Target(ROUTER, (f"{ROUTER}/0",)), Target(PROBE, (f"{PROBE}/0",))),
        "kubectl delete pod: stop, upgrade-charm, config-changed, start on a fresh pod",
        bug="https://bugs.launchpad.net/juju/+bug/2021891",
    ),
    Scenario(
        "lp2021891-node-restart",
        "node-restart",
        (Target(ROUTER), Target(PROBE)),
        "microk8s stop/start: only start, same pods, container filesystems fresh",
        bug="https://bugs.launchpad.net/juju/+bug/2021891",
    ),
    Scenario(
        "lp1830745-pod-spec-change",
        "pod-spec-change",
        (Target(PROBE, zero_pods=True),),
        "StatefulSet pod template patched and every pod deleted at once (zero running pods):"
        " unit names and databags kept",
        bug="https://bugs.launchpad.net/juju/+bug/1830745",
    ),
    Scenario(
        "lp1830745-charm-pod-spec-change",
        "charm-pod-spec-change",
        (Target(PROBE, zero_pods=True),),
        "the probe patches its own pod template (the sidecar-era pod-spec-set), then every"
        " pod is deleted at once (zero running pods)",
        bug="https://bugs.launchpad.net/juju/+bug/1830745",
    ),
    Scenario(
        "container-restart",
        "container-restart",
        (Target(PROBE, (f"{PROBE}/0",), container="workload", signal="TERM"),),
        "SIGTERM to PID 1 of the workload container: same pod, that container's files fresh",
    ),
    Scenario(
        "container-restart-charm",
        "container-restart",
        (Target(PROBE, (f"{PROBE}/0",), container="charm", signal="TERM"),),
        "SIGTERM to PID 1 of the charm container: stop, then start and every pebble-ready",
    ),
    Scenario(
        "resource-refresh",
        "resource-refresh",
        (Target(PROBE, resource="workload-image=ubuntu/nginx:1.18-22.04_beta"),),
        "juju refresh --resource with a new image: pods replaced",
    ),
    Scenario(
        "charm-refresh",
        "charm-refresh",
        (Target(PROBE),),
        "juju refresh with the same charm: pods roll, highest ordinal first, upgrade-charm",
    ),
    Scenario(
        "scale-down-up",
        "scale-down-up",
        (Target(PROBE),),
        "scale to zero and back: units removed, new units created",
    ),
)


def disruption_scenario(disruption: str) -> Scenario | None:
    """A disruption's own name as a scenario on the default stack.

    It takes the targets of the first named scenario that applies that disruption (for
    ``pod-delete``, the router and the probe, as in ``lp2021891-pod-delete``).
    """
    for candidate in SCENARIOS:
        if candidate.disruption == disruption:
            return replace(candidate, name=disruption, bug=None)
    return None


def refuse_predict_only(name: str) -> None:
    """A disruption only catalogued (``repro predict``) cannot be run: say so in one line."""
    refused = not_runnable(name)
    if refused is not None:
        raise HarnessError(*refused)


def scenario(name: str) -> Scenario:
    """A named scenario, or a disruption's name run on the default stack."""
    refuse_predict_only(name)
    for candidate in SCENARIOS:
        if candidate.name == name:
            return candidate
    derived = disruption_scenario(name)
    if derived is not None:
        return derived
    raise UnknownName(
        f"unknown scenario or disruption {name!r}",
        choose_one_of(name, (*NAMES, *(s.name for s in SCENARIOS))) + "; `repro list` names them",
    )


# Disruptions that act on units one by one, so one unit of a scaled app can be chosen.
PER_UNIT = ("pod-delete", "container-restart")
_UNIT = re.compile(r"([a-z][a-z0-9-]*)/([0-9]+)")


def one_unit(
    scenario: Scenario, unit: str, units_of: Mapping[str, int], app: str | None = None
) -> Scenario:
    """``scenario`` with the target of ``unit``'s application narrowed to that unit (the
    other targets as they were); ``units_of``: each application's unit count as deployed.
    Whatever cannot be chosen is refused in one line, before anything is deployed."""
    if scenario.disruption not in PER_UNIT:
        raise HarnessError(
            f"--unit applies to {' and '.join(PER_UNIT)}: {scenario.disruption} acts on "
            "every unit of an application",
            "leave --unit out",
        )
    found = _UNIT.fullmatch(unit)
    if found is None:
        raise HarnessError(f"--unit {unit!r} is not a unit name", "give APP/N, e.g. probe/0")
    name, number = found.group(1), int(found.group(2))
    if app is not None and name != app:
        raise HarnessError(f"--unit {unit} is not of --app {app}", f"give {app}/N")
    disrupted = sorted({t.app for t in scenario.targets})
    if name not in disrupted:
        raise UnknownName(
            f"--unit {unit}: {scenario.name} does not disrupt {name}",
            f"give a unit of {' or '.join(disrupted)}, or pass --app {name}",
        )
    count = units_of.get(name, 1)
    if number >= count:
        raise UnknownName(
            f"no unit {unit}: {name} is deployed with {count} unit"
            f"{'' if count == 1 else 's'} ({name}/0 to {name}/{count - 1})",
            "give one of them, or scale the application in the bundle",
        )
    targets = tuple(replace(t, units=(unit,)) if t.app == name else t for t in scenario.targets)
    return replace(scenario, targets=targets)
