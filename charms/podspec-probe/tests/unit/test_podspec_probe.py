"""The podspec probe under ops' Harness (Scenario does not implement pod-spec-set): its
leader sets a spec carrying the config's token, every hook is journaled, and it writes its
databags on the relation to the sidecar probe."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from ops.testing import Harness

# Scenario (ops.testing.Context) raises NotImplementedError for pod-spec-set; the Harness
# records the spec (get_pod_spec), so these tests use it despite its deprecation.
pytestmark = pytest.mark.filterwarnings("ignore:Harness is deprecated:PendingDeprecationWarning")

CHARM_DIR = Path(__file__).resolve().parents[2]
SRC = CHARM_DIR / "src"
IMAGE = "registry.example/ubuntu/nginx:1.24"


def _charm_module() -> ModuleType:
    """src/charm.py under its own name: the sidecar probe's ``charm`` may be on sys.path."""
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))
    spec = importlib.util.spec_from_file_location("podspec_probe_charm", SRC / "charm.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # Harness finds the charm's directory through it
    spec.loader.exec_module(module)
    return module


CHARM = _charm_module()
import podspec_journal  # noqa: E402
import podspec_spec  # noqa: E402


def _yaml(name: str) -> str:
    return (CHARM_DIR / name).read_text(encoding="utf-8")


def _actions() -> str:
    return yaml.safe_dump(yaml.safe_load(_yaml("charmcraft.yaml"))["actions"])


def _config() -> str:
    return yaml.safe_dump(yaml.safe_load(_yaml("charmcraft.yaml"))["config"])


@pytest.fixture
def harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Harness[Any]]:
    monkeypatch.setenv("HOSTNAME", "podspec-probe-operator-0")
    found: Harness[Any] = Harness(
        CHARM.PodspecProbeCharm,
        meta=_yaml("metadata.yaml"),
        actions=_actions(),
        config=_config(),
    )
    found.framework.charm_dir = tmp_path  # the unit's charm directory in the operator pod
    found.add_oci_resource(
        "workload-image", {"registrypath": IMAGE, "username": "", "password": ""}
    )
    yield found
    found.cleanup()


def _journal(harness: Harness[Any]) -> list[dict[str, Any]]:
    return podspec_journal.read(
        Path(harness.charm.framework.charm_dir) / "podspec-probe-journal.jsonl"
    )


def test_the_leader_sets_a_spec_carrying_the_config_token(harness: Harness[Any]) -> None:
    harness.set_leader(True)
    harness.begin_with_initial_hooks()
    spec, _ = harness.get_pod_spec()
    assert podspec_spec.token_of(spec) == "initial"
    assert spec["containers"][0]["imageDetails"] == {"imagePath": IMAGE}

    harness.update_config({"spec-token": "second"})

    spec, _ = harness.get_pod_spec()
    assert podspec_spec.token_of(spec) == "second"
    assert harness.charm.unit.status.message.endswith("spec-token second")


def test_a_non_leader_sets_no_spec(harness: Harness[Any]) -> None:
    harness.set_leader(False)
    harness.begin_with_initial_hooks()
    harness.update_config({"spec-token": "second"})

    assert harness.get_pod_spec() is None
    assert [e["event"] for e in _journal(harness)][-1] == "config-changed"


def test_every_hook_is_journaled_in_order_with_the_operator_pod(harness: Harness[Any]) -> None:
    harness.set_leader(True)
    harness.begin_with_initial_hooks()
    harness.update_config({"spec-token": "second"})

    entries = _journal(harness)
    events = [e["event"] for e in entries]
    assert events[0] == "install"
    assert events[-1] == "config-changed"
    assert "leader-elected" in events
    assert "start" in events
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1))
    assert {e["pod"] for e in entries} == {"podspec-probe-operator-0"}
    assert entries[-1]["spec_token"] == "second"
    assert entries[-1]["unit"] == "podspec-probe/0"


def test_it_writes_its_databags_and_journals_the_remote_ones(harness: Harness[Any]) -> None:
    harness.set_leader(True)
    harness.begin_with_initial_hooks()
    rel = harness.add_relation("probe-requirer", "probe")
    harness.add_relation_unit(rel, "probe/0")
    harness.update_relation_data(rel, "probe/0", {"probe-check": "probe/0"})
    harness.update_relation_data(rel, "probe", {"probe-check": "probe"})

    assert harness.get_relation_data(rel, "podspec-probe/0") == {
        "podspec-probe-unit": "podspec-probe/0"
    }
    assert harness.get_relation_data(rel, "podspec-probe") == {
        "podspec-probe-app": "podspec-probe"
    }
    harness.update_config({"spec-token": "third"})
    bags = _journal(harness)[-1]["databags"][f"probe-requirer:{rel}"]
    assert bags["probe/0"] == {"probe-check": "probe/0"}
    assert bags["probe"] == {"probe-check": "probe"}
    assert bags["podspec-probe/0"] == {"podspec-probe-unit": "podspec-probe/0"}


def test_no_resource_blocks_with_the_reason(tmp_path: Path) -> None:
    harness: Harness[Any] = Harness(
        CHARM.PodspecProbeCharm, meta=_yaml("metadata.yaml"), config=_config()
    )
    harness.framework.charm_dir = tmp_path
    harness.set_leader(True)
    harness.begin_with_initial_hooks()
    assert harness.charm.unit.status.name == "blocked"
    assert "no workload-image resource" in harness.charm.unit.status.message
    harness.cleanup()


def test_the_journal_action_pages_after_a_cursor(harness: Harness[Any]) -> None:
    harness.set_leader(True)
    harness.begin_with_initial_hooks()
    total = len(_journal(harness))

    first = harness.run_action("journal", {"limit": 2})
    entries = json.loads(first.results["entries"])
    assert [e["seq"] for e in entries] == [1, 2]
    assert first.results["more"] == "true"
    rest = harness.run_action("journal", {"since": int(first.results["cursor"])})
    assert [e["seq"] for e in json.loads(rest.results["entries"])] == list(range(3, total + 1))
    assert "more" not in rest.results
