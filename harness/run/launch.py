"""The launcher of ``repro run``: connect the backend, deploy the stack, run the scenario.

Live, it connects to (or creates) the model; on the twin, it makes the simulated lab, with
the charm each app of a user's bundle runs. Shared by a named scenario and a user's bundle
(``harness.run.bundle_run``), so neither needs the command line to start a run.

A run that fails or is interrupted before its scenario begins (connecting, deploying)
still leaves a bundle: the steps the deploy finished and one line saying why, or during
what it was interrupted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from harness.common.interrupt import Interruption, describe
from harness.common.observations import Step
from harness.common.versions import JujuVersion
from harness.evidence import write
from harness.evidence.folders import fallback_folder
from harness.evidence.model import Evidence
from harness.run.deploy import deploy_stack
from harness.run.options import RunOptions
from harness.run.reproduce import (
    deploy_commands,
    disrupted_apps,
    portable_commands,
    repro_command,
    user_bundle,
)
from harness.run.result import RunResult, one_line
from harness.run.scenario import run_scenario
from harness.scenario.scenarios import Scenario
from harness.scenario.secrets import secret_values
from harness.scenario.stack import Stack

if TYPE_CHECKING:
    from harness.twin.charms import CharmSource

DEPLOYING = "deploying the stack"

TWIN_JUJU = "3.6"
"""The Juju version the twin simulates when ``--juju`` is not given."""


TWIN_JUJU = "3.6"
"""The Juju version the twin simulates when ``--juju`` is not given."""


async def deploy_and_run(
    options: RunOptions,
    backend: str,
    scenario: Scenario,
    stack: Stack,
    folder: Path,
    juju: JujuVersion | None,
    *,
    juju_notes: Sequence[str] = (),
    interruption: Interruption | None = None,
    charms: Mapping[str, CharmSource] | None = None,
    ran_by: Mapping[str, str] | None = None,
) -> RunResult:
    """Deploy the stack and run the scenario. ``juju`` (the twin's version) and
    ``juju_notes``, how it was chosen, go to the evidence. ``charms`` and ``ran_by`` (a
    user's bundle on the twin): the charm each app runs, and what the evidence says about it."""
    if interruption is None:  # not installed: it only names the stage a stop came in
        interruption = Interruption()
    interruption.attach()
    deployed: list[Step] = []
    begun = False  # from here on the scenario run writes its own bundle
    try:
        if backend == "live":
            from harness.live.lab import connect_lab

            _now_in(interruption, "connecting to the controller")
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
                _now_in(interruption, DEPLOYING)
                await deploy_stack(lab, stack, kept=deployed)
                begun = True
                return await run_scenario(
                    lab, scenario, stack, folder, interruption=interruption, options=options
                )
        from harness.twin import make_lab

        version = str(juju) if juju else TWIN_JUJU
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
        _now_in(interruption, DEPLOYING)
        await deploy_stack(lab, stack, kept=deployed)
        begun = True
        return await run_scenario(
            lab,
            scenario,
            stack,
            folder,
            juju_version=version,
            juju_notes=juju_notes,
            interruption=interruption,
            ran_by=ran_by,
            options=options,
        )
    except BaseException as exc:
        if begun:
            raise
        stop = interruption.stop_for(exc)
        with interruption.writing():
            write_unfinished_bundle(
                folder, scenario, backend, stack, stop or exc, deployed, options=options, juju=juju
            )
        if stop is not None and stop is not exc:
            raise stop from exc  # the cancel a signal caused is no error of its own
        raise


def _now_in(interruption: Interruption, stage: str) -> None:
    interruption.during = stage


def write_unfinished_bundle(
    folder: Path,
    scenario: Scenario,
    backend: str,
    stack: Stack,
    exc: BaseException,
    steps: Sequence[Step] = (),
    *,
    options: RunOptions | None = None,
    juju: JujuVersion | None = None,
) -> Path | None:
    """The bundle of a run that stopped before its scenario began: the deploy's finished
    ``steps`` and one line saying why (an interruption: by which signal, during what).
    ``options`` and ``juju`` (the twin's version) make its Reproduce command. Where it went:
    ``folder``, or a fallback folder (said) when that refused; None if nowhere. Written once
    a run: where one is already (the launcher wrote it), that folder is returned."""
    already = unfinished_bundle(folder)
    if already is not None:
        return already
    twin_version = (str(juju) if juju else TWIN_JUJU) if backend == "twin" else None
    interrupted = isinstance(exc, KeyboardInterrupt)
    error = str(exc) if interrupted and str(exc) else one_line(exc)
    if interrupted and not str(exc):
        error = describe("SIGINT", "start-up (connecting and deploying)")
    evidence = Evidence.before_the_run(
        scenario.name,
        "twin" if backend == "twin" else "live",
        backend == "twin",
        (
            repro_command(scenario, backend, twin_version, stack, options),
            *portable_commands(deploy_commands(stack), stack),
        ),
        error,
        disruption=scenario.disruption,
        interrupted=interrupted,
        steps=tuple(steps),
        disrupted=disrupted_apps(scenario, stack),
    )
    # A user's bundle is named even when deploying it failed.
    evidence = replace(
        evidence,
        bundle=user_bundle(stack, scenario.targets[0].app, None),
        redact=stack.redact,
        secrets=secret_values(stack),
    )
    try:
        written = write.write_bundle(evidence, folder)
    except OSError as error:
        # As at the end of a run: the fallback folder, said; no empty folder left behind.
        with contextlib.suppress(OSError):
            folder.rmdir()
        try:
            written = write.write_bundle(evidence, fallback_folder(folder))
        except OSError:
            return None
        print(f"could not write the evidence to {folder} ({error.strerror}); wrote {written}")
    _unfinished[folder] = written
    return written


# Where each run's unfinished bundle went, by the folder it claimed (the launcher writes it
# when the deploy fails; the CLI must print that folder, and not write a second bundle).
_unfinished: dict[Path, Path] = {}


def unfinished_bundle(folder: Path) -> Path | None:
    """The unfinished bundle already written for the run that claimed ``folder``, if any."""
    if (folder / "bundle.json").exists():
        return folder
    return _unfinished.get(folder)
