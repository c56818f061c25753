"""The launcher of ``repro run``: connect the backend, deploy the stack, run the scenario.

Live, it connects to (or creates) the model; on the twin, it makes the simulated lab, with
the charm each app of a user's bundle runs. Shared by a named scenario and a user's bundle
(``harness.run.bundle_run``), so neither needs the command line to start a run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from harness.common.versions import JujuVersion
from harness.run.deploy import deploy_stack
from harness.run.options import RunOptions
from harness.run.result import RunResult
from harness.run.scenario import run_scenario
from harness.scenario.scenarios import Scenario
from harness.scenario.stack import Stack

if TYPE_CHECKING:
    from harness.common.interrupt import Interruption
    from harness.twin.charms import CharmSource


async def deploy_and_run(
    options: RunOptions,
    backend: str,
    scenario: Scenario,
    stack: Stack,
    folder: Path,
    juju: JujuVersion | None,
    *,
    interruption: Interruption | None = None,
    charms: Mapping[str, CharmSource] | None = None,
    ran_by: Mapping[str, str] | None = None,
) -> RunResult:
    """Deploy the stack and run the scenario. ``charms`` and ``ran_by`` (a user's bundle on
    the twin): the charm each app runs, and what the evidence says about it."""
    if interruption is not None:
        interruption.attach()
    if backend == "live":
        from harness.live.lab import connect_lab

        async with connect_lab(
            options.model,
            options.keep_model,
            driver=options.juju_driver,
            juju_defaults=not options.inherit_model_config,
        ) as lab:
            driver = getattr(lab.juju, "driver", "?")
            print(f"model: {lab.juju.model_name} (Juju driver {driver})", flush=True)
            what = f"bundle {stack.bundle.path.name}" if stack.bundle else "the stack"
            print(f"deploying {what}", flush=True)
            await deploy_stack(lab, stack)
            return await run_scenario(lab, scenario, stack, folder, interruption=interruption)
    from harness.twin import make_lab

    version = str(juju) if juju else "3.6"
    # A probe charm directory given on the command line is the code the twin runs.
    given = Path(options.probe_charm) if options.probe_charm else None
    lab = make_lab(
        juju_version=version,
        probe_dir=given if given and given.is_dir() else None,
        charms=charms,
    )
    print(f"model: {lab.juju.model_name} (SIMULATED, Juju {version})", flush=True)
    for app, what in sorted((ran_by or {}).items()):
        print(f"{app}: {what}", flush=True)
    await deploy_stack(lab, stack)
    return await run_scenario(
        lab,
        scenario,
        stack,
        folder,
        juju_version=version,
        interruption=interruption,
        ran_by=ran_by,
    )
