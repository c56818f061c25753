"""``repro run lp1830745-pod-spec-set``: the podspec scenario, on the twin or live.

Its stack is its own (the podspec probe and the sidecar probe), so it does not go through
the default stack's run; the backend is chosen as for every scenario. On a Juju without
podspec charms (4.0 on) it is refused in one line, dry run or not.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.arguments import parse_juju
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion
from harness.live.podspec import live_plan
from harness.run.options import RunOptions
from harness.scenario.podspec import PodspecScenario, refusal

if TYPE_CHECKING:
    from harness.run.podspec import PodspecRun

PODSPEC_CHARM_ENV = "PODSPEC_PROBE_CHARM"
DEFAULT_JUJU = "3.6"
TOKEN = "pod-spec-set-1"


def run_podspec(options: RunOptions, scenario: PodspecScenario, backend: str) -> int:
    """Plan, or run and judge; exit 0 when every finding is ok, 1 otherwise."""
    live = backend == "live"
    juju = _client_juju(options) if live else parse_juju(options.juju or DEFAULT_JUJU)
    refused = refusal(scenario, juju)
    if refused is not None:
        raise refused
    model = options.model or f"repro-{scenario.name}"
    if options.dry_run:
        if backend == "twin":
            print("# the twin runs this in-process (SIMULATED); on a live Juju it would run:")
        for line in live_plan(
            scenario,
            juju,
            model=model,
            podspec_charm=_podspec_charm(options),
            probe_charm=options.probe_charm or "./charms/probe/probe_amd64.charm",
            token=TOKEN,
        ):
            print(line)
        return 0
    from harness.evidence.folders import check_evidence_root, claim_folder
    from harness.run.podspec import judge, run_twin, write_evidence

    check_evidence_root(options.evidence_dir)
    if backend == "twin":
        with tempfile.TemporaryDirectory(prefix="repro-podspec-") as work:
            run = run_twin(scenario, juju, Path(work), token=TOKEN)
    else:
        run = asyncio.run(_live(options, scenario, juju, model))
    findings = judge(run)
    claimed = claim_folder(options.evidence_dir, f"{scenario.name}-{backend}")
    folder = write_evidence(claimed, run, findings)
    for finding in findings:
        print(f"{'ok' if finding.ok else 'DEVIATION'}: {finding.check}: {finding.detail}")
    print(folder)
    return 0 if all(f.ok for f in findings) else 1


def _client_juju(options: RunOptions) -> JujuVersion:
    """The controller's Juju for a run (podspec support is the controller's); the client's
    for a dry run, which needs no controller."""
    from harness.live.drivers import client_version, controller_version

    if not options.dry_run:
        running = controller_version()
        if running:
            print(f"# Juju controller {running}")
            return parse_juju(running)
    text = client_version()
    if text is None:
        if options.juju:
            print(f"# juju client: not found or not answering; planned for --juju {options.juju}")
            return parse_juju(options.juju)
        raise HarnessError(
            "the local juju client did not answer `juju version`",
            "install the juju snap, or pass --juju 2.9|3.6 to plan for that version",
        )
    print(f"# juju client {text}")
    return parse_juju(text)


def _podspec_charm(options: RunOptions) -> str:
    return os.environ.get(PODSPEC_CHARM_ENV) or "./charms/podspec-probe/podspec-probe.charm"


async def _live(
    options: RunOptions, scenario: PodspecScenario, juju: JujuVersion, model: str
) -> PodspecRun:
    from harness.run.podspec import live_run

    return await live_run(
        scenario,
        juju,
        model=model,
        podspec_charm=_podspec_charm(options),
        probe_charm=options.probe_charm,
        keep_model=options.keep_model or bool(options.model),
        token=TOKEN,
    )
