"""Seed 001 as it happened: a podspec charm's own pod-spec-set (``lp1830745-pod-spec-set``).

The stack is the podspec probe (charms/podspec-probe, one unit, as in the seed) related to
the sidecar probe; the disruption is ``juju config podspec-probe spec-token=...``: its
leader's config-changed sets a new pod spec and Juju re-applies the workload StatefulSet.
Podspec charms exist on Juju 2.9 and 3.6 only; on 4.0 the scenario is refused in one line
(``refusal``) with the catalogue's reason and source.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.catalogue import load
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion

PODSPEC_PROBE = "podspec-probe"
SIDECAR_PROBE = "probe"
PODSPEC_IMAGE = "ubuntu/nginx:1.24-24.04_beta"
# Written by the harness before the disruption, on both sides, as set-databag would.
DATABAG_KEY = "probe-check"
# How often the unit list is read through the roll (the issue asks at least once a second).
SAMPLE_EVERY = 1.0


@dataclass(frozen=True)
class PodspecScenario:
    """A podspec charm's disruption on the podspec stack."""

    name: str
    disruption: str
    summary: str
    bug: str
    config_key: str = "spec-token"
    app: str = PODSPEC_PROBE
    other: str = SIDECAR_PROBE
    endpoints: tuple[str, str] = (
        f"{PODSPEC_PROBE}:probe-requirer",
        f"{SIDECAR_PROBE}:probe-provider",
    )


POD_SPEC_SET = PodspecScenario(
    "lp1830745-pod-spec-set",
    "pod-spec-set",
    "a podspec charm's leader sets a new pod spec (juju config): the workload pod is"
    " replaced; unit names and every databag kept (Juju 2.9 and 3.6; gone in 4.0)",
    "https://bugs.launchpad.net/juju/+bug/1830745",
)
PODSPEC_SCENARIOS: tuple[PodspecScenario, ...] = (POD_SPEC_SET,)


def podspec_scenario(name: str) -> PodspecScenario | None:
    return next((s for s in PODSPEC_SCENARIOS if s.name == name), None)


def refusal(scenario: PodspecScenario, juju: JujuVersion) -> HarnessError | None:
    """The one-line refusal on a Juju without podspec charms (4.0 on), else None."""
    gone = load().gone_on(scenario.disruption, juju)
    if gone is None:
        return None
    source = gone.sources[0].url if gone.sources else "the catalogue's podspec section"
    return HarnessError(
        f"{scenario.name} cannot run on Juju {juju}: podspec charms are gone from Juju "
        f"{gone.juju_min} ({source})",
        "run it against a Juju 2.9 or 3.6 controller",
    )
