"""The core install (no ``[live]`` extra) is what a charm's unit-test environment gets:
the twin, the catalogue, the CLI on the twin and the pytest plugin work there, and a live
run says in one line what to install.

``tox -e twin-floor`` runs this file where the live extra is really absent; here, the same
is checked by hiding the live packages.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.common.errors import EnvironmentUnavailable, HarnessError
from harness.live import extra
from harness.scenario.stack import default_stack
from harness.twin import compat, make_lab

ROOT = Path(__file__).resolve().parents[2]
LIVE = ("juju", "jubilant", "kubernetes", "pytest_operator")


@pytest.fixture
def without_live(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        return None if name.split(".")[0] in LIVE else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_the_twin_the_catalogue_and_the_plugin_import_nothing_of_the_live_stack() -> None:
    code = (
        "import sys, harness.twin, harness.catalogue, harness.pytest_plugin, harness.cli.entry\n"
        "harness.catalogue.load()\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {LIVE!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"


def test_a_live_run_without_the_live_extra_says_what_to_install(
    without_live: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert set(extra.missing()) == {"juju", "jubilant", "kubernetes", "pytest-operator"}
    with pytest.raises(EnvironmentUnavailable) as raised:
        extra.require_live()
    assert "pip install 'juju-lifecycle-harness[live]'" in raised.value.fix
    code = main(["run", "lp2021891-pod-delete", "--backend", "live", "--dry-run"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1
    assert "live extra" in err
    assert "[live]" in err


def test_auto_without_the_live_extra_runs_the_twin_and_says_why(
    without_live: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "lp2021891-pod-delete", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0].startswith("backend: twin (the live extra is not installed")


def test_repro_run_on_the_twin_writes_its_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI's twin path end to end, on whatever releases this environment has (tox -e
    lab-floor: the oldest it supports; tenacity 8.0.1 calls a wait's callbacks by keyword,
    which failed every wait). Below ops 3.7 (tox -e twin-floor) it refuses in one line."""
    code = main(
        ["run", "lp2021891-pod-delete", "--backend", "twin", "--evidence-dir", str(tmp_path)]
    )
    out, err = capsys.readouterr()
    if compat.ops_version() < compat.UNIFIED_CHARMCRAFT_FROM:
        assert code == 2
        assert len(err.splitlines()) == 1
        assert "ops[testing]>=3.7" in err
        return
    assert err == ""
    assert code == 0
    assert (Path(out.strip().splitlines()[-1]) / "bundle.json").is_file()


def test_a_lab_with_a_whole_charmcraft_yaml_on_an_older_ops_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "3.6.0")
    monkeypatch.setattr(compat, "ops_version", lambda: (3, 6))
    with pytest.raises(HarnessError) as raised:
        make_lab(default_stack("probe"))
    assert "ops[testing]>=3.7" in raised.value.fix
    assert "\n" not in str(raised.value)
