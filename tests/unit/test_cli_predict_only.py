"""Issue 27: ``repro predict`` answers for the disruptions the harness cannot run yet;
``repro list`` shows them apart, and ``repro run`` refuses them in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.catalogue import load
from harness.catalogue.names import NAMES, PREDICT_ONLY
from harness.cli import main as cli
from harness.common.errors import HarnessError

REFUSAL = "is catalogued (repro predict) only, not yet runnable"


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str) -> str:
    assert code == 2
    assert "Traceback" not in err
    (line,) = err.strip().splitlines()
    assert line.startswith("repro: ")
    return line


def test_list_shows_them_apart_from_what_it_can_run(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = repro(capsys, "list")

    assert code == 0
    runnable, _, catalogued = out.partition("catalogued only, not yet runnable")
    assert catalogued, out
    assert "repro predict NAME" in catalogued.splitlines()[0]
    listed = [line.split()[0] for line in catalogued.splitlines()[1:] if line.startswith("  ")]
    assert listed == list(PREDICT_ONLY)
    shown = {line.split()[0] for line in runnable.splitlines() if line.startswith("  ")}
    assert not shown & set(PREDICT_ONLY)
    assert set(NAMES) <= shown
    # Each says what it is, from the catalogue.
    summary = load().expect("controller-restart", "3.6").summary
    assert "  controller-restart " in catalogued
    assert summary.split(";")[0] in catalogued


@pytest.mark.parametrize("name", PREDICT_ONLY)
@pytest.mark.parametrize(
    "extra",
    [(), ("--dry-run",), ("--backend", "twin"), ("--bundle", "no-such-bundle.yaml")],
    ids=["plain", "dry-run", "twin", "bundle"],
)
def test_run_refuses_them_in_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    extra: tuple[str, ...],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = repro(capsys, "run", name, *extra)

    line = one_line_error(code, err)
    assert f"{name} {REFUSAL}" in line
    assert f"repro predict {name} --juju" in line
    assert out == ""  # refused before a backend is chosen or a bundle read
    assert list(tmp_path.iterdir()) == []  # and before any evidence folder


@pytest.mark.parametrize("name", PREDICT_ONLY)
def test_the_python_api_refuses_them_too(name: str) -> None:
    from harness.scenario.bundle_stack import bundle_scenario
    from harness.scenario.scenarios import scenario

    with pytest.raises(HarnessError, match=re.escape(REFUSAL)):
        scenario(name)
    with pytest.raises(HarnessError, match="not yet runnable"):
        bundle_scenario(name, "app", None, probe=False, container=None)


@pytest.mark.parametrize("juju", ["2.9.31", "3.6", "4.0"])
@pytest.mark.parametrize("name", PREDICT_ONLY)
def test_predict_answers_for_each_on_every_line(
    capsys: pytest.CaptureFixture[str], name: str, juju: str
) -> None:
    code, out, err = repro(capsys, "predict", name, "--juju", juju, "--format", "json")

    assert code == 0, err
    data = json.loads(out)
    branches = data.pop("branches")
    main = load().branches(name, juju)[0]
    assert data == json.loads(json.dumps(main.to_json()))
    assert branches[0]["branch"] == "main"
    assert data["sources"]
    assert all(s["url"].startswith("https://") for s in data["sources"])

    code, text, _ = repro(capsys, "predict", name, "--juju", juju)
    assert code == 0
    assert text.startswith(f"{name} on Juju ")
    assert f"confidence: {main.confidence}" in text
    for source in main.sources:
        assert source.url in text
        if source.unverified:  # what is unconfirmed is said where it is shown
            assert f"[confidence low: {source.unverified}]" in text


def test_predict_controller_restart_says_start_runs_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = repro(capsys, "predict", "controller-restart", "--juju", "3.6")

    assert code == 0
    assert "hooks, in order (non-leader): start, leader-settings-changed" in out
    assert "rebootDetected = true" in out
    assert "/87e38e5f62be5299bb4c23021f8e1274240f51a3/worker/uniter/uniter.go" in out
    assert "restart counts unchanged" in out
    code, out, _ = repro(capsys, "predict", "controller-restart", "--juju", "3.5")
    assert "restart counts increments" in out


def test_predict_container_kill_picks_the_branch_by_container_and_signal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = repro(
        capsys, "predict", "container-kill", "--juju", "3.6", "--container", "charm",
        "--signal", "KILL",
    )  # fmt: skip

    assert code == 0
    assert "hooks, in order (leader): start, {container}-pebble-ready" in out
    assert "no stop runs" in out
    code, _, err = repro(
        capsys, "predict", "container-kill", "--juju", "3.6", "--container", "charm",
        "--signal", "TERM",
    )  # fmt: skip
    assert "container-kill has no branch for container 'charm'" in one_line_error(code, err)


def test_an_unknown_name_is_offered_the_predict_only_ones_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = repro(capsys, "predict", "controller-restar", "--juju", "3.6")

    line = one_line_error(code, err)
    assert "did you mean controller-restart?" in line
    offered = line.split("choose one of: ", 1)[1].split(";")[0].split(")")[0].split(", ")
    assert offered == [*NAMES, *PREDICT_ONLY]


def test_the_twin_refuses_them_before_reading_its_arguments() -> None:
    from harness.twin.disruption import run_disruption

    # The refusal comes first: no context or state is needed to be told.
    with pytest.raises(HarnessError, match=re.escape(f"model-upgrade {REFUSAL}")):
        run_disruption(None, None, "model-upgrade")  # type: ignore[arg-type]
