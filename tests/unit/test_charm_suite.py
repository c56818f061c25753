"""A charm repository's own disruption tests: the README example is the one CI runs."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any
from unittest.mock import create_autospec

import pytest

from harness.charm_suite import CharmStack, load_for, packer, twin_deployment
from harness.common.errors import HarnessError
from harness.lab.ports import Lab
from harness.live.jubilant_port import JubilantJujuPort
from harness.live.juju_port import LiveJujuPort

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "charm-repo"


def readme_block(after: str) -> str:
    text = (ROOT / "README.md").read_text()
    found = re.search(re.escape(after) + r"\n\n```python\n(.*?)```", text, re.S)
    assert found, f"no python block after {after} in README.md"
    return found.group(1)


@pytest.mark.parametrize("name", ["conftest.py", "test_disruptions.py"])
def test_the_readme_shows_the_example_ci_runs_verbatim(name: str) -> None:
    assert (
        readme_block(f"`tests/integration/{name}`:")
        == (EXAMPLE / "tests" / "integration" / name).read_text()
    )


def test_each_example_test_is_three_lines() -> None:
    text = (EXAMPLE / "tests" / "integration" / "test_disruptions.py").read_text()
    bodies = re.findall(r"async def test_\w+\(charm_disrupt\):\n((?:    .+\n)+)", text)
    assert bodies
    assert all(len(body.splitlines()) == 3 for body in bodies)


def spec(**kw: Any) -> CharmStack:
    return CharmStack(bundle=EXAMPLE / "bundle.yaml", app="demo", source=EXAMPLE, **kw)


def test_the_charm_under_test_replaces_the_bundles_unpacked_charm(tmp_path: Path) -> None:
    packed = tmp_path / "demo-config_ubuntu-22.04-amd64.charm"
    packed.write_text("zip")
    bundle = load_for(spec(), packed)
    # Both apps name the same local charm in the bundle: both get the packed one.
    assert {a.name: a.app_spec().charm for a in bundle.apps} == {
        "demo": str(packed),
        "demo-client": str(packed),
    }


async def test_twin_deployment_runs_the_real_charm_and_records_evidence(tmp_path: Path) -> None:
    deployment = twin_deployment(
        spec(mark=("demo:app:/srv/data/.marker",)),
        juju_version="3.6",
        workdir=tmp_path / "twin",
        evidence_root=tmp_path / "ev",
    )
    await deployment.deploy()
    run = await deployment.run("pod-delete")
    assert run is await deployment.run("pod-delete")  # one run per disruption per module
    assert run.evidence.simulated
    assert run.folder.parent.name.startswith("charm-repo-")
    marker = [f for f in run.findings if f.check == "file"]
    assert [(f.subject, f.verdict) for f in marker] == [
        ("demo/0 app:/srv/data/.marker", "match")  # storage: kept across a new pod
    ]


def live_lab(port: type[Any]) -> Lab:
    lab = create_autospec(Lab, instance=True)
    lab.juju = create_autospec(port, instance=True)
    lab.juju.driver = port.driver
    return lab


def no_ops_test(name: str) -> None:
    raise AssertionError(f"{name} was asked for")


def test_without_pytest_operator_the_charm_must_be_packed_first() -> None:
    with pytest.raises(
        HarnessError, match=r"pytest-operator is not installed.*pass CharmStack\(packed="
    ):
        packer(spec(), live_lab(LiveJujuPort), lambda name: None)


def test_the_jubilant_driver_never_sets_up_ops_test_and_says_to_pack_first() -> None:
    # Setting ops_test up would add a libjuju model beside the lab's (and fails on Juju 4).
    with pytest.raises(HarnessError, match=r"jubilant driver deploys a packed charm.*packed="):
        packer(spec(), live_lab(JubilantJujuPort), no_ops_test)


def test_ops_test_is_set_up_outside_the_loop_that_builds_the_charm(tmp_path: Path) -> None:
    from pytest_operator.plugin import OpsTest

    ops_test = create_autospec(OpsTest, instance=True)
    ops_test.build_charm.return_value = tmp_path / "demo-config_ubuntu-22.04-amd64.charm"
    loop = asyncio.new_event_loop()

    def fixture(name: str) -> OpsTest:
        # what pytest-asyncio 0.21 does to set up an async fixture
        loop.run_until_complete(asyncio.sleep(0))
        return ops_test

    try:
        packed = packer(spec(), live_lab(LiveJujuPort), fixture)
        assert loop.run_until_complete(packed()) == ops_test.build_charm.return_value
    finally:
        loop.close()
    ops_test.build_charm.assert_awaited_once_with(EXAMPLE)


@pytest.mark.parametrize("port", [LiveJujuPort, JubilantJujuPort])
def test_a_given_packed_charm_is_used_as_it_is(tmp_path: Path, port: type[Any]) -> None:
    charm = tmp_path / "demo.charm"
    charm.write_text("zip")
    assert asyncio.run(packer(spec(packed=charm), live_lab(port), no_ops_test)()) == charm
    with pytest.raises(HarnessError, match="no such packed charm"):
        packer(spec(packed=tmp_path / "missing.charm"), live_lab(port), no_ops_test)


async def test_a_failed_deploy_leaves_a_bundle_naming_the_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import harness.charm_suite
    from harness.evidence.bundle import read_bundle

    async def broken(lab: Any, stack: Any) -> None:
        raise RuntimeError("image pull failed")

    monkeypatch.setattr(harness.charm_suite, "deploy_stack", broken)
    deployment = twin_deployment(
        spec(), juju_version="3.6", workdir=tmp_path / "twin", evidence_root=tmp_path / "ev"
    )
    with pytest.raises(RuntimeError):
        await deployment.deploy()
    stopped = read_bundle(deployment.evidence_dir / "deploy")
    assert stopped.error == "RuntimeError: image pull failed"
    assert stopped.simulated
    assert stopped.bundle is not None
    assert stopped.bundle.file == "bundle.yaml"


def test_a_scale_the_twin_cannot_hold_is_refused_before_the_twin_starts(tmp_path: Path) -> None:
    big = tmp_path / "bundle.yaml"
    big.write_text((EXAMPLE / "bundle.yaml").read_text().replace("scale: 1", "scale: 5000", 1))
    with pytest.raises(HarnessError, match="has scale 5000: the twin simulates at most 100"):
        twin_deployment(
            CharmStack(bundle=big, app="demo", source=EXAMPLE),
            juju_version="3.6",
            workdir=tmp_path / "twin",
            evidence_root=tmp_path / "ev",
        )
    assert not (tmp_path / "ev").exists()
