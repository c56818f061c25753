"""The expectation catalogue: its data keeps its rules, and the loader enforces them."""

from __future__ import annotations

import copy
import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.catalogue import DEFAULT_PATH, LIFECYCLE, PODSPEC, CatalogueError, load
from harness.catalogue.hooknames import is_valid, parse
from harness.catalogue.names import NAMES, PREDICT_ONLY
from harness.common.errors import HarnessError, UnknownName
from harness.common.versions import JujuVersion

V = JujuVersion.parse


def _raw() -> dict[str, Any]:
    loaded = yaml.safe_load(DEFAULT_PATH.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _entry(doc: dict[str, Any], disruption: str) -> dict[str, Any]:
    found = next(e for e in doc["entries"] if e["disruption"] == disruption)
    assert isinstance(found, dict)
    return found


# ------------------------------------------------------------------------ the data


def test_every_entry_has_a_source_with_a_url() -> None:
    for entry in load().entries:
        assert entry.sources, entry.label
        for source in entry.sources:
            assert source.url.startswith("https://"), (entry.label, source.url)
            assert source.claim, entry.label


def test_ranges_of_one_disruption_do_not_overlap_and_cover_2_9_onwards() -> None:
    """...up to where their kind of charm is gone (podspec charms' disruptions: 4.0)."""
    catalogue = load()
    groups: dict[tuple[str, str | None], list[tuple[JujuVersion, JujuVersion | None]]] = {}
    for entry in catalogue.entries:
        high = None if entry.juju_max is None else V(entry.juju_max)
        groups.setdefault((entry.disruption, entry.variant), []).append((V(entry.juju_min), high))
    for key, ranges in groups.items():
        ranges.sort(key=lambda r: r[0])
        # The main branch covers 2.9.0 on; a branch starts where its behaviour exists.
        if key[1] is None:
            assert ranges[0][0] == V("2.9"), key
        gone = catalogue.gone.get(key[0])
        assert ranges[-1][1] == (None if gone is None else V(gone.juju_min)), key
        for (_, high), (next_low, _) in itertools.pairwise(ranges):
            assert high == next_low, key  # contiguous: no overlap, no gap


def test_every_disruption_and_lifecycle_entry_is_catalogued() -> None:
    # PREDICT_ONLY: catalogued for `repro predict`, not yet runnable (issue 27).
    expected = set(NAMES) | set(PREDICT_ONLY) | set(PODSPEC) | set(LIFECYCLE)
    assert set(load().disruptions()) == expected


@pytest.mark.parametrize("version", ["2.9.43", "3.6"])
@pytest.mark.parametrize("name", [*NAMES, *LIFECYCLE])
def test_expect_answers_for_every_name_on_2_9_and_3_6(name: str, version: str) -> None:
    expectation = load().expect(name, V(version))
    assert expectation.disruption == name
    assert expectation.covers(V(version))
    assert expectation.variant is None


def test_expect_takes_a_version_string_too() -> None:
    assert load().expect("pod-delete", "3.6") == load().expect("pod-delete", V("3.6"))


def test_the_default_catalogue_is_read_once() -> None:
    assert load() is load()


def test_hook_names_in_the_catalogue_are_juju_hooks_or_templates() -> None:
    for entry in load().entries:
        for hook in (*entry.hooks, *(h.hook for h in entry.optional), *entry.background):
            assert is_valid(hook), (entry.label, hook)


# --------------------------------------------------------------------- the facts


def test_pod_delete_reruns_the_upgrade_sequence_on_a_fresh_pod() -> None:
    for version in ("2.9.43", "3.6"):
        e = load().expect("pod-delete", version)
        assert e.hooks == ("stop", "upgrade-charm", "config-changed", "start")
        assert e.survives == {"container-root": False, "charm-dir": False, "storage": True}
        assert (e.pod_uid, e.relation_data, e.unit_identity) == ("new", "kept", "kept")
        assert [bug.id for bug in e.known_bugs] == ["LP#2021891"]


def test_node_restart_runs_only_start_on_the_same_pod() -> None:
    e = load().expect("node-restart", "2.9.43")
    assert e.hooks == ("start",)
    assert e.survives == {"container-root": False, "charm-dir": True, "storage": True}
    assert (e.pod_uid, e.restart_count) == ("same", "increments")
    assert any("bugs.launchpad.net/juju/+bug/2021891" in s.url for s in e.sources)
    (bug,) = e.known_bugs
    assert bug.juju_does == ("start",)
    assert bug.fixed_in is None


def test_pod_template_changes_keep_relation_data_since_2_6_4() -> None:
    for name in ("pod-spec-change", "charm-pod-spec-change", "resource-refresh"):
        e = load().expect(name, "3.6")
        assert e.relation_data == "kept"
        assert e.unit_order == "highest-ordinal-first"
        (bug,) = e.known_bugs
        assert (bug.id, bug.kind, bug.fixed_in) == ("LP#1830745", "relation-data", "2.6.4")
        assert bug.is_fixed_in(V("2.9"))
        assert not bug.is_fixed_in(V("2.6.3"))
        # What keeps a sidecar unit (and its databags): units keyed by ordinal.
        keyed = [s for s in e.sources if "UpsertCAASUnit" in s.claim]
        assert keyed
        assert "relation" in keyed[0].checks
        assert "zero running pods" in bug.notes
        assert "0 pods reported running" in bug.quote
    spec = load().expect("pod-spec-change", "3.6")
    assert any(s.url == "https://github.com/juju/juju/pull/10270" for s in spec.sources)


def test_termination_grace_period_splits_the_pod_replacing_ranges() -> None:
    for name in ("pod-delete", "pod-spec-change", "resource-refresh", "charm-refresh"):
        assert load().expect(name, "2.9.43").termination_grace_seconds == 300
        assert load().expect(name, "3.6").termination_grace_seconds == 30


def test_container_restart_requires_pebble_ready_of_the_restarted_container() -> None:
    e = load().expect("container-restart", "3.6")
    assert e.scope == "container"
    assert e.required_hooks(containers=["workload"]) == ("workload-pebble-ready",)
    charm = load().expect("container-restart", "3.6", variant="charm")
    assert charm.hooks == ("stop", "start")
    assert load().expect("container-restart", "3.6", variant="charm-kill").hooks == ("start",)


def test_scale_down_up_removes_units_and_deploys_new_ones() -> None:
    e = load().expect("scale-down-up", "3.6")
    assert e.hooks == ("stop", "remove")
    assert (e.unit_identity, e.unit_order) == ("new", "all-at-once")
    assert e.new_units is not None
    assert e.new_units.disruption == "deploy"


def test_pebble_ready_is_required_after_the_pod_churn_sequence_but_unordered() -> None:
    e = load().expect("pod-delete", "3.6")
    assert e.required_hooks(containers=["workload"]) == (
        "stop",
        "upgrade-charm",
        "config-changed",
        "start",
        "workload-pebble-ready",
    )
    # The fresh agent runs pebble-ready once idle after start (resolver order).
    pebble = next(h for h in e.optional if h.required and "pebble" in h.hook)
    assert pebble.where == "after:start"


def test_deploy_sequence_depends_on_leadership() -> None:
    e = load().expect("deploy", "3.6")
    leader = e.expected_sequence(containers=["workload"], storages=["journal"], leader=True)
    follower = e.expected_sequence(containers=["workload"], storages=["journal"], leader=False)
    # storage-attached before config-changed, as every recorded Kubernetes debug-log has it
    assert leader[:5] == (
        "install",
        "leader-elected",
        "journal-storage-attached",
        "config-changed",
        "start",
    )
    assert follower[:5] == (
        "install",
        "leader-settings-changed",
        "journal-storage-attached",
        "config-changed",
        "start",
    )
    assert "workload-pebble-ready" in follower
    assert "leader-elected" not in follower


def test_to_json_has_what_repro_predict_prints() -> None:
    data = load().expect("pod-delete", "3.6").to_json(containers=["mysql-router"])
    json.dumps(data)  # serialisable as is
    assert data["hooks"] == [
        "stop",
        "upgrade-charm",
        "config-changed",
        "start",
        "mysql-router-pebble-ready",
    ]
    assert data["survives"] == {"container-root": False, "charm-dir": False, "storage": True}
    assert all(s["url"].startswith("https://") for s in data["sources"])
    assert data["known_bugs"][0]["id"] == "LP#2021891"
    assert data["juju"] == {"min": "3.6", "max": "4.0"}


# ------------------------------------------------------------------------- errors


def test_unknown_disruption_is_a_one_line_error_naming_the_valid_ones() -> None:
    with pytest.raises(UnknownName) as caught:
        load().expect("pod-explode", "3.6")
    message = str(caught.value)
    assert "\n" not in message
    assert "pod-explode" in message
    for name in (*NAMES, *LIFECYCLE):
        assert name in message


def test_a_version_before_2_9_is_not_covered() -> None:
    with pytest.raises(UnknownName) as caught:
        load().expect("pod-delete", "2.8.1")
    assert "\n" not in str(caught.value)
    assert "2.9 and later" in str(caught.value)


def test_an_unknown_variant_or_garbage_version_is_refused() -> None:
    with pytest.raises(UnknownName, match="choose one of: charm, charm-kill"):
        load().expect("container-restart", "3.6", variant="sidecar")
    with pytest.raises(UnknownName, match="not a Juju version"):
        load().expect("pod-delete", "latest")


def test_overlapping_ranges_are_refused(tmp_path: Path) -> None:
    doc = _raw()
    _entry(doc, "node-restart")["ranges"] = [
        {"juju_min": "2.9", "juju_max": "3.4"},
        {"juju_min": "3.3", "juju_max": None},
    ]
    with pytest.raises(CatalogueError, match=r"node-restart.*overlaps") as caught:
        load(_write(tmp_path, doc))
    assert "\n" not in str(caught.value)


def test_a_gap_or_a_bounded_last_range_is_refused(tmp_path: Path) -> None:
    doc = _raw()
    _entry(doc, "node-restart")["ranges"] = [
        {"juju_min": "2.9", "juju_max": "3.1"},
        {"juju_min": "3.2", "juju_max": None},
    ]
    with pytest.raises(CatalogueError, match="leaves a gap"):
        load(_write(tmp_path, doc))
    doc = _raw()
    _entry(doc, "node-restart")["ranges"] = [{"juju_min": "2.9", "juju_max": "4.0"}]
    with pytest.raises(CatalogueError, match="must be unbounded"):
        load(_write(tmp_path, doc))


def test_an_entry_without_a_source_is_refused(tmp_path: Path) -> None:
    doc = _raw()
    _entry(doc, "pod-delete")["sources"] = []
    with pytest.raises(CatalogueError, match=r"pod-delete.*no source"):
        load(_write(tmp_path, doc))


def test_a_source_pointing_at_no_ref_is_refused(tmp_path: Path) -> None:
    doc = _raw()
    _entry(doc, "pod-delete")["sources"] = [{"ref": "nowhere", "claim": "trust me"}]
    with pytest.raises(CatalogueError, match="not in refs"):
        load(_write(tmp_path, doc))


def test_a_misspelt_hook_is_refused(tmp_path: Path) -> None:
    doc = _raw()
    _entry(doc, "pod-delete")["hooks"] = ["stop", "upgrade_charm"]
    with pytest.raises(CatalogueError, match="upgrade_charm"):
        load(_write(tmp_path, doc))
    doc = _raw()
    _entry(doc, "pod-delete")["optional"] = [{"hook": "{pod}-pebble-ready", "where": "anywhere"}]
    with pytest.raises(CatalogueError, match="template variable"):
        load(_write(tmp_path, doc))


def test_an_unknown_disruption_name_in_the_file_is_refused(tmp_path: Path) -> None:
    doc = _raw()
    extra = copy.deepcopy(_entry(doc, "node-restart"))
    extra["disruption"] = "node-reboot"
    extra["known_bugs"] = []
    doc["entries"].append(extra)
    with pytest.raises(CatalogueError, match="unknown disruption 'node-reboot'"):
        load(_write(tmp_path, doc))


def test_a_missing_disruption_is_refused(tmp_path: Path) -> None:
    doc = _raw()
    doc["entries"] = [e for e in doc["entries"] if e["disruption"] != "charm-refresh"]
    with pytest.raises(CatalogueError, match="no entry for charm-refresh"):
        load(_write(tmp_path, doc))


def test_unreadable_or_invalid_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="cannot read catalogue"):
        load(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("entries: [unclosed\n", encoding="utf-8")
    with pytest.raises(CatalogueError, match="not valid YAML") as caught:
        load(bad)
    assert "\n" not in str(caught.value)


def test_the_catalogue_ships_inside_the_package() -> None:
    assert DEFAULT_PATH.parent.name == "catalogue"
    assert DEFAULT_PATH.parent.parent.name == "harness"


# --------------------------------------------------------------------- hook names


def test_templates_match_their_family_and_the_known_names_only() -> None:
    pebble = parse("{container}-pebble-ready")
    assert pebble.match("mysql-router-pebble-ready", {}) == "mysql-router"
    assert pebble.match("workload-pebble-ready", {"container": ["charm"]}) is None
    assert pebble.match("pebble-ready", {}) is None
    relation = parse("{endpoint}-relation-changed")
    assert relation.match("backend-database-relation-changed", {}) == "backend-database"
    assert parse("start").match("start", {}) == ""
    assert not is_valid("{container}-relation-changed")
    assert not is_valid("starts")


# ------------------------------------------------------- version splits (issue 11)

PODS_REPLACED = ("pod-delete", "pod-spec-change", "charm-pod-spec-change", "resource-refresh")
PODS_REPLACED += ("charm-refresh",)


@pytest.mark.parametrize(
    ("version", "grace", "budget"),
    [
        ("2.9.4", 30, 30),
        ("2.9.31", 30, 30),
        ("2.9.32", 300, 300),
        ("2.9.34", 300, 300),
        ("2.9.35", 300, 5),  # Pebble is PID 1 from PR 14635 (issue 23)
        ("2.9.42", 300, 5),
        ("2.9.43", 300, 300),
        ("3.0", 300, 5),
        ("3.1.2", 300, 5),
        ("3.1.3", 300, 300),
        ("3.2", 300, 5),  # 3.2.0 came before PR 15313 (issue 23)
        ("3.2.1", 300, 300),
        ("3.3", 30, 30),
        ("3.6", 30, 30),
        ("4.0", 30, 30),
    ],
)
def test_grace_period_and_stop_budget_per_version(version: str, grace: int, budget: int) -> None:
    for name in PODS_REPLACED:
        e = load().expect(name, version)
        assert (e.termination_grace_seconds, e.stop_budget_seconds) == (grace, budget), name
        assert any("timing" in s.checks for s in e.sources), name


def test_before_2_9_4_a_new_pod_runs_neither_stop_nor_start() -> None:
    for name in PODS_REPLACED:
        e = load().expect(name, "2.9.3")
        assert "stop" not in e.hooks, name
        assert "start" not in e.hooks, name
        assert e.stop_budget_seconds is None
        assert load().expect(name, "2.9.4").hooks[0] == "stop"
    assert load().expect("node-restart", "2.9.0").hooks == ()
    assert load().expect("node-restart", "2.9.4").hooks == ("start",)


def test_every_fresh_agent_runs_leader_settings_changed_then_every_pebble_ready() -> None:
    containers = ["workload", "sidecar"]
    for name in (*PODS_REPLACED, "node-restart"):
        follower = load().expect(name, "3.6").required_hooks(containers, leader=False)
        tail = ("start", "leader-settings-changed", "workload-pebble-ready")
        assert follower[-4:-1] == tail, name
        assert follower[-1] == "sidecar-pebble-ready", name
        leader = load().expect(name, "3.6").required_hooks(containers, leader=True)
        assert "leader-settings-changed" not in leader, name
        # Juju 4.0 has no leader-settings-changed hook at all.
        on_4 = load().expect(name, "4.0")
        assert "leader-settings-changed" not in on_4.required_hooks(containers, leader=False)
        assert all(h.hook != "leader-settings-changed" for h in on_4.optional), name


def test_replayed_custom_notices_are_background_from_3_4() -> None:
    assert "{container}-pebble-custom-notice" not in load().expect("pod-delete", "3.3").background
    for name in (*PODS_REPLACED, "node-restart", "container-restart"):
        assert "{container}-pebble-custom-notice" in load().expect(name, "3.4").background


def test_container_restart_branches_by_container_and_signal() -> None:
    c = load()
    charm_term = c.expect("container-restart", "3.6", container="charm", signal="SIGTERM")
    assert charm_term.variant == "charm"
    assert charm_term.hooks == ("stop", "start")
    assert charm_term.required_hooks(["workload"], leader=False)[-2:] == (
        "leader-settings-changed",
        "workload-pebble-ready",
    )
    for signal in ("KILL", "sigkill", "OOM", "9"):
        kill = c.expect("container-restart", "3.6", container="charm", signal=signal)
        assert (kill.variant, kill.hooks) == ("charm-kill", ("start",)), signal
    for signal in (None, "TERM", "KILL", "OOM"):
        workload = c.expect("container-restart", "3.6", container="workload", signal=signal)
        assert workload.variant is None
        assert workload.required_hooks(["workload"]) == ("workload-pebble-ready",)
    # Charm container with no signal given: SIGTERM, as a `kill 1` sends.
    assert c.expect("container-restart", "3.6", container="charm").variant == "charm"


def test_charm_container_stop_budget_follows_pebbles_kill_delay() -> None:
    c = load()
    budgets = {
        v: c.expect("container-restart", v, variant="charm").stop_budget_seconds
        for v in ("2.9.34", "2.9.37", "2.9.43", "3.1.2", "3.1.3", "3.6")
    }
    assert budgets == {
        "2.9.34": None,
        "2.9.37": 5,
        "2.9.43": 1800,
        "3.1.2": 5,
        "3.1.3": 1800,
        "3.6": 1800,
    }


def test_pebble_state_survives_a_workload_container_restart_from_3_5() -> None:
    assert load().expect("container-restart", "3.4").pebble_state == "lost"
    assert load().expect("container-restart", "3.5").pebble_state == "kept"


def test_a_bad_signal_or_a_contradicting_variant_is_a_one_line_error() -> None:
    with pytest.raises(UnknownName, match=r"unknown signal 'HUP'.*TERM, KILL, OOM"):
        load().expect("container-restart", "3.6", container="charm", signal="HUP")
    with pytest.raises(UnknownName, match="contradicts"):
        load().expect("container-restart", "3.6", variant="charm", container="workload")
    with pytest.raises(UnknownName, match="container-restart and container-kill only"):
        load().expect("pod-delete", "3.6", container="charm")


def test_every_pod_replacing_disruption_has_an_interrupted_stop_branch() -> None:
    for name in PODS_REPLACED:
        branches = load().branches(name, "3.6")
        assert [b.branch for b in branches][:2] == ["main", "interrupted-stop"], name
        interrupted = branches[1]
        assert interrupted.selected_by == "stop-not-completed"
        assert interrupted.hooks == ("stop", "start")
        assert "upgrade-charm" not in interrupted.required_hooks(["workload"], leader=False)
        assert "config-changed" not in interrupted.required_hooks(["workload"], leader=False)
        with pytest.raises(UnknownName, match=r"exists from Juju 2\.9\.4"):
            load().expect(name, "2.9.3", variant="interrupted-stop")


def test_pod_spec_change_has_a_second_roll_branch() -> None:
    second = load().expect("pod-spec-change", "3.6", variant="second-roll")
    assert second.selected_by == "second-roll"
    assert second.hooks == load().expect("pod-spec-change", "3.6").hooks * 2


def test_scale_down_up_tears_down_fully_from_2_9_43_and_3_1_3() -> None:
    names: dict[str, Any] = {"containers": ["workload"], "endpoints": ["db"], "storages": ["data"]}
    for version in ("2.9.43", "3.1.3", "3.6"):
        e = load().expect("scale-down-up", version)
        assert e.required_hooks(**names) == (
            "data-storage-detaching",
            "db-relation-departed",
            "db-relation-broken",
            "stop",
            "remove",
        ), version
    for version in ("2.9.42", "3.0", "3.1.2"):
        assert load().expect("scale-down-up", version).required_hooks(**names) == (), version


def test_scale_down_up_reuses_names_and_storage_with_empty_unit_databags() -> None:
    e = load().expect("scale-down-up", "3.6")
    assert (e.unit_name, e.unit_identity) == ("reused", "new")
    assert e.survives["storage"] is True
    assert (e.relation_data, e.app_relation_data) == ("lost", "kept")
    assert any("UnitIntroduction" in s.claim for s in e.sources)


def test_the_table_covers_every_boundary_the_issue_lists() -> None:
    boundaries = {str(v) for v in load().boundaries()}
    # A series' first boundary takes its pre-releases (juju/version sorts 3.3-beta1 before
    # 3.3.0): 3.0, 3.3 and 3.5 start at their first beta (issue 23).
    listed = {"2.9.0", "2.9.4", "2.9.32", "2.9.35", "2.9.43", "3.0-beta1", "3.1.3"}
    listed |= {"3.3-beta1", "3.4.0", "3.5-beta1", "3.6.0", "4.0.0"}
    assert listed <= boundaries


def test_a_low_confidence_claim_says_why_and_no_text_says_how_it_was_written() -> None:
    text = DEFAULT_PATH.read_text(encoding="utf-8")
    for phrase in (
        "could not be read",
        "task brief",
        "DESIGN.md",
        "this environment",
        "from here",
    ):
        assert phrase not in text, phrase
    for entry in load().entries:
        for source in entry.sources:
            if source.confidence == "low":
                assert source.unverified, (entry.label, source.claim)


def test_the_lp2021891_expectation_is_the_reporters_own_words() -> None:
    # Verbatim, the report's own unclosed backtick included: "`sudo microk8s start)".
    seed = (
        "`upgrade-charm` is not fired when a pod is deleted with `kubectl delete pod` (or "
        "`upgrade-charm` is fired after `sudo microk8s stop` and `sudo microk8s start)"
    )
    for bug in load().bugs("LP#2021891"):
        assert " ".join(bug.quote.split()).endswith(seed)
        assert "unverified" not in bug.notes


def test_a_fact_with_a_gap_or_without_a_source_is_refused(tmp_path: Path) -> None:
    doc = _raw()
    doc["juju_facts"]["termination_grace_seconds"][1]["juju_min"] = "2.9.33"
    with pytest.raises(CatalogueError, match=r"should start at 2\.9\.32"):
        load(_write(tmp_path, doc))
    doc = _raw()
    del doc["juju_facts"]["stop_budget_seconds"][0]["ref"]
    del doc["juju_facts"]["stop_budget_seconds"][0]["claim"]
    with pytest.raises(CatalogueError, match="no source"):
        load(_write(tmp_path, doc))


def test_the_module_examples_hold() -> None:
    import doctest

    import harness.catalogue
    import harness.catalogue.judged

    assert doctest.testmod(harness.catalogue).failed == 0
    assert doctest.testmod(harness.catalogue.judged).failed == 0


# What Juju 4.0 is documented to change for charms (juju/juju
# docs/howto/upgrade-your-juju-deployment-from-36-to-40.md) is not a re-reading of its
# uniter: an expectation the catalogue carries over from 3.6 must not read as checked on 4.0.
def _pieces_at(juju: str) -> list[Any]:
    version = JujuVersion.parse(juju)
    pieces = [e for e in load().entries if e.covers(version)]
    return pieces + [e.new_units for e in pieces if e.new_units is not None]


def test_no_juju_40_expectation_is_stated_as_confirmed_on_40() -> None:
    pieces = _pieces_at("4.0.1")
    assert pieces
    for expectation in pieces:
        assert expectation.confidence == "low", f"{expectation.label} on 4.0.1"
        notes = [s.unverified for s in expectation.sources if s.confidence == "low"]
        assert any("4.0" in note for note in notes), f"{expectation.label}: nothing says why"


def test_the_36_expectations_keep_the_confidence_their_sources_give() -> None:
    raw = {(e["disruption"], e.get("variant")): e.get("confidence") for e in _raw()["entries"]}
    for expectation in _pieces_at("3.6.4"):
        said = raw.get((expectation.disruption, expectation.variant))
        if said is not None and not any(r.get("confidence") for r in _ranges(expectation)):
            assert expectation.confidence == said, expectation.label
    assert any(e.confidence == "high" for e in _pieces_at("3.6.4"))


def _ranges(expectation: Any) -> list[dict[str, Any]]:
    entry = next(
        e
        for e in _raw()["entries"]
        if (e["disruption"], e.get("variant")) == (expectation.disruption, expectation.variant)
    )
    return list(entry.get("ranges") or [])


_LOADED_BY_LOAD = """
import sys
from harness.catalogue import load
load()
print(" ".join(sorted(name for name in sys.modules if name.startswith("harness"))))
"""


def test_loading_the_catalogue_imports_only_the_catalogue_and_common() -> None:
    # A fresh interpreter: this one has imported every harness module already. The
    # disruption names live in a leaf (harness.catalogue.names), so reading the catalogue
    # imports no disruption, port or backend.
    done = subprocess.run(
        [sys.executable, "-c", _LOADED_BY_LOAD], capture_output=True, text=True, check=True
    )

    loaded = done.stdout.split()
    assert "harness.catalogue" in loaded
    assert not [name for name in loaded if name.startswith("harness.disrupt")]
    packages = {name.split(".")[1] for name in loaded if name != "harness"}
    assert packages == {"catalogue", "common"}
