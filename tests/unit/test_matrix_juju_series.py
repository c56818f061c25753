"""``repro matrix``: each Juju series is its own column, 4.0 included, with the driver named."""

from __future__ import annotations

from dataclasses import replace

from evidence_samples import evidence

from harness.evidence.matrix import render_matrix, row_of
from harness.evidence.model import Evidence


def live(juju: str, driver: str | None) -> Evidence:
    value = evidence(backend="live", juju=juju)
    return replace(value, versions=replace(value.versions, juju_driver=driver))


def grid(text: str) -> list[list[str]]:
    section = text.split("## By Juju series", 1)[1]
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in section.splitlines()
        if line.startswith("| ") and "---" not in line
    ]


def test_juju_40_gets_its_own_column_after_36() -> None:
    text = render_matrix(
        [live("4.0.1", "jubilant"), live("3.6.9", "libjuju"), live("2.9.49", "libjuju")]
    )
    header, *body = grid(text)
    assert header == ["Disruption", "Juju 2.9", "Juju 3.6", "Juju 4.0"]
    (pod_delete,) = body
    assert pod_delete[0] == "pod-delete"
    assert pod_delete[3].startswith("live (jubilant): ")
    assert pod_delete[2].startswith("live (libjuju): ")


def test_patch_releases_share_their_series_column_and_gaps_say_not_run() -> None:
    other = replace(live("4.0.3", "jubilant"), disruption="node-restart")
    header, *body = grid(render_matrix([live("4.0.1", "jubilant"), other, live("3.6.9", None)]))
    assert header == ["Disruption", "Juju 3.6", "Juju 4.0"]
    rows = {row[0]: row for row in body}
    assert rows["node-restart"][1] == "(not run)"
    assert rows["pod-delete"][1].startswith("live: ")  # a bundle from before the driver field


def test_the_run_table_names_the_driver_of_each_live_run() -> None:
    assert row_of(live("4.0.1", "jubilant")).backend == "live (jubilant)"
    assert row_of(evidence(backend="twin")).backend == "twin (SIMULATED)"


def test_two_runs_in_one_series_are_two_lines_of_one_cell_not_an_escaped_tag() -> None:
    # CI has two Juju 3.6 jobs (MicroK8s 1.34 and 1.36): their runs share one cell.
    text = render_matrix([live("3.6.9", "libjuju"), evidence(backend="twin", juju="3.6.9")])
    _, pod_delete = grid(text)
    assert "&lt;br>" not in pod_delete[1]
    assert pod_delete[1].startswith("live (libjuju): ")
    assert "deviation)<br>twin (SIMULATED): " in pod_delete[1]
