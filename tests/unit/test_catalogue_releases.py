"""The catalogue's version boundaries, checked against the releases that carry each change.

Issue 23 re-read the catalogue's claims in Juju's source (the research is cited on each
entry): PR 15313 (a 30 min kill-delay for the agent's Pebble service, teardown before a
pod is removed, storage re-attached on scale-up) merged on 2023-05-29, while the 2.9
branch was heading for 2.9.43, 3.1 for 3.1.3 and 3.2 for 3.2.1: Juju 3.2.0 (26 May 2023)
and every 3.2 pre-release came before it. The charm container's PID 1 became Pebble with
PR 14635, merged while 2.9 was heading for 2.9.35. PR 15224 (a hook killed by a signal is
re-queued, not failed) first shipped in 2.9.42 and 3.1.2. Pre-releases sort before their
release (juju/version), so a boundary at the start of a series says where that series'
betas belong.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from harness.catalogue import DEFAULT_PATH, load
from harness.common.versions import JujuVersion

PODS_REPLACED = ("pod-delete", "pod-spec-change", "charm-pod-spec-change", "resource-refresh")
PODS_REPLACED += ("charm-refresh",)
NAMES: dict[str, Any] = {"containers": ["workload"], "endpoints": ["db"], "storages": ["data"]}
TEARDOWN = ("data-storage-detaching", "db-relation-departed", "db-relation-broken")
TEARDOWN += ("stop", "remove")


def load_refs() -> dict[str, Any]:
    return dict(yaml.safe_load(DEFAULT_PATH.read_text(encoding="utf-8"))["refs"])


# --------------------------------------------------------- PR 15313: 3.2.0 comes before it


@pytest.mark.parametrize(
    ("version", "budget"),
    [
        ("3.1.2", 5),
        ("3.1.3", 300),  # the 3.1 branch got it at 3.1.3 (first released: 3.1.5)
        ("3.1.5", 300),
        ("3.2-beta1", 5),
        ("3.2-beta3", 5),  # the seed's Juju (LP#2021891)
        ("3.2-rc1", 5),
        ("3.2.0", 5),
        ("3.2.1", 300),  # the 3.2 branch got it at 3.2.1 (first released: 3.2.2)
        ("3.2.2", 300),
        ("3.2.5", 300),
    ],
)
def test_the_stop_budget_on_the_3_1_and_3_2_lines_follows_pr_15313(
    version: str, budget: int
) -> None:
    for name in PODS_REPLACED:
        assert load().expect(name, version).stop_budget_seconds == budget, (name, version)


@pytest.mark.parametrize(
    ("version", "budget"),
    [("3.1.2", 5), ("3.1.5", 1800), ("3.2-beta3", 5), ("3.2.0", 5), ("3.2.2", 1800)],
)
def test_the_charm_containers_stop_budget_on_3_2_0_is_pebbles_default(
    version: str, budget: int
) -> None:
    charm = load().expect("container-restart", version, variant="charm")
    assert charm.stop_budget_seconds == budget


@pytest.mark.parametrize(
    ("version", "full"),
    [
        ("2.9.42", False),
        ("2.9.43", True),
        ("3.1.2", False),
        ("3.1.5", True),
        ("3.2-beta3", False),
        ("3.2.0", False),
        ("3.2.1", True),
        ("3.2.2", True),
    ],
)
def test_scale_down_teardown_is_complete_only_with_pr_15313(version: str, full: bool) -> None:
    hooks = load().expect("scale-down-up", version).required_hooks(**NAMES)
    assert hooks == (TEARDOWN if full else ()), version


def test_pr_15313s_release_cites_the_2_9_43_release_notes() -> None:
    e = load().expect("pod-delete", "2.9.43")
    budget = [s for s in e.sources if "timing" in s.checks and "kill-delay" in s.claim]
    assert budget
    assert all(s.confidence != "low" for s in budget)
    assert any("juju_2.9.x.md" in s.url for s in budget)


# ------------------------------------- storage across scale-down-up before PR 15313


@pytest.mark.parametrize("version", ["2.9.42", "3.0.5", "3.1.2", "3.2.0"])
def test_before_pr_15313_the_scaled_up_unit_gets_new_juju_storage_at_low_confidence(
    version: str,
) -> None:
    e = load().expect("scale-down-up", version)
    assert e.confidence == "low"
    storage = [s for s in e.sources if "new storage" in s.claim]
    assert storage, e.label
    assert all(s.confidence == "low" and s.unverified for s in storage)
    assert "re-attached" not in e.notes


@pytest.mark.parametrize("version", ["2.9.43", "3.1.5", "3.2.2", "3.6"])
def test_from_pr_15313_the_old_storage_is_re_attached(version: str) -> None:
    e = load().expect("scale-down-up", version)
    assert e.survives["storage"] is True
    assert any("UpsertCAASUnit" in s.claim and "AttachStorage" in s.claim for s in e.sources)


# ------------------------------------------------- the charm container's PID 1 (2.9.35)


@pytest.mark.parametrize(
    ("version", "budget", "charm"),
    [
        ("2.9.34", 300, None),
        ("2.9.35", 5, 5),
        ("2.9.36", 5, 5),
        ("2.9.37", 5, 5),
        ("2.9.42", 5, 5),
    ],
)
def test_pebble_is_pid_1_from_2_9_35(version: str, budget: int, charm: int | None) -> None:
    assert load().expect("pod-delete", version).stop_budget_seconds == budget
    restart = load().expect("container-restart", version, variant="charm")
    assert restart.stop_budget_seconds == charm


def test_the_2_9_35_range_says_what_a_newer_controller_does() -> None:
    e = load().expect("pod-delete", "2.9.35")
    text = " ".join(s.claim + " " + s.unverified for s in e.sources)
    assert "containerAgentPebbleVersion" in text
    assert "2.9.38" in text  # a 2.9.38+ controller keeps the agent as PID 1 for 2.9.35/36


# ------------------------------------------------------ pre-releases of a new series


@pytest.mark.parametrize(
    ("version", "like"),
    [
        ("3.0-rc2", "3.0.0"),
        ("3.0-rc3", "3.0.0"),
        ("3.1-beta1", "3.1.0"),
        ("3.3-beta1", "3.3.0"),  # PR 15848 merged while develop was heading for 3.3-beta1
        ("3.3-rc2", "3.3.0"),
    ],
)
def test_a_series_pre_release_is_judged_with_its_series(version: str, like: str) -> None:
    for name in (*PODS_REPLACED, "scale-down-up"):
        got, want = load().expect(name, version), load().expect(name, like)
        assert (got.termination_grace_seconds, got.stop_budget_seconds) == (
            want.termination_grace_seconds,
            want.stop_budget_seconds,
        ), (name, version)
        assert got.required_hooks(**NAMES) == want.required_hooks(**NAMES), (name, version)


@pytest.mark.parametrize("version", ["3.0-beta4", "3.0-beta5"])
def test_3_0_betas_come_before_pr_15313_and_before_pebble_was_pid_1(version: str) -> None:
    """Not 2.9.43's values (they sort below 3.0.0, after 2.9.43): no PR 15313 (2023), and
    no PR 14635 either (on the 3.0 line from 3.0-rc2): the agent is PID 1 and the 300 s
    grace period of PR 14135 bounds stop; a scale-down's teardown may be cut short."""
    for name in PODS_REPLACED:
        e = load().expect(name, version)
        assert (e.termination_grace_seconds, e.stop_budget_seconds) == (300, 300), name
    assert load().expect("scale-down-up", version).required_hooks(**NAMES) == ()
    charm = load().expect("container-restart", version, variant="charm")
    assert charm.stop_budget_seconds is None  # the agent is PID 1: no kill timer


