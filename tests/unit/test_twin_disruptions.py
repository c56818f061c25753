"""Every disruption class of harness.disrupt, applied to the twin lab through its ports."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.catalogue import load
from harness.common.versions import JujuVersion
from harness.disrupt import get
from harness.disrupt.steps import pod_name
from harness.scenario.scenarios import SCENARIOS, Scenario
from harness.scenario.stack import PROBE, default_stack
from harness.twin import make_lab

PROBE_DIR = Path(__file__).resolve().parents[2] / "charms" / "probe"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
async def test_every_disruption_does_to_the_pods_what_the_catalogue_says(
    scenario: Scenario, tmp_path: Path
) -> None:
    lab = make_lab(default_stack(str(PROBE_DIR)), workdir=tmp_path)
    if scenario.disruption == "charm-pod-spec-change":
        await lab.juju.trust(PROBE)  # the probe may only patch its StatefulSet when trusted
    disruption = get(scenario.disruption, charm_path=str(PROBE_DIR))
    expectation = load().expect(scenario.disruption, JujuVersion.parse("3.6"))
    for target in scenario.targets:
        before = {p.name: p.uid for p in await lab.cluster.pods(target.app)}
        steps = await disruption.apply(lab, target)
        assert steps
        assert all(step.start <= step.end for step in steps)
        after = {p.name: p.uid for p in await lab.cluster.pods(target.app)}
        assert sorted(after) == sorted(before)
        for pod in map(pod_name, target.units) if target.units else before:
            if expectation.pod_uid == "new":
                assert after[pod] != before[pod]
            else:
                assert after[pod] == before[pod]
    statuses = await lab.juju.statuses()
    assert all(s.workload == "active" for s in statuses), statuses
