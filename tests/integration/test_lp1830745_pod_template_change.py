"""Juju bug 1830745: a pod template change must not lose relation data or unit names.

https://bugs.launchpad.net/juju/+bug/1830745 (fixed by juju PR 10270 in 2.6.4): a
pod-spec change replaced the pod, Juju removed the unit and created a new one, and its
relation data was lost. Here the StatefulSet pod template is patched from outside, then by
the probe itself (the sidecar-era pod-spec-set); pods roll highest ordinal first.
"""

from __future__ import annotations

import pytest

from harness.checks import (
    assert_databags_kept,
    assert_has_credentials,
    assert_no_deviation,
    databags,
    pod_pair,
)
from harness.run.result import RunResult
from harness.scenario.stack import PROBE, ROUTER
from harness.suite.session import Disrupter

EXTERNAL = "lp1830745-pod-spec-change"
CHARM_DRIVEN = "lp1830745-charm-pod-spec-change"
PROBE0 = f"{PROBE}/0"

pytestmark = pytest.mark.disruptive


def _assert_identity_and_databags_kept(run: RunResult) -> None:
    before, after = run.evidence.before, run.evidence.after
    assert before is not None
    assert after is not None
    assert {p.unit for p in after.pods if p.unit.startswith(f"{PROBE}/")} == {
        p.unit for p in before.pods if p.unit.startswith(f"{PROBE}/")
    }, "unit names changed"
    for pod in before.pods:
        if pod.unit.startswith(f"{PROBE}/"):
            old, new = pod_pair(run, pod.unit)
            assert new.uid != old.uid, f"{pod.unit}: pod was not replaced"
    assert_no_deviation(run, "relation")
    old, new = databags(before), databags(after)
    assert any(bag.seen_by.startswith(f"{PROBE}/") for bag in old.values())
    assert any(bag.seen_by.startswith(f"{ROUTER}/") for bag in old.values())
    assert_databags_kept(old, new)


@pytest.mark.parametrize("scenario", [EXTERNAL, CHARM_DRIVEN])
async def test_pod_template_change_keeps_units_and_databags(
    disrupt: Disrupter, scenario: str
) -> None:
    run = await disrupt(scenario)
    _assert_identity_and_databags_kept(run)


@pytest.mark.parametrize("scenario", [EXTERNAL, CHARM_DRIVEN])
async def test_pod_template_change_runs_the_catalogued_hooks(
    disrupt: Disrupter, scenario: str
) -> None:
    run = await disrupt(scenario)
    assert_no_deviation(run, "hooks", f"{PROBE0} [journal]")
    assert_no_deviation(run, "hooks", f"{PROBE0} [debug-log]")
    assert_no_deviation(run, "pod-identity", PROBE0)


@pytest.mark.parametrize("scenario", [EXTERNAL, CHARM_DRIVEN])
async def test_pod_template_change_router_still_serves_the_probe(
    disrupt: Disrupter, scenario: str
) -> None:
    run = await disrupt(scenario)
    after = run.evidence.after
    assert after is not None
    assert_has_credentials(after, PROBE0, ROUTER)
    probe = next(s for s in after.statuses if s.unit == PROBE0)
    assert probe.workload == "active", f"{PROBE0}: {probe.workload} {probe.workload_message}"
