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


def test_the_charms_own_opentelemetry_wins_over_repros(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # alertmanager-k8s (ops[tracing]) brings opentelemetry-sdk 1.42 with its api 1.42; the
    # twin shared repro's api 1.45 with it, whose opentelemetry.util.types lacks a name the
    # sdk imports: "cannot import opentelemetry.util.types from its venv", every hook.
    import opentelemetry.util.types as ours  # ops imports it before any charm is loaded

    venv = tmp_path / "venv"
    site = venv / "lib" / PYTHON / "site-packages"
    (site / "opentelemetry" / "util").mkdir(parents=True)
    (site / "opentelemetry" / "util" / "types.py").write_text(
        'SHAPES_VENV_ONLY = "from its own opentelemetry"\n'
    )
    (site / "shapes_only_dependency.py").write_text(
        "from opentelemetry.util.types import SHAPES_VENV_ONLY as GREETING\n"
    )
    code, out, err = run(capsys, tmp_path, "--charm-venv", f"needs-deps={venv}")
    assert code == 0, err
    raw = json.loads((Path(out.splitlines()[-1]) / "bundle.json").read_text())
    statuses = {s["unit"]: s for s in raw["after"]["statuses"]}
    assert statuses["needs-deps/0"]["workload_message"] == "from its own opentelemetry"
    assert sys.modules["opentelemetry.util.types"] is ours  # repro goes on with its own


def test_a_name_missing_from_a_dependency_says_which_name_and_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A venv that has the module but a version without the name the charm's code imports:
    # the line says the name and the file it was looked for in, not only the module.
    venv = tmp_path / "venv"
    site = venv / "lib" / PYTHON / "site-packages"
    site.mkdir(parents=True)
    (site / "shapes_only_dependency.py").write_text("from json import SHAPES_NO_SUCH_NAME\n")
    code, _out, err = run(capsys, tmp_path, "--charm-venv", f"needs-deps={venv}")
    assert code == 2
    (line,) = err.strip().splitlines()
    assert "needs-deps" in line
    assert "cannot import name 'SHAPES_NO_SUCH_NAME' from 'json'" in line
    assert "json/__init__.py" in line


def test_what_a_charms_dependency_installs_in_the_import_system_leaves_with_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # wordpress-k8s's venv has the importlib_metadata backport (opentelemetry-api 1.38
    # imports it), which appends its finder to sys.meta_path; once the charm's hook ended
    # and its modules left, repro's own importlib.metadata.version("ops") went through
    # that finder and failed: "ModuleNotFoundError: No module named 'importlib_metadata'";
    # and the backport takes find_distributions off the stdlib's PathFinder, after which
    # repro found no metadata for ops at all.
    import importlib.machinery
    import importlib.metadata

    stdlib = importlib.machinery.PathFinder.__dict__["find_distributions"]
    monkeypatch.setattr(importlib.machinery.PathFinder, "find_distributions", stdlib)
    venv = tmp_path / "venv"
    site = venv / "lib" / PYTHON / "site-packages"
    site.mkdir(parents=True)
    (site / "shapes_only_helper.py").write_text("HELPED = True\n")
    (site / "shapes_only_dependency.py").write_text(
        "import sys\n\n\n"
        "class Finder:  # as importlib_metadata installs MetadataPathFinder\n"
        "    def find_spec(self, *args, **kwargs):\n"
        "        return None\n\n"
        "    def find_distributions(self, *args, **kwargs):\n"
        "        import shapes_only_helper  # lazily, from the venv only\n\n"
        "        return iter(())\n\n\n"
        "sys.meta_path.append(Finder())\n"
        "# importlib_metadata's disable_stdlib_finder: the stdlib's PathFinder loses its\n"
        "# find_distributions, so that only the backport's finder answers.\n"
        "import importlib.machinery\n"
        "del importlib.machinery.PathFinder.find_distributions\n"
        'GREETING = "from its own venv"\n'
    )
    finders = list(sys.meta_path)
    code, out, err = run(capsys, tmp_path, "--charm-venv", f"needs-deps={venv}")
    assert code == 0, err
    raw = json.loads((Path(out.splitlines()[-1]) / "bundle.json").read_text())
    statuses = {s["unit"]: s for s in raw["after"]["statuses"]}
    assert statuses["needs-deps/0"]["workload_message"] == "from its own venv"
    assert sys.meta_path == finders
    assert importlib.machinery.PathFinder.__dict__.get("find_distributions") is stdlib
    assert importlib.metadata.version("ops")
