"""The deployment a test module shares: evidence even when deploying fails, one run each."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness.scenario.stack import default_stack
from harness.suite.session import DEPLOY_FOLDER, Deployment
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


def test_a_run_whose_bundle_went_to_the_fallback_points_there_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from harness.run.result import RunResult
    from harness.suite.session import Disrupter

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    lab = make_lab(workdir=tmp_path / "twin")
    probe = Path(__file__).resolve().parents[2] / "charms" / "probe"
    evidence = tmp_path / "evidence"
    deployment = Deployment(lab, default_stack(str(probe)), evidence, "3.6")
    evidence.mkdir()
    (evidence / "lp2021891-pod-delete").write_text("taken: not a folder")  # cannot be written
    recorded: list[Path] = []

    async def disrupt() -> RunResult:
        await deployment.deploy()
        return await Disrupter(deployment, recorded.append)("lp2021891-pod-delete")

    # A passing test shows no failure report: the warning summary names where it went.
    with pytest.warns(UserWarning, match="repro-evidence") as warned:
        result = asyncio.run(disrupt())

    folder = result.folder
    assert folder.parent == tmp_path / "tmp" / "repro-evidence"
    assert recorded == [folder]  # a failing test's summary points at the bundle that exists
    assert str(evidence / "lp2021891-pod-delete") in str(warned[0].message)


def test_a_second_session_keeps_the_first_sessions_bundles_beside_its_own(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.evidence import folders

    # pytest writes to fixed folders (evidence/<scenario>/): a second session, or a second
    # module running the same scenario, must not replace the bundle a bug report points at.
    probe = Path(__file__).resolve().parents[2] / "charms" / "probe"
    evidence = tmp_path / "evidence"

    def session(workdir: str) -> Path:
        deployment = Deployment(
            make_lab(workdir=tmp_path / workdir), default_stack(str(probe)), evidence, "3.6"
        )

        async def run() -> Path:
            await deployment.deploy()
            return (await deployment.run("lp2021891-pod-delete")).folder

        return asyncio.run(run())

    first = session("twin-1")
    first_bundle = (first / "bundle.json").read_text()
    monkeypatch.setattr(folders, "_USED_THIS_PROCESS", set())  # a new session: a new process
    with caplog.at_level("INFO"):
        second = session("twin-2")

    assert second == evidence / "lp2021891-pod-delete"  # where the README says it is
    (kept,) = evidence.glob("lp2021891-pod-delete.earlier-*")
    assert (kept / "bundle.json").read_text() == first_bundle
    assert (kept / "report.md").exists()
    assert (second / "bundle.json").exists()  # the twin is deterministic: same content
    assert str(kept) in caplog.text


def test_two_modules_running_one_scenario_each_keep_the_bundle_their_report_points_at(
    tmp_path: Path,
) -> None:
    from harness.suite.session import Disrupter

    probe = Path(__file__).resolve().parents[2] / "charms" / "probe"
    evidence = tmp_path / "evidence"
    recorded: list[Path] = []

    def module(workdir: str) -> None:  # one test module: its own deployment, one process
        deployment = Deployment(
            make_lab(workdir=tmp_path / workdir), default_stack(str(probe)), evidence, "3.6"
        )

        async def run() -> None:
            await deployment.deploy()
            await Disrupter(deployment, recorded.append)("lp2021891-pod-delete")

        asyncio.run(run())

    module("twin-1")
    module("twin-2")

    # The first module's failure summary still points at its own bundle: not moved aside.
    assert recorded == [evidence / "lp2021891-pod-delete", evidence / "lp2021891-pod-delete-2"]
    assert all((folder / "bundle.json").exists() for folder in recorded)
    assert not list(evidence.glob("*.earlier-*"))
