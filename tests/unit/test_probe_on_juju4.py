"""What Juju 4.0 requires of the probe charm, checked against charms/probe/charmcraft.yaml.

- Juju 4.0 defaults an action's ``additionalProperties`` to false, so any parameter the
  harness sends that the action does not declare would be refused (juju/juju
  docs/howto/upgrade-your-juju-deployment-from-36-to-40.md, "Actions"). The harness's own
  calls are recorded while it deploys, marks and observes a stack on the twin.
- The base must be one Juju 4 runs workloads on (core/base/supportedbases.go on juju main:
  ubuntu 20.04, 22.04, 23.10, 24.04) and a base, not a series ("Series -> Bases").
- Deploying a charm directory was removed in 4.0: the live path deploys a packed ``.charm``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from harness.observe.journal import read_journal
from harness.observe.snapshot import take_snapshot
from harness.run.deploy import deploy_stack, mark_stack
from harness.scenario.stack import default_stack
from harness.twin import make_lab
from harness.twin.charms import default_probe_dir

CHARMCRAFT = Path(__file__).resolve().parents[2] / "charms" / "probe" / "charmcraft.yaml"
JUJU_4_WORKLOAD_BASES = {"ubuntu@20.04", "ubuntu@22.04", "ubuntu@23.10", "ubuntu@24.04"}


def metadata() -> dict[str, Any]:
    return dict(yaml.safe_load(CHARMCRAFT.read_text(encoding="utf-8")))


async def test_every_action_parameter_the_harness_sends_is_declared() -> None:
    sent: list[tuple[str, Mapping[str, object]]] = []
    stack = default_stack(str(default_probe_dir()))
    lab = make_lab(juju_version="4.0")
    run_action = lab.juju.run_action

    async def recording(unit: str, action: str, params: Mapping[str, object] | None = None) -> Any:
        if unit.startswith("probe"):
            sent.append((action, dict(params or {})))
        return await run_action(unit, action, params)

    lab.juju.run_action = recording  # type: ignore[method-assign]
    await deploy_stack(lab, stack)
    await mark_stack(lab, stack)
    await take_snapshot(lab, stack)
    await read_journal(lab.juju, "probe/0")

    actions = metadata()["actions"]
    assert {action for action, _ in sent} >= {"write-marker", "set-databag", "journal"}
    for action, params in sent:
        declared = set((actions[action] or {}).get("params") or {})
        assert set(params) <= declared, f"{action} is sent undeclared {set(params) - declared}"


def test_the_probe_declares_a_base_juju_4_runs() -> None:
    data = metadata()
    assert data["base"] in JUJU_4_WORKLOAD_BASES
    assert "series" not in data
