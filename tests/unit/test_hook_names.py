"""Hook names are spelled out from the charm's metadata wherever a run uses them (issue 23
point 1): settle, the verdict and the plan. ``{container}-pebble-ready`` names no log
line; a settle handed it must refuse it, never skip it (the rehearsal first showed a
workload container restart settling while awaiting no hook at all)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from live_fakes import FakeCluster, FakeJuju, make_lab, pod, status

from harness.catalogue import load
from harness.common.errors import HarnessError
from harness.lab.ports import AppSpec
from harness.observe.settle import wait_settled
from harness.scenario.hook_names import (
    KNOWN_CHARMS,
    UnexpandedHook,
    expanded,
    hook_names,
    plan_containers,
    required_per_unit,
)
from harness.scenario.scenarios import scenario
from harness.scenario.stack import Stack, default_stack
from harness.twin.charms import default_probe_dir

PROBE_DIR = str(Path(__file__).resolve().parents[2] / "charms" / "probe")


def test_the_default_stack_s_charms_name_their_containers_and_storage() -> None:
    names = hook_names(default_stack(PROBE_DIR), ["probe", "mysql-router-k8s", "mysql-k8s"])
    assert names.containers == {
        "probe": ("workload",),
        "mysql-router-k8s": ("mysql-router",),
        "mysql-k8s": ("mysql",),
    }
    assert names.storages["probe"] == ("journal",)
    assert names.storages["mysql-k8s"] == ("database",)
    assert KNOWN_CHARMS["mysql-router-k8s"].source.startswith("canonical/mysql-router-k8s")


def test_a_packed_probe_that_is_not_here_is_named_from_the_probe_s_own_metadata() -> None:
    """The twin stands in for a packed probe it cannot open: the run (a layer above) tells
    hook_names where the probe's source is."""
    stack = default_stack("/nowhere/probe_ubuntu-22.04-amd64.charm")
    names = hook_names(stack, ["probe"], probe_dir=default_probe_dir)
    assert names.containers["probe"] == ("workload",)
    with pytest.raises(UnexpandedHook, match="the hooks probe must run"):
        hook_names(stack, ["probe"])  # not told: refused, never guessed


def test_a_charm_whose_metadata_is_unknown_is_refused_in_one_line() -> None:
    stack = Stack(apps=(AppSpec("db", "postgresql-k8s"),), relations=(), watched=())
    with pytest.raises(UnexpandedHook, match="the hooks db must run") as raised:
        hook_names(stack, ["db"])
    assert "\n" not in str(raised.value)
    assert "--charm-source" in str(raised.value)


def test_every_disrupted_unit_awaits_its_own_charm_s_pebble_ready() -> None:
    names = hook_names(default_stack(PROBE_DIR), ["probe", "mysql-router-k8s"])
    required, by_quiet = required_per_unit(
        load().expect("pod-delete", "3.6"), ["mysql-router-k8s/0", "probe/0"], names
    )
    assert required["probe/0"][-1] == "workload-pebble-ready"
    assert required["mysql-router-k8s/0"][-1] == "mysql-router-pebble-ready"
    assert not by_quiet
    assert not any("{" in h for hooks in required.values() for h in hooks)


def test_a_workload_container_restart_awaits_that_container_s_pebble_ready() -> None:
    stack = default_stack(PROBE_DIR)
    names = hook_names(stack, ["probe"], containers={"probe": ("workload",)})
    expectation = load().expect("container-restart", "3.6", container="workload")
    required, _ = required_per_unit(expectation, ["probe/0"], names)
    assert required == {"probe/0": ("workload-pebble-ready",)}


def test_endpoint_hooks_are_said_to_be_left_to_the_quiet_window() -> None:
    names = hook_names(default_stack(PROBE_DIR), ["probe"])
    required, by_quiet = required_per_unit(
        load().expect("scale-down-up", "3.6"), ["probe/0"], names
    )
    assert required["probe/0"] == ("journal-storage-detaching", "stop", "remove")
    assert by_quiet == ("{endpoint}-relation-departed", "{endpoint}-relation-broken")


def test_a_template_whose_names_are_unknown_cannot_be_expanded() -> None:
    with pytest.raises(UnexpandedHook, match=r"\{container\}-pebble-ready"):
        expanded(["start", "{container}-pebble-ready"], {})
    assert expanded(["start", "{container}-pebble-ready"], {"container": ["a", "b"]}) == (
        "start",
        "a-pebble-ready",
        "b-pebble-ready",
    )


def test_the_plan_names_the_disrupted_charms_containers() -> None:
    stack = default_stack(PROBE_DIR)
    assert plan_containers(stack, scenario("lp2021891-pod-delete")) == (
        "mysql-router",
        "workload",
    )
    assert plan_containers(stack, scenario("container-restart")) == ("workload",)


def test_settle_refuses_a_template_instead_of_skipping_it() -> None:
    juju = FakeJuju(statuses_of=[status("probe/0")])
    lab = make_lab(juju, FakeCluster(pods_of={"probe": [pod("probe/0", "uid-1")]}))
    with pytest.raises(HarnessError, match=r"cannot wait for \{container\}-pebble-ready"):
        asyncio.run(
            wait_settled(
                lab,
                ("probe",),
                disrupted={"probe/0": None},
                required_hooks=("start", "{container}-pebble-ready"),
            )
        )
