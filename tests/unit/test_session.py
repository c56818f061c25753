"""The deployment a test module shares: evidence even when deploying fails, one run each."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness.session import DEPLOY_FOLDER, Deployment
from harness.stack import default_stack
from harness.twin import make_lab


def test_a_failed_deploy_still_leaves_a_bundle_saying_why(tmp_path: Path) -> None:
    lab = make_lab(workdir=tmp_path / "twin")
    stack = default_stack("./no-such-charm.charm")
    evidence = tmp_path / "evidence"
    deployment = Deployment(lab, stack, evidence, "3.6")

    with pytest.raises(Exception):  # noqa: B017, PT011 - whatever the backend raised
        asyncio.run(deployment.deploy())

    bundle = json.loads((evidence / DEPLOY_FOLDER / "bundle.json").read_text())
    assert bundle["scenario"] == DEPLOY_FOLDER
    assert bundle["simulated"] is True
    assert bundle["error"]
    assert "juju deploy" in "\n".join(bundle["commands"])
    assert "SIMULATED" in (evidence / DEPLOY_FOLDER / "report.md").read_text()


def test_each_scenario_runs_once_per_module_and_is_reused(tmp_path: Path) -> None:
    lab = make_lab(workdir=tmp_path / "twin")
    probe = Path(__file__).resolve().parents[2] / "charms" / "probe"
    deployment = Deployment(lab, default_stack(str(probe)), tmp_path / "evidence", "3.6")

    async def twice() -> tuple[object, object]:
        await deployment.deploy()
        first = await deployment.run("lp2021891-pod-delete")
        second = await deployment.run("lp2021891-pod-delete")
        return first, second

    first, second = asyncio.run(twice())
    assert first is second
