"""A charm run with its own dependencies from the command line (``--charm-venv``), and a
failed import said in one line naming the app and what to do."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.cli import main as cli

CHARM = Path(__file__).parents[1] / "charms" / "needs-deps"
PYTHON = f"python{sys.version_info.major}.{sys.version_info.minor}"


def a_venv(root: Path) -> Path:
    """A virtual environment's layout with the charm's one dependency in it."""
    site = root / "lib" / PYTHON / "site-packages"
    site.mkdir(parents=True)
    (site / "shapes_only_dependency.py").write_text('GREETING = "from its own venv"\n')
    return root


def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    code = cli.main(
        [
            "run", "pod-delete", "--bundle", str(CHARM / "bundle.yaml"), "--app", "needs-deps",
            "--charm-source", f"needs-deps={CHARM}", "--backend", "twin", "--no-probe",
            "--evidence-dir", str(tmp_path / "evidence"), *extra,
        ]
    )  # fmt: skip
    out, err = capsys.readouterr()
    return code, out, err


def test_a_failed_import_is_one_line_naming_the_app_and_what_to_do(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _out, err = run(capsys, tmp_path)
    assert code == 2
    (line,) = err.strip().splitlines()
    assert "needs-deps" in line
    assert "shapes_only_dependency" in line
    assert "--charm-venv needs-deps=" in line


def test_the_charm_imports_its_dependencies_from_its_own_venv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    venv = a_venv(tmp_path / "venv")
    code, out, err = run(capsys, tmp_path, "--charm-venv", f"needs-deps={venv}")
    assert code == 0, err
    raw = json.loads((Path(out.splitlines()[-1]) / "bundle.json").read_text())
    statuses = {s["unit"]: s for s in raw["after"]["statuses"]}
    assert statuses["needs-deps/0"]["workload_message"] == "from its own venv"
    assert "shapes_only_dependency" not in sys.modules  # only the charm saw it


def test_a_venv_for_another_python_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "old" / "lib" / "python3.8" / "site-packages").mkdir(parents=True)
    code, _out, err = run(capsys, tmp_path, "--charm-venv", f"needs-deps={tmp_path / 'old'}")
    assert code == 2
    (line,) = err.strip().splitlines()
    assert "python3.8" in line
    assert PYTHON in line
