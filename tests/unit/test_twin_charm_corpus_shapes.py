"""Real charm code through ``repro run --charm-source`` on the twin, as Juju would run it.

Each test puts ``tests/charms/shapes`` (a small charm with one shape of the public charms
the corpus workflow runs; its README says which) through the command line, from a working
directory that is not the charm's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main as cli

SHAPES = Path(__file__).parents[1] / "charms" / "shapes"


def repro(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bundle: str, *extra: str
) -> tuple[int, str, str, dict[str, Any]]:
    code = cli.main(
        [
            "run", "pod-delete", "--bundle", str(SHAPES / bundle), "--app", "shapes",
            "--charm-source", f"shapes={SHAPES}", "--backend", "twin",
            "--evidence-dir", str(tmp_path / "evidence"), *extra,
        ]
    )  # fmt: skip
    out, err = capsys.readouterr()
    lines = out.splitlines()
    folder = Path(lines[-1]) if lines else tmp_path / "none"
    raw = (
        json.loads((folder / "bundle.json").read_text())
        if (folder / "bundle.json").exists()
        else {}
    )
    return code, out, err, raw


def failed_hooks(raw: dict[str, Any]) -> list[str]:
    return [
        f"{h['unit']} {h['hook']}: {h.get('detail', '')}"
        for h in raw.get("hooks", ())
        if h.get("outcome") == "failed"
    ]


@pytest.fixture(autouse=True)
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """repro is started outside the charm's folder, as a user starts it."""
    monkeypatch.chdir(tmp_path)


def test_a_hook_runs_in_the_charm_directory_which_holds_the_charms_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _out, err, raw = repro(capsys, tmp_path, "bundle-alone.yaml", "--no-probe")
    assert failed_hooks(raw) == []
    assert code == 0, err


def test_a_stand_in_takes_the_interface_and_the_opposite_role_of_the_real_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # shapes requires db and provides api; the bundle names the stand-in's end first in one.
    code, _out, err, raw = repro(capsys, tmp_path, "bundle.yaml", "--no-probe")
    assert code == 0, err
    assert failed_hooks(raw) == []
    ran_by = {r["app"]: r["ran_by"] for r in raw["bundle"]["runs"]}
    assert "provides db (shapes_db)" in ran_by["partner"]
    assert "requires api (shapes_api)" in ran_by["consumer"]


def test_a_charms_modules_never_replace_the_probes_or_another_charms(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # shapes has src/database.py, as discourse-k8s has; so has the probe observer.
    code, _out, err, raw = repro(capsys, tmp_path, "bundle-alone.yaml")
    assert failed_hooks(raw) == []
    assert code == 0, err
    assert {h["unit"] for h in raw["hooks"]} >= {"shapes/0", "probe/0"}
