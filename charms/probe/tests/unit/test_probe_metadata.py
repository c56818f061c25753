"""charmcraft.yaml declares what the team relies on, and the lint check really validates it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import paths
import pytest
import yaml
from probe_testing import CHARMCRAFT_YAML, PROBE_DIR, charmcraft

VALIDATOR = PROBE_DIR / "tests" / "validate_charmcraft.py"

# Names and params the harness calls (TEAM.md); renaming one breaks the live backend.
ACTIONS = {
    "journal": {"since", "limit"},
    "write-marker": {"container", "path", "content"},
    "list-files": {"container", "paths"},
    "dump-relations": set(),
    "set-databag": {"endpoint", "relation-id", "scope", "key", "value"},
    "clear-journal": set(),
}


def test_actions_and_their_params() -> None:
    actions = charmcraft()["actions"]
    assert {name: set((spec or {}).get("params", {})) for name, spec in actions.items()} == ACTIONS


def test_endpoints_storage_container_and_config() -> None:
    meta = charmcraft()
    assert meta["base"] == "ubuntu@22.04"
    assert meta["peers"] == {"probe-peers": {"interface": "probe-peers"}}
    assert meta["provides"]["probe-provider"]["interface"] == "probe"
    assert meta["requires"]["probe-requirer"]["interface"] == "probe"
    assert meta["requires"]["database"] == {"interface": "mysql_client", "limit": 1}
    assert meta["storage"]["journal"]["type"] == "filesystem"
    assert meta["containers"]["workload"]["resource"] == "workload-image"
    assert meta["resources"]["workload-image"]["type"] == "oci-image"
    options = meta["config"]["options"]
    assert options["database-name"]["default"] == "probe"
    assert options["pod-template-annotation"]["default"] == ""


def test_paths_are_in_step_with_the_harness() -> None:
    stack = pytest.importorskip(
        "harness.scenario.stack", reason="needs the harness package importable"
    )
    assert paths.WORKLOAD_MARKER == stack.PROBE_WORKLOAD_MARKER
    assert paths.ROOT_INCARNATION == stack.PROBE_ROOT_INCARNATION
    assert charmcraft()["name"] == stack.PROBE


def _needs_charmcraft() -> None:
    """Skip without charmcraft, except where it must be installed (``tox -e lint``)."""
    if os.environ.get("REQUIRE_CHARMCRAFT") == "1":
        import charmcraft  # noqa: F401  (an ImportError fails the test: lint must have it)
    else:
        pytest.importorskip("charmcraft", reason="charmcraft is installed in tox -e lint")


def _validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(VALIDATOR), str(path)], capture_output=True, text=True, check=False
    )


def test_charmcraft_accepts_the_charmcraft_yaml() -> None:
    _needs_charmcraft()

    result = _validate(CHARMCRAFT_YAML)

    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("base", "ubuntu@21.99", "base"),
        ("platforms", None, "platforms"),
        ("containerz", {}, "extra inputs are not permitted"),
    ],
)
def test_charmcraft_rejects_a_broken_charmcraft_yaml(
    tmp_path: Path, key: str, value: object, expected: str
) -> None:
    _needs_charmcraft()
    meta = charmcraft()
    if value is None:
        del meta[key]
    else:
        meta[key] = value
    broken = tmp_path / "charmcraft.yaml"
    broken.write_text(yaml.safe_dump(meta))

    result = _validate(broken)

    assert result.returncode == 1
    assert expected in result.stderr


def test_juju_checks_catch_what_charmcraft_lets_through(tmp_path: Path) -> None:
    sys.path.insert(0, str(VALIDATOR.parent))
    try:
        import validate_charmcraft
    finally:
        sys.path.remove(str(VALIDATOR.parent))
    meta = charmcraft()
    meta["config"]["options"]["database-name"]["type"] = "strung"
    meta["storage"]["journal"]["type"] = "floppy"
    broken = tmp_path / "charmcraft.yaml"
    broken.write_text(yaml.safe_dump(meta))

    assert validate_charmcraft.juju_checks(CHARMCRAFT_YAML) == []
    assert validate_charmcraft.juju_checks(broken) == [
        "config option 'database-name': type must be one of "
        "['boolean', 'float', 'int', 'secret', 'string']",
        "storage 'journal': type must be one of ['block', 'filesystem']",
    ]
