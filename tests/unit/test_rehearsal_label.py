"""A rehearsal's evidence says REHEARSAL everywhere a person reads it; its time scale is
explicit, bounded, refused outside a rehearsal, and recorded."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from evidence_samples import findings, hooks, snapshots
from test_live_lab_jubilant import Controller

from harness.common.errors import HarnessError
from harness.common.observations import Step
from harness.common.rehearsal import (
    REHEARSAL_ENV,
    TIME_SCALE_ENV,
    Rehearsal,
    labelled_rehearsal,
    rehearsal_from_environment,
)
from harness.common.versions import Versions
from harness.evidence.bundle import from_json_dict, schema_errors, to_json_dict
from harness.evidence.matrix import render_matrix
from harness.evidence.model import Evidence
from harness.evidence.report import render_report
from harness.evidence.svg import render_svg
from harness.evidence.write import write_bundle
from harness.live.clock import RealClock, live_clock
from harness.live.juju_cli import JujuCLI
from harness.live.lab import lab_from_jubilant

WORLD = "rehearsal world juju-3.6.1 (tox -e rehearsal) at 127.0.0.1:40001"


def evidence(rehearsal: Rehearsal | None) -> Evidence:
    before, after = snapshots()
    return Evidence(
        scenario="lp2021891-pod-delete",
        backend="live",
        simulated=False,
        versions=Versions(juju_client="3.6.1", juju_controller="3.6.1", juju_driver="libjuju"),
        steps=(Step("snapshot before", "2026-01-01T10:00:00+00:00", "2026-01-01T10:00:01+00:00"),),
        before=before,
        after=after,
        hooks=hooks(),
        findings=findings(),
        commands=("juju status",),
        disruption="pod-delete",
        rehearsal=rehearsal,
    )


def test_no_world_is_a_real_run() -> None:
    assert rehearsal_from_environment({}) is None
    assert labelled_rehearsal({}) is None


def test_the_world_names_itself_and_the_scale_is_read() -> None:
    got = rehearsal_from_environment({REHEARSAL_ENV: WORLD, TIME_SCALE_ENV: "10"})
    assert got == Rehearsal(WORLD, 10.0)
    assert "10x faster" in got.describe()
    assert "not evidence of what Juju does" in got.describe()
    assert rehearsal_from_environment({REHEARSAL_ENV: WORLD}) == Rehearsal(WORLD, 1.0)


def test_a_time_scale_outside_a_rehearsal_is_refused_in_one_line() -> None:
    with pytest.raises(HarnessError, match="for rehearsals only") as raised:
        rehearsal_from_environment({TIME_SCALE_ENV: "10"})
    assert "\n" not in str(raised.value)
    assert f"unset {TIME_SCALE_ENV}" in str(raised.value)


@pytest.mark.parametrize("bad", ["fast", "0.5", "0", "-3", "1000", "nan", "inf"])
def test_a_bad_time_scale_is_refused_in_one_line(bad: str) -> None:
    with pytest.raises(HarnessError, match="is not a time scale") as raised:
        rehearsal_from_environment({REHEARSAL_ENV: WORLD, TIME_SCALE_ENV: bad})
    assert "\n" not in str(raised.value)
    # A bundle written after that failure still says REHEARSAL.
    assert labelled_rehearsal({REHEARSAL_ENV: WORLD, TIME_SCALE_ENV: bad}) == Rehearsal(WORLD)


def test_a_world_name_of_several_lines_is_refused() -> None:
    with pytest.raises(HarnessError, match="one line"):
        rehearsal_from_environment({REHEARSAL_ENV: "a\nb"})


def test_a_scaled_clock_counts_scale_seconds_per_real_second() -> None:
    clock = RealClock(10.0)
    start_real, start = time.monotonic(), clock.monotonic()
    asyncio.run(clock.sleep(1.0))  # a tenth of a second, really
    real, counted = time.monotonic() - start_real, clock.monotonic() - start
    assert 0.09 <= real < 0.5
    assert counted == pytest.approx(real * 10, rel=0.05)
    assert abs((clock.now() - RealClock().now()).total_seconds()) < 1  # wall time unscaled


def test_the_live_clock_is_real_time_unless_rehearsing() -> None:
    assert live_clock(None).scale == 1.0
    assert live_clock(Rehearsal(WORLD, 10.0)).scale == 10.0
    with pytest.raises(ValueError, match="slower than real time"):
        RealClock(0.5)


def test_a_live_lab_made_in_a_rehearsal_carries_it_and_its_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(REHEARSAL_ENV, WORLD)
    monkeypatch.setenv(TIME_SCALE_ENV, "10")
    controller = Controller("3.6")
    lab = lab_from_jubilant(controller.juju("mk8s:admin/m"), cli=JujuCLI(controller))
    assert lab.rehearsal == Rehearsal(WORLD, 10.0)
    assert isinstance(lab.clock, RealClock)
    assert lab.clock.scale == 10.0
    monkeypatch.delenv(REHEARSAL_ENV)
    monkeypatch.delenv(TIME_SCALE_ENV)
    real = lab_from_jubilant(controller.juju("mk8s:admin/m"), cli=JujuCLI(controller))
    assert real.rehearsal is None


def test_bundle_json_says_rehearsal_and_round_trips(tmp_path: Path) -> None:
    labelled = evidence(Rehearsal(WORLD, 10.0))
    data = to_json_dict(labelled)
    assert data["rehearsal"] == {"label": "REHEARSAL", "world": WORLD, "time_scale": 10.0}
    assert schema_errors(data) == []
    assert from_json_dict(data).rehearsal == Rehearsal(WORLD, 10.0)
    real = to_json_dict(evidence(None))
    assert real["rehearsal"] is None
    assert schema_errors(real) == []
    older = {k: v for k, v in real.items() if k != "rehearsal"}  # bundles before the field
    assert schema_errors(older) == []
    assert from_json_dict(older).rehearsal is None
    folder = write_bundle(labelled, tmp_path / "run")
    written = json.loads((folder / "bundle.json").read_text())
    assert written["rehearsal"]["label"] == "REHEARSAL"


def test_report_title_banner_and_backend_say_rehearsal() -> None:
    report = render_report(evidence(Rehearsal(WORLD, 10.0)))
    first = report.splitlines()[0]
    assert first.startswith("# REHEARSAL reproduction: lp2021891-pod-delete")
    assert "> **REHEARSAL**" in report
    assert "waits 10x faster" in report
    assert "REHEARSAL" not in render_report(evidence(None))


def test_timeline_heading_and_watermark_say_rehearsal() -> None:
    svg = render_svg(evidence(Rehearsal(WORLD)))
    assert "<title>REHEARSAL reproduction: lp2021891-pod-delete" in svg
    assert 'class="watermark"' in svg
    assert ">REHEARSAL</text>" in svg
    assert "REHEARSAL" not in render_svg(evidence(None))


def test_the_matrix_never_shows_a_rehearsal_as_live() -> None:
    table = render_matrix([evidence(Rehearsal(WORLD)), replace(evidence(None), scenario="x")])
    assert "| REHEARSAL (libjuju) |" in table
    assert "| live (libjuju) |" in table
    assert "not evidence of what Juju does" in table


def test_ci_rehearses_the_live_path_after_the_bare_tox_and_not_in_it() -> None:
    """.ci/run runs `tox -e rehearsal` right after the README's `tox p`; a bare tox (a
    developer's) does not start worlds."""
    import configparser

    root = Path(__file__).resolve().parents[2]
    run = [line.strip() for line in (root / ".ci" / "run").read_text().splitlines()]
    assert run.index("python3 -m tox -e rehearsal") == run.index("python3 -m tox p") + 1
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(root / "tox.ini")
    assert "rehearsal" not in {e.strip() for e in tox["tox"]["env_list"].split(",")}
    assert "REHEARSAL_WORKERS" in tox["testenv:rehearsal"]["commands"]
