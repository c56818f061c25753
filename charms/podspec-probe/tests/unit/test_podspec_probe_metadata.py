"""The podspec probe's metadata: charmcraft's own project model accepts it (as the sidecar
probe's), and it is what Juju 2.9 and 3.6 need to run it as a podspec charm."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

CHARM_DIR = Path(__file__).resolve().parents[2]
VALIDATOR = CHARM_DIR.parent / "probe" / "tests" / "validate_charmcraft.py"


def _load(name: str, root: Path = CHARM_DIR) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((root / name).read_text(encoding="utf-8"))
    return data


def _needs_charmcraft() -> None:
    """Skip without charmcraft, except where it must be installed (``tox -e lint``)."""
    if os.environ.get("REQUIRE_CHARMCRAFT") == "1":
        import charmcraft  # noqa: F401  (an ImportError fails the test: lint must have it)
    else:
        pytest.importorskip("charmcraft", reason="charmcraft is installed in tox -e lint")


def _validate(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(VALIDATOR), str(project / "charmcraft.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )


def test_charmcraft_accepts_charmcraft_yaml_with_metadata_yaml() -> None:
    _needs_charmcraft()

    result = _validate(CHARM_DIR)

    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("file", "change", "expected"),
    [
        # charmcraft reads name, summary and description from metadata.yaml (add_metadata)
        ("metadata.yaml", {"name": None}, "invalid name"),
        # `series` is not a charmcraft.yaml key: it must stay in metadata.yaml
        ("charmcraft.yaml", {"series": ["kubernetes"]}, "extra inputs are not permitted"),
        # a base that is not one of charmcraft's legacy `bases` needs `platforms`
        (
            "charmcraft.yaml",
            {"bases": [{"build-on": [{"name": "ubuntu", "channel": "21.99"}]}]},
            "base requires 'platforms'",
        ),
    ],
)
def test_charmcraft_rejects_a_broken_project(
    tmp_path: Path, file: str, change: dict[str, Any], expected: str
) -> None:
    _needs_charmcraft()
    for name in ("charmcraft.yaml", "metadata.yaml"):
        shutil.copy(CHARM_DIR / name, tmp_path / name)
    data = _load(file, tmp_path)
    for key, value in change.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    (tmp_path / file).write_text(yaml.safe_dump(data), encoding="utf-8")

    result = _validate(tmp_path)

    assert result.returncode == 1
    assert expected in result.stderr


def test_juju_29_and_36_run_it_as_a_stateful_podspec_charm() -> None:
    meta = _load("metadata.yaml")
    # juju/charm charm.go MetaFormat: a `series` list makes it format v1 (podspec) even with
    # charmcraft's manifest bases; core/charm/kubernetes.go IsKubernetes reads the series.
    assert meta["series"] == ["kubernetes"]
    # meta.go checkV1: a v1 charm has no containers and no assumes.
    assert "containers" not in meta
    assert "assumes" not in meta
    # k8s.go ensureService / providerID: a StatefulSet keeps a replaced pod's unit.
    assert meta["deployment"]["type"] == "stateful"
    # providerconfig.go RequireOperatorStorage: from 2.8.0 no operator storage is needed.
    assert tuple(int(p) for p in meta["min-juju-version"].split(".")) >= (2, 8, 0)
    assert meta["resources"]["workload-image"]["type"] == "oci-image"
    assert meta["requires"]["probe-requirer"]["interface"] == "probe"


def test_it_builds_on_focal_with_ops_2_for_the_operator_pods_python_38() -> None:
    project = _load("charmcraft.yaml")
    channels = {
        (base["name"], base["channel"])
        for entry in project["bases"]
        for key in ("build-on", "run-on")
        for base in entry[key]
    }
    assert channels == {("ubuntu", "20.04")}
    pins = (CHARM_DIR / "requirements.txt").read_text(encoding="utf-8")
    (major,) = re.findall(r"^ops==(\d+)\.", pins, flags=re.MULTILINE)
    assert major == "2"  # ops 3 needs Python 3.10


@pytest.mark.parametrize("source", sorted((CHARM_DIR / "src").glob("*.py")), ids=lambda p: p.name)
def test_the_charm_source_parses_as_python_38(source: Path) -> None:
    tree = ast.parse(source.read_text(encoding="utf-8"), feature_version=(3, 8))
    # Built-in generics such as dict[str, int] outside annotations fail on 3.8 at run time;
    # annotations are strings here (from __future__ import annotations).
    assert any(
        isinstance(node, ast.ImportFrom) and node.module == "__future__" for node in tree.body
    )


def test_the_journal_action_runs_in_the_operator_pod() -> None:
    params = _load("charmcraft.yaml")["actions"]["journal"]["params"]
    # worker/uniter/runner/runner.go RunAction: a podspec charm's action runs in the
    # workload pod unless workload-context is false; the journal is in the operator pod.
    assert params["workload-context"] == {
        "type": "boolean",
        "default": False,
        "description": params["workload-context"]["description"],
    }


def test_charmcraft_lints_the_packed_metadata_with_a_warning_for_series_only() -> None:
    _needs_charmcraft()
    from charmcraft.linters import JujuMetadata

    # charmcraft copies metadata.yaml into the charm as it is; its linter reads it there.
    linter = JujuMetadata()
    result = linter.run(CHARM_DIR)

    assert result == JujuMetadata.Result.WARNING, linter.text
    assert "deprecated attribute: series" in linter.text
    assert "rejected starting in Juju 4.0" in linter.text
