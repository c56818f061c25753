"""report.md: what a person pastes into a bug."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from evidence_samples import evidence, snapshots

from harness.evidence.bundle import read_bundle
from harness.evidence.report import render_report
from harness.evidence.write import write_bundle


def test_twin_report_says_simulated_in_title_and_banner() -> None:
    lines = render_report(evidence(backend="twin")).splitlines()

    assert lines[0].startswith("# ")
    assert "SIMULATED" in lines[0]
    assert any(line.startswith("> **SIMULATED**") for line in lines[1:4])


def test_live_report_never_says_simulated() -> None:
    text = render_report(evidence(backend="live"))

    assert "SIMULATED" not in text.upper()
    assert text.splitlines()[0] == "# Reproduction: lp2021891-pod-delete (pod-delete)"


def test_summary_counts_verdicts_from_the_findings() -> None:
    value = evidence()
    text = render_report(value)
    assert "| Verdicts | 2 match, 1 deviation, 1 known-bug |" in text

    text = render_report(replace(value, findings=value.findings[:1]))
    assert "| Verdicts | 1 match, 0 deviation, 0 known-bug |" in text


def test_summary_fits_one_screen_and_names_versions() -> None:
    text = render_report(evidence(juju="2.9.43"))
    summary = text.split("## ")[0]

    assert len(summary.splitlines()) <= 25
    assert "client 2.9.43, controller 2.9.43, agent 2.9.43" in summary
    assert "| MicroK8s | unknown |" in summary
    assert "mysql-router-k8s (mysql-router-k8s, 8.0/edge, revision 530)" in summary


def test_hook_sequences_expected_vs_observed_per_unit() -> None:
    text = render_report(evidence())

    assert (
        "| mysql-router-k8s/0 | stop, upgrade-charm, config-changed, start | "
        "stop, upgrade-charm, config-changed, start (failed) | deviation |"
    ) in text
    assert "| probe/0 | journal | stop, upgrade-charm, config-changed, start |" in text


def test_file_diff_lists_only_what_changed_and_counts_the_rest() -> None:
    text = render_report(evidence())
    files = text.split("## Files")[1].split("## ")[0]

    assert "| mysql-router-k8s/0 | mysql-router | /etc/mysqlrouter | dir | absent |" in files
    assert "/probe/workload-marker" in files
    assert "root-incarnation" not in files  # unchanged
    assert "Paths: 2 changed, 1 unchanged." in files


def test_relation_diff_lists_changed_keys_only() -> None:
    text = render_report(evidence())
    relations = text.split("## Relation data")[1].split("## ")[0]

    assert "| endpoints | 10.0.0.1:6446 | 10.0.0.2:6446 |" in relations
    assert "password" not in relations  # unchanged, so not listed
    assert "Databags: 1 changed, 1 unchanged." in relations


def test_lost_databag_is_reported() -> None:
    _before, after = snapshots()
    text = render_report(evidence(after=replace(after, relations=after.relations[:1])))

    assert "databag gone" in text


def test_pod_identity_shows_short_uids_and_restart_counts() -> None:
    text = render_report(evidence())

    assert "| probe/0 | aaaaaaaa | cccccccc | new pod | charm=0 workload=0 |" in text
    assert "aaaaaaaa-1111" not in text


def test_steps_have_durations_and_commands_are_in_a_shell_block() -> None:
    text = render_report(evidence())

    assert "| wait settled |" in text
    assert "| 1m42.0s |" in text
    block = text.split("## Reproduce")[1]
    assert (
        "```sh\njuju deploy ./probe.charm probe\nkubectl -n test delete pod probe-0\n```" in block
    )


def test_error_and_missing_snapshot_are_explained() -> None:
    text = render_report(evidence(after=None, error="TimeoutError: pods not ready"))

    assert "**The run stopped early:** TimeoutError: pods not ready" in text
    assert "the after snapshot was not taken" in text


def test_pipes_in_values_do_not_break_tables() -> None:
    value = evidence()
    finding = replace(value.findings[0], observed="a|b")
    text = render_report(replace(value, findings=(finding,)))

    assert "a\\|b" in text


def test_long_details_are_shortened_in_the_summary_and_kept_in_the_table() -> None:
    value = evidence()
    long_detail = "why " * 200
    finding = replace(value.findings[1], detail=long_detail)
    text = render_report(replace(value, findings=(finding,)))

    summary = text.split("## Deviations and known bugs")[1].split("## ")[0]
    assert long_detail.strip() not in summary
    assert "\u2026" in summary
    assert long_detail.strip() in text.split("All findings")[1]


def test_a_live_run_shows_the_model_settings_that_shape_hooks(tmp_path: Path) -> None:
    settings = (
        ("automatically-retry-hooks", "false (controller)"),
        ("update-status-hook-interval", "5m (default)"),
        ("logging-config", "<root>=DEBUG (controller)"),
    )
    live = evidence(backend="live")
    live = replace(live, versions=replace(live.versions, model_config=settings))
    report = render_report(live)
    (row,) = [line for line in report.splitlines() if line.startswith("| Model config |")]
    assert "automatically-retry-hooks=false (controller); " in row
    assert "update-status-hook-interval=5m (default); " in row
    assert "root&gt;=DEBUG (controller)" in row or "root>=DEBUG (controller)" in row
    write_bundle(live, tmp_path / "run")
    assert read_bundle(tmp_path / "run").versions.model_config == tuple(sorted(settings))
    raw = json.loads((tmp_path / "run" / "bundle.json").read_text())
    assert raw["versions"]["model_config"]["automatically-retry-hooks"] == "false (controller)"


def test_a_live_run_says_whether_the_model_inherited_the_controller_s_model_defaults(
    tmp_path: Path,
) -> None:
    settings = (("automatically-retry-hooks", "false (controller)"),)
    live = evidence(backend="live")
    for origin, said in (
        ("inherited", "the controller's model-defaults"),
        ("juju-defaults", "Juju's defaults"),
        ("existing-model", "a model it did not make"),
    ):
        run = replace(
            live,
            versions=replace(live.versions, model_config=settings, model_config_from=origin),
        )
        (row,) = [
            line for line in render_report(run).splitlines() if "| Model config from |" in line
        ]
        assert said in row
        folder = write_bundle(run, tmp_path / origin)
        assert read_bundle(folder).versions.model_config_from == origin
        raw = json.loads((folder / "bundle.json").read_text())
        assert raw["versions"]["model_config_from"] == origin
    # A bundle from before the field, and the twin's, say nothing of it.
    assert "Model config from" not in render_report(evidence(backend="twin"))
