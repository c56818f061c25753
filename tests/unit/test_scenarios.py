from __future__ import annotations

import pytest

from harness.catalogue.names import NAMES
from harness.common.errors import UnknownName
from harness.scenario.scenarios import SCENARIOS, scenario
from harness.scenario.stack import default_stack


def test_every_scenario_uses_a_known_disruption_and_a_stack_app() -> None:
    apps = default_stack("probe.charm").app_names
    for item in SCENARIOS:
        assert item.disruption in NAMES
        assert item.targets
        assert all(t.app in apps for t in item.targets)


def test_every_disruption_has_a_scenario() -> None:
    assert {s.disruption for s in SCENARIOS} == set(NAMES)


def test_unknown_scenario_names_the_valid_ones() -> None:
    with pytest.raises(UnknownName) as caught:
        scenario("pod-delete-typo")
    message = str(caught.value)
    assert "\n" not in message
    assert "lp2021891-pod-delete" in message
    assert "pod-delete-typo" in message


def test_stack_relates_probe_to_router_and_to_its_peer_app() -> None:
    stack = default_stack("./probe.charm")
    assert ("probe:database", "mysql-router-k8s:database") in stack.relations
    assert ("probe:probe-provider", "probe-peer:probe-requirer") in stack.relations
    assert {s.app for s in stack.apps if s.trust} == {"mysql-k8s", "mysql-router-k8s"}
