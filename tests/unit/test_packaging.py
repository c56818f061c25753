"""pyproject.toml: what the README's two commands build with, and what the wheel says.

`python3 -m pip install .` and tox's wheel build both take setuptools from build-system
requires, the newest release the bounds admit, in an isolated build environment.
"""

from __future__ import annotations

import configparser
import re
import sys
from importlib import metadata
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import harness

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DIST = "juju-lifecycle-harness"
# PEP 639's `license = "<SPDX expression>"` is read by setuptools 77.0 and later; the TOML
# table form is deprecated there and stops building after 2027-02-18 (setuptools 84's
# warning). The upper bound is the newest major this build was checked with (README).
SPDX_FROM = Version("77.0.0")


def _setuptools() -> Requirement:
    (req,) = (
        Requirement(r)
        for r in PYPROJECT["build-system"]["requires"]
        if Requirement(r).name == "setuptools"
    )
    return req


def test_the_license_is_an_spdx_expression_not_a_table() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"
    # PEP 639: with an expression, License :: classifiers are an error.
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    assert (ROOT / "LICENSE").is_file()


def test_setuptools_is_bounded_to_the_releases_that_read_the_spdx_license() -> None:
    spec = _setuptools().specifier
    lower = [s for s in spec if s.operator == ">="]
    upper = [s for s in spec if s.operator == "<"]
    assert lower, "no lower bound: an older setuptools would refuse the string license"
    assert upper, "no upper bound: a future setuptools could stop building the README's commands"
    assert all(Version(s.version) >= SPDX_FROM for s in lower), spec
    assert not spec.contains("76.1.0"), "setuptools 76 rejects `license` as a string"
    assert spec.contains("77.0.3")
    assert spec.contains("84.2.1"), "the newest release checked (README) must be admitted"


installed = pytest.mark.skipif(
    DIST not in {d.metadata["Name"] for d in metadata.distributions()}
    or not Path(harness.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()),
    reason="harness is imported from a checkout, not from an installed wheel (tox installs one)",
)


@installed
def test_the_built_wheel_declares_the_license_as_an_spdx_expression() -> None:
    meta = metadata.metadata(DIST)
    assert meta["License-Expression"] == "Apache-2.0"
    assert Version(meta["Metadata-Version"]) >= Version("2.4")
    assert meta.get("License") is None, "the old free-text License field is still written"
    files = [str(f) for f in metadata.files(DIST) or []]
    assert any(re.search(r"\.dist-info/licenses/LICENSE$", f) for f in files), files


def test_python_314_is_claimed_and_ci_runs_it() -> None:
    # Issue 29, point 19: `requires-python <3.14` refused to install where python3 is 3.14.
    # GitHub's ubuntu-24.04 runners have 3.14 (actions/setup-python), so CI runs every env
    # on it (the newest) as on 3.10 (the oldest), and the package admits it.
    from packaging.specifiers import SpecifierSet

    assert SpecifierSet(PYPROJECT["project"]["requires-python"]).contains("3.14.0")
    assert "Programming Language :: Python :: 3.14" in PYPROJECT["project"]["classifiers"]
    ci = (ROOT / ".github" / "workflows" / "ci.yaml").read_text(encoding="utf-8")
    assert re.search(r'^\s+python: \["3\.10", "3\.14"\]$', ci, re.MULTILINE), "CI matrix"


def _tox() -> configparser.ConfigParser:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    return tox


def test_the_readmes_tox_makes_its_envs_with_uv_and_runs_its_tests_on_every_core() -> None:
    # Issue 29, point 20: a bare `tox` on a clean clone took 515 s, unit 311 s of it.
    tox = _tox()
    requires = [Requirement(r) for r in tox["tox"]["requires"].split()]
    assert "tox-uv" in {r.name for r in requires}, "envs made by uv, not virtualenv and pip"
    for name in ("unit", "libjuju29"):
        env = tox[f"testenv:{name}"]
        assert "pytest-xdist" in {
            Requirement(line.strip()).name
            for line in env["deps"].splitlines()
            if line.strip() and not line.strip().startswith("-")
        }, name
        (command,) = [c for c in env["commands"].splitlines() if c.strip()]
        assert re.search(r"\s-n auto\s", command), command
    # Scratch in memory: a twin run frees thousands of files, each a wait on a `discard` disk.
    settings = dict(
        line.strip().split(" = ", 1)
        for line in tox["testenv"]["set_env"].splitlines()
        if " = " in line and not line.strip().startswith("#")
    )
    assert settings["TMPDIR"] == "{env:REPRO_TEST_TMPDIR:/dev/shm}"
    # .ci/run installs both, so CI needs no provisioning step either.
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "tox-uv" in ci_run
    assert re.search(r"^python3 -m tox p$", ci_run, re.MULTILINE), "CI runs the README's `tox p`"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "\npython3 -m pip install tox tox-uv && python3 -m tox p\n" in readme
    assert "set -euo pipefail" in ci_run, "a failing test fails CI"


def test_an_env_whose_commands_run_pip_has_pip_under_tox_uv() -> None:
    # tox-uv makes each env with uv, which puts no pip in it: `python -m pip` in an env's
    # commands then fails at once ("No module named pip"; the rehearsal env on a clean clone).

    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini")
    for section in tox.sections():
        run = tox[section].get("commands_pre", "") + tox[section].get("commands", "")
        if "-m pip" in run:
            assert tox[section].get("uv_seed", "").strip() == "true", section
