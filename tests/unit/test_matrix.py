"""repro matrix: disruption x Juju version -> hooks, file survival, relation survival."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from evidence_samples import evidence

from harness.common.errors import HarnessError
from harness.evidence.matrix import find_bundles, matrix_of_folders, render_matrix, row_of
from harness.evidence.write import write_bundle


def test_row_summarises_one_bundle() -> None:
    row = row_of(evidence(backend="live", juju="3.6.1"))

    assert row.disruption == "pod-delete"
    assert row.juju == "3.6.1"
    assert row.backend == "live"
    assert "mysql-router-k8s/0: stop, upgrade-charm, config-changed, start (failed)" in row.hooks
    assert row.files == (
        "kept 1/3; lost mysql-router:/etc/mysqlrouter, workload:/probe/workload-marker"
    )
    assert row.relations == "kept 1/2; 1 changed"
    assert row.deviations == 1
    assert row.known_bugs == 1


def test_identical_sequences_collapse_to_one() -> None:
    value = evidence()
    same = tuple(replace(f, observed="start") if f.check == "hooks" else f for f in value.findings)

    assert row_of(replace(value, findings=same)).hooks == "start (2 units)"


def test_known_bug_and_agreement_findings_do_not_repeat_a_sequence() -> None:
    value = evidence()
    hooks = next(f for f in value.findings if f.check == "hooks")
    extra = (
        replace(hooks, subject=f"LP#2021891 {hooks.subject}", verdict="known-bug"),
        replace(hooks, subject="probe/0 [debug-log vs journal]", observed="agree"),
    )
    row = row_of(replace(value, findings=(*value.findings, *extra)))

    assert "LP#2021891" not in row.hooks
    assert "agree" not in row.hooks
    assert hooks.observed in row.hooks


def test_without_hook_findings_the_debug_log_sequences_are_used() -> None:
    value = evidence()
    row = row_of(replace(value, findings=()))

    assert row.hooks == "mysql-router-k8s/0: stop, upgrade-charm, config-changed, start"


def test_disruption_comes_from_the_scenario_when_missing() -> None:
    assert row_of(evidence(disruption=None)).disruption == "pod-delete"


def test_unobserved_snapshots_say_so() -> None:
    row = row_of(evidence(after=None))

    assert row.files == "(not observed)"
    assert row.relations == "(not observed)"


def test_table_orders_rows_by_disruption_then_version_numerically() -> None:
    bundles = [
        evidence(backend="live", juju="3.10.0"),
        evidence(backend="live", juju="2.9.43"),
        evidence(backend="live", juju="3.4.2"),
        replace(evidence(backend="twin", juju="3.6.0"), disruption="node-restart"),
    ]

    text = render_matrix(bundles)
    runs = text.split("## By Juju series")[0]  # the per-run table

    rows = [
        line.split(" | ")
        for line in runs.splitlines()
        if line.startswith("| ") and "---" not in line
    ]
    header, body = rows[0], rows[1:]
    assert header[0] == "| Disruption"
    assert [(r[0].strip("| "), r[1]) for r in body] == [
        ("node-restart", "3.6.0"),
        ("pod-delete", "2.9.43"),
        ("pod-delete", "3.4.2"),
        ("pod-delete", "3.10.0"),
    ]
    assert body[0][2] == "twin (SIMULATED)"
    assert "SIMULATED come from the twin" in text
    assert all(len(r) == len(header) for r in body)


def test_a_pre_release_row_comes_before_its_release() -> None:
    """Juju's order: 3.6-beta2 < 3.6-rc1 < 3.6.0 (it was read as 3.6.2, after 3.6.0)."""
    bundles = [evidence(backend="live", juju=v) for v in ("3.6.0", "3.6-rc1", "3.6-beta2")]

    runs = render_matrix(bundles).split("## By Juju series")[0]

    rows = [line for line in runs.splitlines() if line.startswith("| pod-delete")]
    shown = [row.split(" | ")[1] for row in rows]
    assert shown == ["3.6-beta2", "3.6-rc1", "3.6.0"]


def test_pipes_in_cells_are_escaped() -> None:
    value = evidence()
    finding = replace(value.findings[0], observed="a|b")

    text = render_matrix([replace(value, findings=(finding,))])

    assert "a\\|b" in text


def test_find_bundles_recurses_and_deduplicates(tmp_path: Path) -> None:
    a = write_bundle(evidence(), tmp_path / "x" / "1")
    b = write_bundle(evidence(), tmp_path / "x" / "deep" / "er" / "2")

    found = find_bundles([tmp_path / "x", a, a / "bundle.json"])

    assert found == sorted([(a / "bundle.json").resolve(), (b / "bundle.json").resolve()])


def test_matrix_of_folders_reads_every_bundle(tmp_path: Path) -> None:
    write_bundle(evidence(juju="3.1.8"), tmp_path / "j31")
    write_bundle(evidence(juju="3.6.1"), tmp_path / "j36")

    text = matrix_of_folders([tmp_path])

    assert "| pod-delete | 3.1.8 |" in text
    assert "| pod-delete | 3.6.1 |" in text
    assert "2 runs." in text


def test_folder_without_bundles_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match=r"no bundle\.json under"):
        find_bundles([tmp_path])