def test_pebble_state_is_kept_from_3_5_beta1_as_the_source_gates_it() -> None:
    # pebbleCopyOnceVersion = 3.5-beta1 (caas/kubernetes/provider/application/application.go)
    assert load().expect("container-restart", "3.4.6").pebble_state == "lost"
    assert load().expect("container-restart", "3.5-beta1").pebble_state == "kept"


def test_4_0_pre_releases_still_run_leader_settings_changed() -> None:
    # juju main at 4.0-beta5 (2024-08-28) still runs it (worker/uniter/leadership/resolver.go)
    beta = load().expect("pod-delete", "4.0-beta5")
    assert "leader-settings-changed" in beta.required_hooks(["workload"], leader=False)
    release = load().expect("pod-delete", "4.0.0")
    assert "leader-settings-changed" not in release.required_hooks(["workload"], leader=False)


def test_every_version_named_here_parses_in_juju_grammar() -> None:
    for text in ("3.2-beta1", "3.3-beta1", "3.5-beta1", "3.0-beta1", "4.0-beta5"):
        assert JujuVersion.parse(text).prerelease


# ------------------------------------------------- interrupted stop and PR 15224


@pytest.mark.parametrize(
    ("version", "requeued"),
    [
        ("2.9.41", False),
        ("2.9.42", True),
        ("3.0.5", False),
        ("3.1.1", False),
        ("3.1.2", True),
        ("3.2.0", True),
        ("3.6", True),
    ],
)
def test_interrupted_stop_says_when_a_killed_stop_is_requeued_without_an_error(
    version: str, requeued: bool
) -> None:
    for name in PODS_REPLACED:
        e = load().expect(name, version, variant="interrupted-stop")
        assert e.hooks == ("stop", "start")
        assert ("re-queued" in e.notes) is requeued, (name, version, e.notes)
        assert "error" in e.notes  # the Pending path (an error, then a retry) is always possible
        if requeued:
            assert "Queued" in e.notes, e.notes  # only if the agent recorded it


# ------------------------------------------------ node restart, controller elsewhere


def test_node_restart_with_the_controller_off_the_node_still_runs_no_stop() -> None:
    off = load().expect("node-restart", "3.6", variant="controller-off-node")
    main = load().expect("node-restart", "3.6")
    assert off.hooks == main.hooks == ("start",)
    assert "stop" not in off.required_hooks(["workload"], leader=False)
    claims = " ".join(s.claim for s in off.sources)
    assert "SIGKILL" in claims
    assert "kubelite" in claims
    assert off.branch == "controller-off-node"
    assert off.selected_by is None  # a branch a person asks for; no observation picks it


# -------------------------------------------------- confidence raised with citations


def test_notice_replay_cites_the_notice_watcher_and_the_right_issue_title() -> None:
    e = load().expect("pod-delete", "3.6")
    replay = [s for s in e.sources if "pebblenotices.go" in s.url]
    assert replay, "the notice watcher's source is cited"
    assert "var after time.Time" in replay[0].claim
    assert replay[0].confidence != "low"
    refs = load_refs()
    assert "non-existent pebble changes" in refs["juju-issue-18934"]["title"]
    # check events can replay too (a second source for check-failed): each hook listed once
    assert any("perform-check" in s.claim for s in e.sources)
    assert len(set(e.background)) == len(e.background)


def test_4_0_without_leader_settings_changed_cites_the_4_0_resolver() -> None:
    e = load().expect("pod-delete", "4.0.1")
    cited = [s for s in e.sources if "leadership/resolver.go" in s.url and "2365bb25" in s.url]
    assert cited
    assert cited[0].confidence != "low"
