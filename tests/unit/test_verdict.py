"""The verdict on hand-built observations and on real debug-logs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pytest

from harness.catalogue import load
from harness.catalogue.model import Expectation, Layer
from harness.catalogue.relation_keys import SPANS
from harness.common.errors import HarnessError
from harness.common.findings import Finding
from harness.common.observations import (
    ABSENT,
    ContainerStatus,
    Databag,
    FileState,
    HookRecord,
    PodIdentity,
    Snapshot,
    UnitStatus,
)
from harness.common.redact import looks_secret, redact, redacted
from harness.common.versions import JujuVersion
from harness.observe.debug_log import parse_lines
from harness.verdict.branches import choose_branch, describe_branches
from harness.verdict.files import DEFAULT_LAYERS
from harness.verdict.hooks import judge_sequence
from harness.verdict.judge import count, judge
from harness.verdict.known_bugs import judge_known_bug
from harness.verdict.units import units_for

SAMPLES = Path(__file__).parent.parent / "data" / "samples"
UNIT = "probe/0"
CHARM_DIR_MARKER = "/var/lib/juju/probe/charm-dir-incarnation"
JOURNAL = "/var/lib/juju/storage/journal/0/journal.jsonl"
LAYERS: Mapping[tuple[str, str], Layer] = {
    ("workload", "/probe/workload-marker"): "container-root",
    ("charm", "/tmp/probe/root-incarnation"): "container-root",
    ("charm", CHARM_DIR_MARKER): "charm-dir",
    ("charm", JOURNAL): "storage",
}
DIGEST_A = "sha256:" + "a" * 64
DIGEST_B = "sha256:" + "b" * 64
DIGEST_C = "sha256:" + "c" * 64
DIGEST_D = "sha256:" + "d" * 64


def expect(name: str, juju: str = "3.6", variant: str | None = None) -> Expectation:
    return load().expect(name, juju, variant=variant)


def records(hooks: Iterable[str], unit: str = UNIT, source: str = "journal") -> list[HookRecord]:
    out = []
    for seq, hook in enumerate(hooks):
        outcome = None
        if hook.endswith("!"):  # "name!" marks a hook that failed
            hook, outcome = hook[:-1], "failed"
        out.append(
            HookRecord(
                unit=unit,
                time=f"2026-12-02T13:{seq:02d}:00Z",
                kind="hook",
                source=source,  # type: ignore[arg-type]
                hook=hook,
                outcome=outcome,  # type: ignore[arg-type]
            )
        )
    return out


def pod(uid: str, restarts: Mapping[str, int], unit: str = UNIT) -> PodIdentity:
    return PodIdentity(
        unit=unit,
        name=unit.replace("/", "-"),
        uid=uid,
        phase="Running",
        containers=tuple(ContainerStatus(n, c, True) for n, c in restarts.items()),
    )


def files(unit: str = UNIT, **digests: str) -> tuple[FileState, ...]:
    paths = {
        "workload": ("workload", "/probe/workload-marker"),
        "root": ("charm", "/tmp/probe/root-incarnation"),
        "charm_dir": ("charm", CHARM_DIR_MARKER),
        "journal": ("charm", JOURNAL),
    }
    return tuple(FileState(unit, *paths[name], digest) for name, digest in digests.items())


def bag(data: Mapping[str, str], owner: str = UNIT, seen_by: str = UNIT) -> Databag:
    return Databag(
        relation_id=3,
        endpoint="database",
        remote_endpoint="database",
        owner=owner,
        scope="app" if "/" not in owner else "unit",
        seen_by=seen_by,
        source="show-unit",
        data=dict(data),
    )


def snapshot(
    pods: Sequence[PodIdentity] = (),
    file_states: Sequence[FileState] = (),
    relations: Sequence[Databag] = (),
    leader: bool | None = True,
    units: Sequence[str] = (UNIT,),
) -> Snapshot:
    statuses = (
        ()
        if leader is None
        else tuple(UnitStatus(u, "active", "", "idle", leader and u == units[0]) for u in units)
    )
    return Snapshot(
        taken_at="2026-12-02T13:00:00Z",
        pods=tuple(pods),
        files=tuple(file_states),
        relations=tuple(relations),
        statuses=statuses,
    )


def by_check(findings: Sequence[Finding], check: str) -> list[Finding]:
    return [f for f in findings if f.check == check]


POD_DELETE_BEFORE = snapshot(
    pods=[pod("uid-old-0000", {"charm": 0, "workload": 0})],
    file_states=files(workload=DIGEST_A, root=DIGEST_B, charm_dir=DIGEST_C, journal=DIGEST_D),
    relations=[bag({"endpoints": "10.1.2.3:6446", "database": "probe"})],
)
POD_DELETE_AFTER = snapshot(
    pods=[pod("uid-new-1111", {"charm": 0, "workload": 0})],
    file_states=files(workload=ABSENT, root=DIGEST_A, charm_dir=DIGEST_B, journal=DIGEST_D),
    relations=[bag({"endpoints": "10.1.2.3:6446", "database": "probe"})],
)


# --------------------------------------------------------------------------- a match


def test_pod_delete_as_catalogued_is_all_match_plus_the_known_bug() -> None:
    findings = judge(
        expect("pod-delete"),
        POD_DELETE_BEFORE,
        POD_DELETE_AFTER,
        records(["stop", "upgrade-charm", "config-changed", "start", "workload-pebble-ready"]),
        units=[UNIT],
        containers={"probe": ["workload"]},
        watched_layers=LAYERS,
    )
    (hooks,) = [f for f in by_check(findings, "hooks") if not f.subject.startswith("LP#")]
    assert hooks.verdict == "match", hooks
    assert hooks.subject == "probe/0 [journal]"
    assert hooks.observed.startswith("stop -> upgrade-charm")
    assert hooks.source.startswith("https://")
    files_found = {f.subject: f for f in by_check(findings, "file")}
    assert len(files_found) == 4
    assert all(f.verdict == "match" for f in files_found.values()), files_found
    assert files_found[f"probe/0 charm:{JOURNAL}"].observed.startswith("survived")
    assert "now absent" in files_found["probe/0 workload:/probe/workload-marker"].observed
    assert [f.verdict for f in by_check(findings, "relation")] == ["match"]
    (identity,) = by_check(findings, "pod-identity")
    assert identity.verdict == "match"
    assert "uid new" in identity.observed
    (bug,) = [f for f in findings if f.subject.startswith("LP#2021891")]
    assert bug.verdict == "known-bug"
    assert bug.source == "https://bugs.launchpad.net/juju/+bug/2021891"
    assert count(findings) == {
        "match": len(findings) - 1,
        "deviation": 0,
        "known-bug": 1,
        "undetermined": 0,
        "charm-error": 0,
    }


def test_the_2_9_range_judges_the_same_sequence_the_same_way() -> None:
    finding = judge_sequence(
        expect("pod-delete", "2.9.43"),
        ["stop", "upgrade-charm", "config-changed", "start", "workload-pebble-ready"],
        subject=UNIT,
        containers=["workload"],
    )
    assert finding.verdict == "match"


# ------------------------------------------------------------------------ deviations


def test_a_missing_upgrade_charm_is_a_deviation_and_meets_the_reporters_wish() -> None:
    observed = ["stop", "config-changed", "start", "workload-pebble-ready"]
    findings = judge(
        expect("pod-delete"),
        POD_DELETE_BEFORE,
        POD_DELETE_AFTER,
        records(observed),
        units=[UNIT],
        containers={"probe": ["workload"]},
        watched_layers=LAYERS,
    )
    hooks = next(f for f in findings if f.subject == "probe/0 [journal]")
    assert hooks.verdict == "deviation"
    assert "missing: upgrade-charm" in hooks.detail
    assert hooks.expected.startswith("stop -> upgrade-charm -> config-changed -> start")
    assert hooks.observed == " -> ".join(observed)
    # Juju no longer doing what LP#2021891 complains about: the strict xfail would pass.
    bug = next(f for f in findings if f.subject.startswith("LP#2021891"))
    assert bug.verdict == "match"
    assert count(findings)["deviation"] == 1


def test_a_hook_nobody_expects_is_a_deviation() -> None:
    finding = judge_sequence(
        expect("pod-delete"),
        ["install", "stop", "upgrade-charm", "config-changed", "start", "workload-pebble-ready"],
        subject=UNIT,
        containers=["workload"],
    )
    assert finding.verdict == "deviation"
    assert "unexpected: install (#1)" in finding.detail


def test_pebble_ready_of_the_new_pod_must_follow_start() -> None:
    e = expect("pod-delete")
    # The fresh agent runs pebble-ready only once idle, after the implicit start.
    before_start = ["stop", "upgrade-charm", "workload-pebble-ready", "config-changed", "start"]
    finding = judge_sequence(e, before_start, subject=UNIT, containers=["workload"])
    assert finding.verdict == "deviation"
    assert "missing: workload-pebble-ready (after:start)" in finding.detail
    # Only the old pod's pebble-ready, before the new charm arrived: the new one is missing.
    old_pod_only = ["workload-pebble-ready", "stop", "upgrade-charm", "config-changed", "start"]
    finding = judge_sequence(e, old_pod_only, subject=UNIT, containers=["workload"])
    assert finding.verdict == "deviation"
    assert "missing: workload-pebble-ready (after:start)" in finding.detail


def test_a_non_leader_must_run_leader_settings_changed_after_start_before_4_0() -> None:
    fresh = ["stop", "upgrade-charm", "config-changed", "start", "workload-pebble-ready"]
    follower = judge_sequence(
        expect("pod-delete", "3.6"), fresh, subject=UNIT, containers=["workload"], leader=False
    )
    assert follower.verdict == "deviation"
    assert "missing: leader-settings-changed (after:start)" in follower.detail
    with_it = [*fresh[:4], "leader-settings-changed", fresh[4]]
    assert (
        judge_sequence(
            expect("pod-delete", "3.6"),
            with_it,
            subject=UNIT,
            containers=["workload"],
            leader=False,
        ).verdict
        == "match"
    )
    # Juju 4.0 has no leader-settings-changed at all.
    on_4 = judge_sequence(
        expect("pod-delete", "4.0"), fresh, subject=UNIT, containers=["workload"], leader=False
    )
    assert on_4.verdict == "match", on_4.detail


def test_background_and_leadership_hooks_are_allowed_where_declared() -> None:
    finding = judge_sequence(
        expect("pod-delete"),
        [
            "stop",
            "update-status",
            "upgrade-charm",
            "config-changed",
            "start",
            "leader-settings-changed",
            "workload-pebble-ready",
            "database-relation-changed",
        ],
        subject=UNIT,
        containers=["workload"],
        leader=False,
    )
    assert finding.verdict == "match", finding.detail
    assert "ignored background: update-status, database-relation-changed" in finding.detail
    # leader-settings-changed is for followers only.
    leader = judge_sequence(
        expect("pod-delete"),
        ["stop", "upgrade-charm", "config-changed", "start", "leader-settings-changed"],
        subject=UNIT,
        leader=True,
    )
    assert leader.verdict == "deviation"


def test_a_failed_hook_that_was_retried_counts_once() -> None:
    findings = judge(
        expect("pod-delete"),
        POD_DELETE_BEFORE,
        POD_DELETE_AFTER,
        records(
            [
                "stop",
                "upgrade-charm",
                "config-changed!",
                "config-changed",
                "start",
                "x-pebble-ready",
            ]
        ),
        units=[UNIT],
        watched_layers=LAYERS,
    )
    hooks = next(f for f in findings if f.subject == "probe/0 [journal]")
    assert hooks.verdict == "match"
    assert "not run to completion: config-changed (failed)" in hooks.detail


def test_a_file_that_should_be_gone_but_survived_is_a_deviation() -> None:
    before = snapshot(
        pods=[pod("uid-0", {"charm": 0, "workload": 0})],
        file_states=files(workload=DIGEST_A, root=DIGEST_B, charm_dir=DIGEST_C),
    )
    after = snapshot(
        pods=[pod("uid-0", {"charm": 1, "workload": 1})],
        # The workload marker is still there: node-restart says container roots are fresh.
        file_states=files(workload=DIGEST_A, root=DIGEST_D, charm_dir=DIGEST_C),
    )
    findings = judge(
        expect("node-restart"),
        before,
        after,
        records(["start"]),
        units=[UNIT],
        watched_layers=LAYERS,
    )
    verdicts = {f.subject: (f.verdict, f.expected, f.observed) for f in by_check(findings, "file")}
    assert verdicts["probe/0 workload:/probe/workload-marker"][0] == "deviation"
    assert verdicts["probe/0 workload:/probe/workload-marker"][1] == "lost (container-root)"
    assert verdicts["probe/0 workload:/probe/workload-marker"][2].startswith("survived")
    assert verdicts["probe/0 charm:/tmp/probe/root-incarnation"][0] == "match"
    assert verdicts[f"probe/0 charm:{CHARM_DIR_MARKER}"] == (
        "match",
        "survives (charm-dir)",
        "survived (sha256:cccccccc…)",
    )
    (identity,) = by_check(findings, "pod-identity")
    assert identity.verdict == "match"
    assert "charm 0->1" in identity.observed


def test_a_marker_missing_before_the_disruption_cannot_prove_survival() -> None:
    before = snapshot(pods=[pod("u", {"charm": 0})], file_states=files(workload=ABSENT))
    after = snapshot(pods=[pod("u", {"charm": 1})], file_states=files(workload=ABSENT))
    findings = judge(expect("node-restart"), before, after, records(["start"]), units=[UNIT])
    (finding,) = by_check(findings, "file")
    assert finding.verdict == "deviation"
    assert "absent before" in finding.observed


def test_same_pod_uid_when_a_new_pod_was_expected_is_a_deviation() -> None:
    after = snapshot(
        pods=[pod("uid-old-0000", {"charm": 1, "workload": 1})],
        relations=POD_DELETE_AFTER.relations,
    )
    findings = judge(
        expect("pod-delete"),
        POD_DELETE_BEFORE,
        after,
        records(["stop", "upgrade-charm", "config-changed", "start", "workload-pebble-ready"]),
        units=[UNIT],
    )
    (identity,) = by_check(findings, "pod-identity")
    assert identity.verdict == "deviation"
    assert "uid same" in identity.observed
    assert identity.expected.startswith("uid new")


def test_relation_data_that_changed_is_a_deviation_showing_the_change() -> None:
    after = snapshot(
        pods=POD_DELETE_AFTER.pods,
        relations=[bag({"endpoints": "10.1.9.9:6446", "database": "probe", "extra": "1"})],
    )
    findings = judge(expect("pod-delete"), POD_DELETE_BEFORE, after, [], units=[UNIT])
    (relation,) = by_check(findings, "relation")
    assert relation.verdict == "deviation"
    assert relation.subject == "database:3 probe/0 (seen by probe/0, show-unit)"
    assert relation.expected == "kept (2 keys)"
    assert "endpoints: '10.1.2.3:6446' -> '10.1.9.9:6446'" in relation.observed
    assert "extra added = '1'" in relation.observed


def test_relation_data_that_vanished_is_lost() -> None:
    after = snapshot(pods=POD_DELETE_AFTER.pods, relations=[bag({})])
    findings = judge(expect("pod-delete"), POD_DELETE_BEFORE, after, [], units=[UNIT])
    (relation,) = by_check(findings, "relation")
    assert (relation.verdict, relation.observed) == ("deviation", "lost (emptied)")


def test_secrets_are_compared_by_digest_and_never_shown() -> None:
    old_secret, new_secret, token = "hunter2-old-cleartext", "s3cr3t-new-cleartext", "tok-123456"
    before = snapshot(
        pods=[pod("u0", {"charm": 0})],
        relations=[
            bag({"password": old_secret, "username": "relation-3"}),
            bag({"Secret-Token": token}, owner="mysql-k8s", seen_by=UNIT),
        ],
    )
    after = snapshot(
        pods=[pod("u1", {"charm": 0})],
        relations=[
            bag({"password": new_secret, "username": "relation-3"}),
            bag({"Secret-Token": token}, owner="mysql-k8s", seen_by=UNIT),
        ],
    )
    findings = judge(expect("pod-delete"), before, after, [], units=[UNIT])
    changed, kept = by_check(findings, "relation")
    assert changed.verdict == "deviation"
    assert f"password: {redacted(old_secret)} -> {redacted(new_secret)}" in changed.observed
    assert redacted(old_secret).startswith("<redacted sha256:")
    assert kept.verdict == "match"
    for finding in findings:
        text = " ".join(
            [finding.subject, finding.expected, finding.observed, finding.detail, finding.source]
        )
        for cleartext in (old_secret, new_secret, token):
            assert cleartext not in text


def test_redaction_rules() -> None:
    for key in ("password", "admin-PASSWORD", "tls-key", "token", "secret-id", "Secret-user"):
        assert looks_secret(key), key
    for key in ("username", "endpoints", "database"):
        assert not looks_secret(key), key
    safe = redact({"password": "pw", "user": "u"})
    assert safe["user"] == "u"
    assert safe["password"] != "pw"
    assert redacted("pw") != redacted("pw2")


# ------------------------------------------------------------------------ known bugs


def test_node_restart_giving_only_start_is_the_known_bug() -> None:
    bug = expect("node-restart").known_bugs[0]
    finding = judge_known_bug(bug, ["start", "workload-pebble-ready"], subject=UNIT)
    assert finding.verdict == "known-bug"
    assert finding.subject == "LP#2021891 probe/0"
    assert finding.observed == "start"
    assert finding.expected == "reporter: upgrade-charm -> start"
    # The reporter's own words, from the bug report; nothing about how it was written.
    assert "`upgrade-charm` is fired after `sudo microk8s stop` and `sudo" in finding.detail
    assert "could not be read" not in finding.detail
    assert "task brief" not in finding.detail
    same_as_pod_delete = ["stop", "upgrade-charm", "config-changed", "start"]
    assert judge_known_bug(bug, same_as_pod_delete).verdict == "match"
    assert judge_known_bug(bug, ["install", "start", "start"]).verdict == "deviation"


def test_a_fixed_relation_data_bug_matches_while_fixed_and_flags_a_regression() -> None:
    bug = expect("pod-spec-change").known_bugs[0]
    assert judge_known_bug(bug, ["kept"]).verdict == "match"
    regression = judge_known_bug(bug, ["lost"])
    assert regression.verdict == "deviation"
    assert regression.check == "relation"
    assert "fixed in Juju 2.6.4" in regression.detail


def test_judge_reports_a_relation_data_regression_against_lp1830745() -> None:
    before = snapshot(pods=[pod("u0", {"charm": 0})], relations=[bag({"k8s": "x"})])
    after = snapshot(pods=[pod("u1", {"charm": 0})], relations=[bag({"k8s": "y"})])
    findings = judge(expect("pod-spec-change"), before, after, [], units=[UNIT])
    bug = next(f for f in findings if f.subject.startswith("LP#1830745"))
    assert bug.verdict == "deviation"
    assert bug.observed == "lost"


# ------------------------------------------------------------------ more disruptions


def test_container_restart_needs_the_restarted_container() -> None:
    with pytest.raises(HarnessError, match="target_container"):
        judge(expect("container-restart"), snapshot(), snapshot(), [], units=[UNIT])


def test_container_restart_loses_only_that_containers_root() -> None:
    before = snapshot(
        pods=[pod("u0", {"charm": 0, "workload": 0})],
        file_states=files(workload=DIGEST_A, root=DIGEST_B, charm_dir=DIGEST_C),
    )
    after = snapshot(
        pods=[pod("u0", {"charm": 0, "workload": 1})],
        file_states=files(workload=ABSENT, root=DIGEST_B, charm_dir=DIGEST_C),
    )
    findings = judge(
        expect("container-restart"),
        before,
        after,
        records(["workload-pebble-ready"]),
        units=[UNIT],
        containers={UNIT: ["workload"]},
        watched_layers=LAYERS,
        target_container="workload",
    )
    assert count(findings)["deviation"] == 0, [f for f in findings if f.verdict != "match"]
    root = next(f for f in findings if f.subject.endswith("/tmp/probe/root-incarnation"))
    assert root.expected == "survives (container-root, charm was not restarted)"
    # The charm container restarting too would break "unchanged for the others".
    after_both = snapshot(pods=[pod("u0", {"charm": 1, "workload": 1})])
    again = judge(
        expect("container-restart"),
        before,
        after_both,
        records(["workload-pebble-ready"]),
        units=[UNIT],
        target_container="workload",
    )
    assert by_check(again, "pod-identity")[0].verdict == "deviation"


def test_container_restart_without_pebble_ready_is_a_deviation() -> None:
    finding = judge_sequence(
        expect("container-restart"), ["start"], subject=UNIT, containers=["workload"]
    )
    assert finding.verdict == "deviation"
    assert "missing: workload-pebble-ready (anywhere)" in finding.detail
    assert "unexpected: start (#1)" in finding.detail


def test_scale_down_up_new_units_reuse_the_names_and_storage_with_empty_databags() -> None:
    unit = "probe/0"
    before = snapshot(
        pods=[pod("u0", {"charm": 0, "workload": 0}, unit=unit)],
        file_states=files(unit, journal=DIGEST_D, charm_dir=DIGEST_C),
        relations=[bag({"a": "1"}, owner=unit, seen_by=unit), bag({"app": "1"}, owner="probe")],
        units=[unit],
    )
    after = snapshot(
        pods=[pod("u9", {"charm": 0, "workload": 0}, unit=unit)],
        file_states=files(unit, journal=DIGEST_D, charm_dir=ABSENT),
        relations=[bag({}, owner=unit, seen_by=unit), bag({"app": "1"}, owner="probe")],
        units=[unit],
    )
    hooks = records(
        [
            "journal-storage-detaching",
            "database-relation-departed",
            "database-relation-broken",
            "stop",
            "remove",
            "install",
            "leader-elected",
            "journal-storage-attached",
            "config-changed",
            "start",
            "workload-pebble-ready",
        ],
        unit=unit,
    )
    findings = judge(
        expect("scale-down-up", "3.6"),
        before,
        after,
        hooks,
        units=[unit],
        containers={"probe": ["workload"]},
        storages={"probe": ["journal"]},
        endpoints={"probe": ["database"]},
        watched_layers=LAYERS,
    )
    bad = [f for f in findings if f.verdict != "match"]
    assert bad == []
    subjects = {f.subject for f in by_check(findings, "hooks")}
    assert subjects == {"probe/0 [journal]", "probe/0 (new unit) [journal]"}
    journal = next(f for f in by_check(findings, "file") if JOURNAL in f.subject)
    assert journal.expected == "survives (storage)"
    own = next(f for f in by_check(findings, "relation") if "probe/0" in f.subject)
    assert own.observed == "lost (emptied)"


def test_scale_down_up_teardown_before_2_9_43_may_be_cut_short() -> None:
    cut_short = ["database-relation-departed"]
    assert judge_sequence(expect("scale-down-up", "2.9.42"), cut_short, subject=UNIT).verdict == (
        "match"
    )
    finding = judge_sequence(expect("scale-down-up", "2.9.43"), cut_short, subject=UNIT)
    assert finding.verdict == "deviation"
    assert "missing: stop, remove" in finding.detail


def test_deploy_requires_leader_elected_on_the_leader_and_storage_when_named() -> None:
    e = expect("deploy")
    leader = judge_sequence(
        e, ["install", "config-changed", "start"], subject=UNIT, storages=["journal"], leader=True
    )
    assert leader.verdict == "deviation"
    assert "leader-elected" in leader.detail
    assert "journal-storage-attached" in leader.detail
    router = judge_sequence(
        e,
        ["install", "leader-elected", "config-changed", "start", "mysql-router-pebble-ready"],
        subject="mysql-router-k8s/0",
        containers=["mysql-router"],
        storages=[],
        leader=True,
    )
    assert router.verdict == "match", router.detail


def test_two_sources_of_one_unit_are_judged_each_and_compared() -> None:
    sequence = ["stop", "upgrade-charm", "config-changed", "start", "workload-pebble-ready"]
    agreeing = records(sequence, source="journal") + records(sequence, source="debug-log")
    findings = judge(
        expect("pod-delete"), POD_DELETE_BEFORE, POD_DELETE_AFTER, agreeing, units=[UNIT]
    )
    compare = next(f for f in findings if f.subject == "probe/0 [debug-log vs journal]")
    assert (compare.verdict, compare.observed) == ("match", "agree")
    disagreeing = records(sequence, source="journal") + records(sequence[1:], source="debug-log")
    findings = judge(
        expect("pod-delete"), POD_DELETE_BEFORE, POD_DELETE_AFTER, disagreeing, units=[UNIT]
    )
    compare = next(f for f in findings if f.subject == "probe/0 [debug-log vs journal]")
    assert compare.verdict == "deviation"
    assert compare.observed.startswith("debug-log: upgrade-charm")


def test_no_hook_records_for_a_unit_is_a_deviation() -> None:
    findings = judge(expect("pod-delete"), POD_DELETE_BEFORE, POD_DELETE_AFTER, [], units=[UNIT])
    (hooks,) = by_check(findings, "hooks")
    assert hooks.verdict == "deviation"
    assert hooks.observed == "(no hook records from any source)"


def test_count_names_every_verdict() -> None:
    assert count([]) == {
        "match": 0,
        "deviation": 0,
        "known-bug": 0,
        "undetermined": 0,
        "charm-error": 0,
    }


# ------------------------------------------------------------------ real debug-logs


def _debug_log(name: str) -> list[HookRecord]:
    with (SAMPLES / name).open(encoding="utf-8") as lines:
        return list(parse_lines(lines))


def test_a_real_juju_3_6_3_pod_replacement_matches_the_pod_delete_entry() -> None:
    window = [
        r
        for r in _debug_log("debuglog_3.6.3_k8s_alertmanager_pod_restart_reboot_detected.txt")
        if r.time >= "08:36:49"  # the SIGTERM
    ]
    unit = "alertmanager/0"
    terminated = [r for r in window if r.outcome == "terminated"]
    assert [r.hook for r in terminated] == ["alertmanager-pebble-ready"]
    settled = [r for r in window if r.time <= "08:37:31"]
    finding = judge(
        expect("pod-delete", "3.6.3"),
        snapshot(units=[unit], leader=None),
        snapshot(units=[unit], leader=None),
        settled,
        units=[unit],
        containers={"alertmanager": ["alertmanager"]},
    )[0]
    assert finding.verdict == "match", finding.detail
    assert finding.observed == (
        "stop -> upgrade-charm -> config-changed -> start -> alertmanager-pebble-ready"
    )
    assert "alertmanager-pebble-ready (terminated)" in finding.detail
    # One second later a relation-joined left over from the deployment still settling runs:
    # a real unit joining, which the pod-delete entry does not explain.
    whole = judge(
        expect("pod-delete", "3.6.3"),
        snapshot(units=[unit], leader=None),
        snapshot(units=[unit], leader=None),
        window,
        units=[unit],
    )[0]
    assert whole.verdict == "deviation"
    assert "unexpected: grafana-dashboard-relation-joined" in whole.detail
    assert "missing" not in whole.detail


def test_a_real_juju_2_9_32_deploy_matches_the_deploy_entry() -> None:
    window = _debug_log("debuglog_2.9.32_k8s_prometheus_unit_lifecycle.txt")
    finding = judge_sequence(
        expect("deploy", "2.9.32"),
        [r.hook for r in window if r.kind == "hook" and r.hook and r.outcome == "ok"],
        subject="prom/0",
        containers=["prometheus"],
        storages=["database"],
        endpoints=["prometheus-peers", "ingress"],
        leader=True,
    )
    assert finding.verdict == "match", finding.detail
    assert "ignored background: update-status" in finding.detail


def test_units_for_takes_the_targets_or_every_unit_of_the_app_seen_before() -> None:
    before = snapshot(
        pods=[pod("a", {}, unit="probe/1"), pod("b", {}, unit="probe/0"), pod("c", {}, unit="x/0")]
    )
    assert units_for(before, "probe") == ("probe/0", "probe/1")
    assert units_for(before, "probe", ["probe/1"]) == ("probe/1",)


def test_default_layers_judge_the_stacks_markers() -> None:
    before = snapshot(
        pods=[pod("u0", {"charm": 0})],
        file_states=[
            FileState(UNIT, "mysql-router", "/etc/mysqlrouter/.harness-marker", DIGEST_A),
            FileState(UNIT, "mysql-router", "/etc/mysqlrouter", "dir"),
        ],
    )
    after = snapshot(
        pods=[pod("u1", {"charm": 0})],
        file_states=[
            FileState(UNIT, "mysql-router", "/etc/mysqlrouter/.harness-marker", ABSENT),
            FileState(UNIT, "mysql-router", "/etc/mysqlrouter", "dir"),
        ],
    )
    findings = judge(expect("pod-delete"), before, after, [], units=[UNIT])
    (marker,) = by_check(findings, "file")
    assert marker.subject == "probe/0 mysql-router:/etc/mysqlrouter/.harness-marker"
    assert marker.verdict == "match"
    assert ("mysql-router", "/etc/mysqlrouter/.harness-marker") in DEFAULT_LAYERS


def test_a_reused_unit_name_is_judged_per_source_and_juju_network_keys_are_not_charm_data() -> (
    None
):
    unit = "probe/0"
    network = {"ingress-address": "10.1.0.5", "egress-subnets": "10.1.0.5/32"}
    before = snapshot(
        pods=[pod("u0", {"charm": 0, "workload": 0}, unit=unit)],
        relations=[bag({**network, "probe": unit}, owner=unit, seen_by=unit)],
        units=[unit],
    )
    after = snapshot(
        pods=[pod("u9", {"charm": 0, "workload": 0}, unit=unit)],
        relations=[bag(dict(network), owner=unit, seen_by=unit)],
        units=[unit],
    )
    teardown = ["stop", "remove"]
    deploy = ["install", "leader-elected", "config-changed", "start", "workload-pebble-ready"]
    # The journal is on the reused volume: it holds both units; the debug-log only the new.
    hooks = records(deploy, unit=unit, source="debug-log")
    hooks += records([*teardown, *deploy], unit=unit, source="journal")
    findings = judge(
        expect("scale-down-up", "3.6"),
        before,
        after,
        hooks,
        units=[unit],
        containers={"probe": ["workload"]},
    )
    new = [f for f in by_check(findings, "hooks") if "(new unit)" in f.subject]
    assert {f.subject for f in new} == {
        "probe/0 (new unit) [debug-log]",
        "probe/0 (new unit) [journal]",
        "probe/0 (new unit) [debug-log vs journal]",
    }
    assert all(f.verdict == "match" for f in new), new
    (own,) = by_check(findings, "relation")
    assert own.verdict == "match"
    assert own.expected == "lost (1 key the charm wrote)"


def _relation_finding(
    name: str, juju: str, old: Mapping[str, str], new: Mapping[str, str]
) -> Finding:
    before = snapshot(pods=[pod("u0", {"charm": 0})], relations=[bag(old)])
    after = snapshot(pods=[pod("u1", {"charm": 0})], relations=[bag(new)])
    (finding,) = by_check(judge(expect(name, juju), before, after, [], units=[UNIT]), "relation")
    return finding


def test_on_juju_4_a_databag_juju_wrote_no_private_address_in_is_no_loss() -> None:
    # Juju 4.0 writes ingress-address alone (its show-unit on 4.0.5, juju issue 22539).
    juju_4 = {"ingress-address": "10.152.183.148"}
    kept = _relation_finding("pod-delete", "4.0", juju_4, juju_4)
    assert (kept.expected, kept.observed, kept.verdict) == ("kept (1 key)", "kept", "match")
    new_unit = _relation_finding("scale-down-up", "4.0", juju_4, juju_4)
    assert new_unit.verdict == "match"
    assert new_unit.observed == "only Juju's network keys, set again for the new unit"
    # A cross-model relation's --via subnets give egress-subnets on 4.0: Juju's alone too
    # (4.0 drops it from what a hook sets: domain/unitstate/service/commithook.go).
    via = {**juju_4, "egress-subnets": "10.42.42.0/24"}
    cross_model = _relation_finding("scale-down-up", "4.0", via, via)
    assert (cross_model.expected, cross_model.verdict) == (
        "lost (0 keys the charm wrote)",
        "match",
    )


def test_every_catalogue_range_has_one_set_of_juju_written_keys() -> None:
    # The verdict reads the keys Juju writes off the expectation's juju_min.
    cuts = [JujuVersion.parse(s.juju_min) for s in SPANS[1:]]
    for entry in load().entries:
        low = JujuVersion.parse(entry.juju_min)
        high = None if entry.juju_max is None else JujuVersion.parse(entry.juju_max)
        inside = [c for c in cuts if low < c and (high is None or c < high)]
        assert not inside, (entry.label, entry.juju_min, entry.juju_max)


def test_private_address_is_jujus_key_before_4_0_and_the_charms_own_from_4_0() -> None:
    # Before 4.0 Juju writes private-address itself (uniter EnterScope, 2.9 and 3.6
    # branches); 4.0 no longer does (juju's 3.6-to-4.0 upgrade guide), so there only a
    # charm put it in its databag, and a new unit that lacks it lost the charm's data.
    old = {"ingress-address": "10.152.183.148", "private-address": "10.152.183.148"}
    new = {"ingress-address": "10.152.183.148"}
    on_3_6 = _relation_finding("scale-down-up", "3.6", old, new)
    assert on_3_6.expected == "lost (0 keys the charm wrote)"
    on_4_0 = _relation_finding("scale-down-up", "4.0", old, new)
    assert on_4_0.expected == "lost (1 key the charm wrote)"
    assert (on_4_0.observed, on_4_0.verdict) == ("lost (emptied)", "match")
    # A charm that writes it again on its new unit kept it: not the loss 4.0 predicts.
    again = _relation_finding("scale-down-up", "4.0", old, old)
    assert (again.observed, again.verdict) == ("kept", "deviation")


# ------------------------------------------------------------------ branch selection


def _branches(name: str, juju: str = "3.6") -> tuple[Expectation, ...]:
    return load().branches(name, juju)


def test_a_terminated_stop_selects_the_interrupted_stop_branch_and_says_so() -> None:
    hooks = records(["stop", "stop", "start", "workload-pebble-ready"])
    hooks[0] = HookRecord(
        unit=UNIT, time=hooks[0].time, kind="hook", source="journal", hook="stop",
        outcome="terminated",
    )  # fmt: skip
    choice = choose_branch(_branches("pod-delete"), hooks, [UNIT])
    assert choice.name == "interrupted-stop"
    assert choice.reason == "interrupted-stop: probe/0's stop was terminated (journal)"
    findings = judge(
        choice.expectation, POD_DELETE_BEFORE, POD_DELETE_AFTER, hooks, units=[UNIT],
        containers={"probe": ["workload"]}, watched_layers=LAYERS,
    )  # fmt: skip
    (seq,) = [f for f in by_check(findings, "hooks") if f.subject == "probe/0 [journal]"]
    assert seq.verdict == "match", seq.detail
    assert "not run to completion: stop (terminated)" in seq.detail
    # The same hooks judged against the main branch would be a deviation.
    main = judge_sequence(
        expect("pod-delete"), ["stop", "start", "workload-pebble-ready"], subject=UNIT,
        containers=["workload"],
    )  # fmt: skip
    assert main.verdict == "deviation"


def test_a_failed_stop_selects_interrupted_stop_a_clean_run_the_main_branch() -> None:
    failed = choose_branch(_branches("charm-refresh"), records(["stop!", "stop", "start"]), [UNIT])
    assert failed.name == "interrupted-stop"
    clean = choose_branch(
        _branches("charm-refresh"),
        records(["stop", "upgrade-charm", "config-changed", "start"]),
        [UNIT],
    )
    assert (clean.name, clean.sign) == ("main", "")
    # Another unit's failed stop does not move this one off the main branch.
    other = records(["stop!"], unit="probe/1")
    assert choose_branch(_branches("charm-refresh"), other, [UNIT]).name == "main"


def test_a_second_roll_after_a_pod_spec_change_is_its_branch_not_a_deviation() -> None:
    once = ["stop", "upgrade-charm", "config-changed", "start", "workload-pebble-ready"]
    hooks = records(once * 2)
    choice = choose_branch(_branches("pod-spec-change"), hooks, [UNIT])
    assert choice.name == "second-roll"
    assert "ran upgrade-charm twice" in choice.reason
    finding = judge_sequence(choice.expectation, once * 2, subject=UNIT, containers=["workload"])
    assert finding.verdict == "match", finding.detail
    assert (
        judge_sequence(
            expect("pod-spec-change"), once * 2, subject=UNIT, containers=["workload"]
        ).verdict
        == "deviation"
    )
    assert describe_branches({UNIT: choice}) == (
        "second-roll for probe/0 (probe/0 ran upgrade-charm twice (journal): its pod was "
        "replaced again)"
    )


def test_only_hooks_dispatched_but_not_run_leave_a_missing_hook_undetermined() -> None:
    e = expect("pod-delete")
    observed = ["stop", "upgrade-charm", "config-changed", "start", "workload-pebble-ready"]
    why = {"leader-settings-changed": "the twin could not run it: ops.testing has none"}

    def judged(seen: list[str], not_run: Mapping[str, str] | None) -> Finding:
        return judge_sequence(
            e, seen, subject=UNIT, containers=["workload"], leader=False,
            dispatched_not_run=not_run,
        )  # fmt: skip

    # A non-leader before 4.0 runs leader-settings-changed after start: missing is a deviation.
    assert judged(observed, None).verdict == "deviation"
    unjudged = judged(observed, why)
    assert unjudged.verdict == "undetermined"
    assert "leader-settings-changed (after:start): the twin could not run it" in unjudged.detail
    # Another hook missing too, or one nobody expects: still a deviation.
    assert judged([h for h in observed if h != "upgrade-charm"], why).verdict == "deviation"
    assert judged(["install", *observed], why).verdict == "deviation"


def test_one_dispatched_but_not_run_record_excuses_one_missing_copy_of_its_hook() -> None:
    # A second roll needs upgrade-charm twice; one "charm missing" line explains one of them.
    e = load().expect("pod-spec-change", "3.6", variant="second-roll")
    once = ["stop", "config-changed", "start", "workload-pebble-ready"]
    missing = "charm missing from disk"

    def judged(not_run: Mapping[str, str] | Sequence[tuple[str, str]]) -> Finding:
        return judge_sequence(
            e, once * 2, subject=UNIT, containers=["workload"], leader=True,
            dispatched_not_run=not_run,
        )  # fmt: skip

    assert judged([("upgrade-charm", missing)]).verdict == "deviation"
    both = judged([("upgrade-charm", missing), ("upgrade-charm", missing)])
    assert both.verdict == "undetermined", both.detail
    # The mapping form (one reason per hook name) still excuses one copy, not every copy.
    assert judged({"upgrade-charm": missing}).verdict == "deviation"


def test_a_finding_names_the_charms_containers_never_a_template() -> None:
    # Settle and the verdict judge workload-pebble-ready; the report's words must say so too
    # (they read "may also run: {container}-pebble-ready", a name no charm has).
    expectation = load().expect("container-restart", "3.6", container="workload")
    finding = judge_sequence(expectation, [], subject="app/0", containers=["workload"])
    assert finding.verdict == "deviation"
    assert "{" not in finding.expected + finding.detail
    assert "workload-pebble-ready" in finding.detail
