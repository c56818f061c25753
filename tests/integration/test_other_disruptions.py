"""Container restart, resource refresh, charm refresh, scale to zero and back.

Each is judged against the expectation catalogue for the Juju version in use: the hooks the
disrupted probe units ran (journal and debug-log), what survived in each filesystem layer,
the pod identity, and every relation databag.
"""

from __future__ import annotations

import pytest

from harness.checks import assert_no_deviation, findings
from harness.scenario.stack import PROBE
from harness.suite.session import Disrupter

SCENARIOS = [
    "container-restart",
    "container-restart-charm",
    "resource-refresh",
    "charm-refresh",
    "scale-down-up",
]

pytestmark = pytest.mark.disruptive


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_probe_runs_the_catalogued_hooks(disrupt: Disrupter, scenario: str) -> None:
    run = await disrupt(scenario)
    assert_no_deviation(run, "hooks", f"{PROBE}/")


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_filesystem_layers_behave_as_catalogued(disrupt: Disrupter, scenario: str) -> None:
    run = await disrupt(scenario)
    assert_no_deviation(run, "file", f"{PROBE}/")


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_pod_identity_is_as_catalogued(disrupt: Disrupter, scenario: str) -> None:
    run = await disrupt(scenario)
    assert_no_deviation(run, "pod-identity", f"{PROBE}/")


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_relation_data_is_as_catalogued(disrupt: Disrupter, scenario: str) -> None:
    run = await disrupt(scenario)
    assert_no_deviation(run, "relation")
    # The probe's own databags are among those judged, on both of its relations.
    judged = {f.subject.split(" ")[0].split(":")[0] for f in findings(run, "relation")}
    assert {"database", "probe-provider"} <= judged or {"database", "probe-requirer"} <= judged
