"""After a plain `pip install .`, the probe charm's source travels with the package.

`repro run` and the twin run the probe's real code; outside a clone there is no charms/
directory, so the wheel carries charms/probe as harness/probe_charm (setup.py).
"""

from __future__ import annotations

import filecmp
import sys
from pathlib import Path

import pytest

import harness
from harness.common.errors import HarnessError
from harness.run import reproduce
from harness.twin import charms

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "charms" / "probe"
PACKAGED = charms.packaged_probe_dir()
installed = pytest.mark.skipif(
    not PACKAGED.is_dir(),
    reason=f"harness is imported from a checkout ({Path(harness.__file__).parent}), not a wheel",
)


@installed
def test_the_installed_package_carries_the_probes_source_as_in_the_checkout() -> None:
    shipped = ["charmcraft.yaml", "requirements.txt", "README.md"]
    shipped += [f"src/{p.name}" for p in sorted((PROBE / "src").glob("*.py"))]
    match, mismatch, errors = filecmp.cmpfiles(PROBE, PACKAGED, shipped, shallow=False)
    assert (mismatch, errors) == ([], [])
    assert len(match) == len(shipped)
    assert not (PACKAGED / "tests").exists(), "the probe's tests stay in the checkout"


@installed
def test_outside_a_clone_the_twin_runs_the_packaged_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no ./charms/probe here, and no checkout beside the package
    monkeypatch.delenv(charms.PROBE_DIR_ENV, raising=False)
    monkeypatch.setattr(charms, "repo_root", lambda: tmp_path / "site-packages")
    monkeypatch.setattr(sys, "path", list(sys.path))  # probe_source adds the probe's src

    assert charms.default_probe_dir() == PACKAGED
    source = charms.probe_source(PACKAGED)
    assert source.meta["name"] == "probe"


def test_a_report_names_the_packaged_probe_where_a_reader_has_it() -> None:
    # Wherever the run found the probe, the commands to reproduce point into the repository.
    deploy, pack = reproduce._portable_charm(str(reproduce.PACKAGED_PROBE))
    assert (deploy, pack) == (
        "./charms/probe/probe_*.charm",
        "(cd ./charms/probe && charmcraft pack)",
    )
    assert reproduce.PACKAGED_PROBE == PACKAGED


def test_with_no_probe_anywhere_the_error_says_where_to_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(charms.PROBE_DIR_ENV, raising=False)
    monkeypatch.setattr(charms, "repo_root", lambda: tmp_path)
    monkeypatch.setattr(charms, "packaged_probe_dir", lambda: tmp_path / "gone")

    with pytest.raises(HarnessError, match="the probe charm is not at") as raised:
        charms.probe_source(charms.default_probe_dir())
    fix = str(raised.value.fix)
    # Every way a user reaches the twin's probe: the CLI, the environment, the Python API,
    # and the install that should have carried it.
    for way in ("--probe-charm", charms.PROBE_DIR_ENV, "probe_dir=", "pip install"):
        assert way in fix, fix
