"""Issue 27: the disruptions beyond the pod are catalogued (for ``repro predict``), each
version range citing the Juju source of its line, and what is unconfirmed says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.catalogue import DEFAULT_PATH, CatalogueError, load
from harness.catalogue.names import LIFECYCLE, NAMES, PODSPEC, PREDICT_ONLY, not_runnable
from harness.common.errors import UnknownName

# The Juju lines read (the juju mirror's): tag juju-2.9.31, the 3.6 branch at 3.6-beta2,
# main at 4.0-beta5. A range's sources must point at its own line's code.
LINES = {
    "2.9.31": "/blob/juju-2.9.31/",
    "3.6": "/87e38e5f62be5299bb4c23021f8e1274240f51a3/",
    "4.0": "/ce5b95b820c02f29fd94fb1d4d50795b4c8994b6/",
}


def _branches(name: str) -> list[str | None]:
    return list(load().variants(name))


def test_the_five_are_catalogued_apart_from_what_the_harness_runs() -> None:
    assert PREDICT_ONLY == (
        "controller-restart",
        "unit-network-cut",
        "container-kill",
        "node-drain",
        "model-upgrade",
    )
    assert not set(PREDICT_ONLY) & (set(NAMES) | set(PODSPEC))
    every = set(NAMES) | set(PREDICT_ONLY) | set(PODSPEC) | set(LIFECYCLE)
    assert set(load().disruptions()) == every
    for name in PREDICT_ONLY:
        problem, fix = not_runnable(name) or ("", "")
        assert problem == f"{name} is catalogued (repro predict) only, not yet runnable"
        assert f"repro predict {name}" in fix
    assert not_runnable("pod-delete") is None


def test_a_catalogue_missing_one_of_them_is_refused(tmp_path: Path) -> None:
    doc: dict[str, Any] = yaml.safe_load(DEFAULT_PATH.read_text(encoding="utf-8"))
    doc["entries"] = [e for e in doc["entries"] if e["disruption"] != "node-drain"]
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")

    with pytest.raises(CatalogueError, match="no entry for node-drain"):
        load(path)


@pytest.mark.parametrize("line", list(LINES))
@pytest.mark.parametrize("name", PREDICT_ONLY)
def test_every_branch_cites_the_juju_source_of_each_line(name: str, line: str) -> None:
    for variant in _branches(name):
        expectation = load().expect(name, line, variant=variant)
        urls = [source.url for source in expectation.sources]
        assert any(LINES[line] in url for url in urls), (expectation.label, urls)


def test_a_controller_restart_reruns_start_because_every_sidecar_uniter_is_a_reboot() -> None:
    catalogue = load()
    for version in ("2.9.31", "3.6", "4.0"):
        e = catalogue.expect("controller-restart", version)
        (reboot,) = [
            s for s in e.sources if "rebootDetected" in s.claim and s.url.endswith("uniter.go")
        ]
        assert LINES[version] in reboot.url
        assert "(*Uniter).loop" in reboot.claim
        assert e.hooks == ("start",)
        assert (e.pod_uid, e.unit_identity, e.relation_data) == ("same", "kept", "kept")
        assert e.survives["charm-dir"] is True  # hence no upgrade-charm
        sequence = e.required_hooks(["workload"], leader=False)
        assert not {"install", "upgrade-charm", "config-changed", "stop"} & set(sequence)
    # Before 4.0 a non-leader is also told leader settings changed (in-memory version).
    assert catalogue.expect("controller-restart", "3.6").required_hooks(
        ["workload"], leader=False
    ) == ("start", "leader-settings-changed", "workload-pebble-ready")
    assert catalogue.expect("controller-restart", "4.0").required_hooks(
        ["workload"], leader=False
    ) == ("start", "workload-pebble-ready")
    # Before 2.9.4 a new uniter ran no implicit start.
    assert catalogue.expect("controller-restart", "2.9.3").hooks == ()


def test_the_charm_container_restarts_in_an_outage_until_3_6_where_probes_hold() -> None:
    for name in ("controller-restart", "unit-network-cut"):
        for version in ("2.9.43", "3.5"):
            e = load().expect(name, version)
            assert e.restart_count == "increments", (name, version)
            assert e.survives["container-root"] is False
            assert any(s.unverified for s in e.sources if s.checks == ("pod-identity",))
        for version in ("3.6", "4.0"):
            e = load().expect(name, version)
            assert e.restart_count == "unchanged", (name, version)
            assert "18468" in " ".join(s.claim + s.url for s in e.sources)


def test_a_cut_of_the_whole_pod_restarts_every_container() -> None:
    e = load().expect("unit-network-cut", "3.6", variant="probes-cut")
    assert (e.restart_count, e.survives["container-root"]) == ("increments", False)
    assert e.required_hooks(["workload"], leader=True) == ("start", "workload-pebble-ready")


@pytest.mark.parametrize("version", ["2.9.3", "2.9.31", "2.9.43", "3.4", "3.6", "4.0"])
def test_container_kill_expects_what_container_restart_by_kill_does(version: str) -> None:
    catalogue = load()
    for container in ("charm", "workload"):
        for signal in ("KILL", "OOM"):
            kill = catalogue.expect("container-kill", version, container=container, signal=signal)
            restart = catalogue.expect(
                "container-restart", version, container=container, signal=signal
            )
            fields = ("hooks", "optional", "survives", "scope", "restart_count", "pebble_state")
            for field in fields:
                assert getattr(kill, field) == getattr(restart, field), (container, field)
    with pytest.raises(UnknownName, match="no branch for container"):
        catalogue.expect("container-kill", version, container="charm", signal="TERM")


@pytest.mark.parametrize("version", ["2.9.3", "2.9.31", "2.9.43", "3.6", "4.0"])
def test_a_drain_and_a_model_upgrade_replace_pods_as_pod_delete_does(version: str) -> None:
    catalogue = load()
    delete = catalogue.expect("pod-delete", version)
    for name, order in (("node-drain", "one"), ("model-upgrade", "highest-ordinal-first")):
        e = catalogue.expect(name, version)
        assert (e.hooks, e.optional, e.survives) == (
            delete.hooks,
            delete.optional,
            delete.survives,
        )
        assert (e.pod_uid, e.unit_order) == ("new", order)
        assert e.termination_grace_seconds == delete.termination_grace_seconds
        assert e.stop_budget_seconds == delete.stop_budget_seconds
    if version != "2.9.3":
        for name in ("node-drain", "model-upgrade"):
            assert [b.branch for b in catalogue.branches(name, version)] == [
                "main",
                "interrupted-stop",
            ]


def test_who_rolls_the_pods_on_a_model_upgrade_changed_with_pr_14974() -> None:
    older = " ".join(s.claim for s in load().expect("model-upgrade", "2.9.31").sources)
    newer = " ".join(s.claim for s in load().expect("model-upgrade", "3.6").sources)
    assert "upgradeApplication calls app.Upgrade" in older
    assert "Sidecar charms don't have an upgrade step" in newer


@pytest.mark.parametrize("name", PREDICT_ONLY)
def test_what_no_run_has_shown_is_marked_so(name: str) -> None:
    # high means read in source and seen in a run: none of these has been run.
    for variant in _branches(name):
        for version in ("2.9.31", "3.6", "4.0"):
            e = load().expect(name, version, variant=variant)
            assert e.confidence != "high", e.label
            if e.confidence == "low":
                assert any(s.confidence == "low" and s.unverified for s in e.sources), e.label
    # The claims only inferred (what the outage does to probes, juju status while Pending,
    # the 4.0 roll) are the entries' low ones.
    assert load().expect("controller-restart", "3.6").confidence == "low"
