"""Juju bug 1830745 as it happened: a podspec charm's own pod-spec-set (issue 26).

The podspec probe's leader sets a new pod spec (``juju config podspec-probe spec-token=``);
the workload pod is replaced. Unit names and every databag of both sides must be kept, and
the podspec unit runs only what the catalogue expects, in its operator pod. The unit list is
read at least once a second through the roll and kept in the evidence. Live on Juju 2.9 and
3.6 (it needs the packed podspec probe in $PODSPEC_PROBE_CHARM and the probe); refused on
4.0, where podspec charms are gone.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion
from harness.run.podspec import (
    EVIDENCE_FILE,
    PodspecRun,
    judge,
    live_run,
    run_twin,
    write_evidence,
)
from harness.scenario.podspec import POD_SPEC_SET

pytestmark = pytest.mark.disruptive


def _assert_kept(run: PodspecRun, evidence_dir: Path) -> None:
    findings = judge(run)
    folder = write_evidence(evidence_dir / f"{POD_SPEC_SET.name}-{run.backend}", run, findings)
    print(f"evidence: {folder}")
    assert all(f.ok for f in findings), [f for f in findings if not f.ok]
    recorded = json.loads((folder / EVIDENCE_FILE).read_text())
    assert recorded["samples"], "the unit list was not recorded through the roll"


def _controller_juju() -> JujuVersion | None:
    from harness.live.drivers import controller_version

    text = controller_version()
    return JujuVersion.parse(text) if text else None


def test_pod_spec_set_keeps_units_and_databags(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    backend = request.config.getoption("--backend")
    evidence_dir = Path(str(request.config.getoption("--evidence-dir")))
    if backend == "twin":
        juju = JujuVersion.parse(str(request.config.getoption("--juju-version")))
        if juju.major >= 4:
            pytest.skip("podspec charms are gone from Juju 4.0: nothing to simulate")
        _assert_kept(run_twin(POD_SPEC_SET, juju, tmp_path), evidence_dir)
        return
    juju = _controller_juju()
    if juju is None:
        pytest.skip("no Juju controller is reachable (`juju show-controller` did not answer)")
    if juju.major >= 4:
        with pytest.raises(HarnessError, match="podspec charms are gone") as refused:
            asyncio.run(_live(juju, "unused", "unused"))
        assert "\n" not in str(refused.value)
        return
    podspec_charm = os.environ.get("PODSPEC_PROBE_CHARM")
    probe_charm = request.config.getoption("--probe-charm")
    if not podspec_charm or not probe_charm:
        pytest.skip("needs $PODSPEC_PROBE_CHARM (packed charms/podspec-probe) and --probe-charm")
    _assert_kept(asyncio.run(_live(juju, podspec_charm, str(probe_charm))), evidence_dir)


async def _live(juju: JujuVersion, podspec_charm: str, probe_charm: str) -> PodspecRun:
    return await live_run(
        POD_SPEC_SET,
        juju,
        model="repro-podspec",
        podspec_charm=podspec_charm,
        probe_charm=probe_charm,
        keep_model=False,
        token="pod-spec-set-1",
    )
