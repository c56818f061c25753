"""A whole scenario on the twin, end to end: simulated, and the same bundle every time."""

from __future__ import annotations

import json
from pathlib import Path

from harness.run.deploy import deploy_stack
from harness.run.scenario import run_scenario
from harness.scenario.scenarios import scenario
from harness.scenario.stack import default_stack
from harness.twin import make_lab

PROBE_DIR = Path(__file__).resolve().parents[2] / "charms" / "probe"


async def bundle(tmp_path: Path, name: str) -> bytes:
    stack = default_stack(str(PROBE_DIR))
    lab = make_lab(workdir=tmp_path / "twin")
    await deploy_stack(lab, stack)
    result = await run_scenario(
        lab, scenario(name), stack, tmp_path / "evidence", progress=lambda _: None
    )
    return (result.folder / "bundle.json").read_bytes()


async def test_the_same_scenario_twice_gives_a_byte_identical_bundle(tmp_path: Path) -> None:
    first = await bundle(tmp_path / "a", "lp2021891-pod-delete")
    second = await bundle(tmp_path / "b", "lp2021891-pod-delete")
    assert first == second
    data = json.loads(first)
    assert data["backend"] == "twin"
    assert data["simulated"] is True
    assert "simulated" in data["versions"]["juju_agent"]
    probe_hooks = [
        h["hook"]
        for h in data["hooks"]
        if h["unit"] == "probe/0" and h["source"] == "debug-log" and h["kind"] == "hook"
    ]
    assert probe_hooks[:4] == ["stop", "upgrade-charm", "config-changed", "start"]
