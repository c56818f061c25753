"""Named reproductions: a disruption, its targets, and the bug it reproduces."""

from __future__ import annotations

from dataclasses import dataclass

from harness.disrupt.base import Target
from harness.errors import UnknownName
from harness.stack import PROBE, ROUTER


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
        (Target(PROBE),),
        "StatefulSet pod template patched: pods replaced, unit names and databags kept",
        bug="https://bugs.launchpad.net/juju/+bug/1830745",
    ),
    Scenario(
        "lp1830745-charm-pod-spec-change",
        "charm-pod-spec-change",
        (Target(PROBE),),
        "the probe patches its own pod template: the sidecar-era pod-spec-set",
        bug="https://bugs.launchpad.net/juju/+bug/1830745",
    ),
    Scenario(
        "container-restart",
        "container-restart",
        (Target(PROBE, (f"{PROBE}/0",), container="workload"),),
        "kill PID 1 of the workload container: same pod, that container's files fresh",
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


def scenario(name: str) -> Scenario:
    for candidate in SCENARIOS:
        if candidate.name == name:
            return candidate
    known = ", ".join(s.name for s in SCENARIOS)
    raise UnknownName(f"unknown scenario {name!r}", f"choose one of: {known}")
