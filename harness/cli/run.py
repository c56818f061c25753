"""``repro run``: a named scenario, or a disruption on a user's bundle, end to end.

Everything a person can get wrong is refused before anything is deployed; then the backend
is chosen (live when a controller answers), the plan printed (``--dry-run``) or the run
started under an interruption handler, and the evidence folder printed last, even for a
run that stopped early.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli.arguments import check_model, judge_juju, parse_juju_option, require_consent
from harness.cli.output import courteous_stdout, print_folder, say_charm_errors
from harness.cli.plan import print_plan
from harness.cli.probe_charm import probe_charm_for
from harness.common.errors import EnvironmentUnavailable, HarnessError, unknown
from harness.common.versions import JujuVersion
from harness.live import extra as live_extra
from harness.live.extra import require_live
from harness.run.options import RunOptions
from harness.scenario.scenarios import one_unit

if TYPE_CHECKING:
    from harness.cli.arguments import Subparsers
    from harness.common.interrupt import Interruption
    from harness.run.bundle_run import BundleRun
    from harness.run.result import RunResult
    from harness.scenario.scenarios import Scenario
    from harness.scenario.stack import Stack

BOOTSTRAP_FIX = "bootstrap one with `juju bootstrap microk8s`, or pass --backend twin"


def add_parsers(sub: Subparsers) -> None:
    p = sub.add_parser("run", help="run one scenario end to end and write its evidence")
    p.add_argument(
        "scenario",
        metavar="SCENARIO",
        help="a scenario, or a disruption run on the default stack; `repro list` names both "
        "(with --bundle: a disruption, run on that bundle)",
    )
    p.add_argument("--backend", choices=("auto", "live", "twin"), default="auto")
    p.add_argument("--juju", metavar="VERSION", help="the Juju version the twin simulates")
    p.add_argument("--app", help="disrupt this application instead of the scenario's")
    p.add_argument(
        "--unit",
        metavar="APP/N",
        help="pod-delete, container-restart: only this unit of its application "
        "(default: every unit of each target; the plan says which pods go)",
    )
    p.add_argument("--evidence-dir", default="evidence", metavar="DIR")
    p.add_argument("--model", metavar="NAME", help="use this model (live)")
    p.add_argument("--keep-model", action="store_true", help="do not destroy the model")
    p.add_argument("--dry-run", action="store_true", help="print the plan, touch nothing")
    p.add_argument("--probe-charm", metavar="PATH", help="the packed probe .charm (live)")
    p.add_argument(
        "--bundle", metavar="FILE", help="deploy this Juju bundle (SCENARIO is a disruption)"
    )
    p.add_argument(
        "--overlay",
        action="append",
        metavar="FILE",
        help="an overlay applied to --bundle, as `juju deploy --overlay` (repeatable)",
    )
    p.add_argument(
        "--watch",
        action="append",
        metavar="APP:CONTAINER:PATH",
        help="a file whose survival is recorded and judged (repeatable; with --bundle)",
    )
    p.add_argument(
        "--mark",
        action="append",
        metavar="APP:CONTAINER:PATH",
        help="like --watch, and the harness writes the file first (repeatable)",
    )
    p.add_argument(
        "--charm-source",
        action="append",
        metavar="APP=DIR",
        help="twin: run this app's real charm code from DIR (src/charm.py); repeatable",
    )
    p.add_argument(
        "--charm-venv",
        action="append",
        metavar="APP=VENV",
        help="twin: import that --charm-source app's own dependencies from the virtual "
        "environment VENV, built for the Python repro runs on (default: DIR/.venv or "
        "DIR/venv when it is one); repeatable",
    )
    p.add_argument(
        "--no-probe", action="store_true", help="do not add the probe observer to the bundle"
    )
    p.add_argument(
        "--redact",
        action="append",
        metavar="KEY",
        help="never show the value of this config option or relation data key in the "
        "evidence or the plan, only its digest (repeatable; keys that look secret and "
        "options of type secret are always redacted)",
    )
    p.add_argument(
        "--juju-driver",
        choices=("auto", "libjuju", "jubilant"),
        default="auto",
        help="live: python-libjuju (Juju 2.9, 3.x) or jubilant (3.x, 4.x); "
        "auto follows the controller's version",
    )
    p.add_argument(
        "--inherit-model-config",
        action="store_true",
        help="live: a model the harness creates keeps the controller's model-defaults "
        "(e.g. automatically-retry-hooks=false from a CI bootstrap) instead of Juju's defaults",
    )
    p.add_argument(
        "--allow-node-restart",
        action="store_true",
        help="live: let node-restart stop and start MicroK8s (and with it the controller)",
    )
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from harness.scenario.podspec import podspec_scenario

    options = RunOptions.from_args(args)
    # Progress is a courtesy: a closed stdout (`| head`) never stops a run.
    with courteous_stdout():
        if options.bundle:
            return _run_bundle(options, options.bundle)
        podspec = podspec_scenario(options.scenario)
        if podspec is not None:  # its own stack: the podspec probe and the sidecar probe
            from harness.cli.podspec_run import run_podspec

            backend, announcement = _choose_backend(options.backend, options.dry_run)
            print(announcement, flush=True)
            return run_podspec(options, podspec, backend)
        return _run_on_default_stack(options)


# --- a named scenario, or a disruption on the default stack --------------------------------


def _run_on_default_stack(options: RunOptions) -> int:
    from harness.evidence.folders import check_evidence_root, claim_folder
    from harness.run.launch import deploy_and_run
    from harness.run.plan import plan
    from harness.scenario.scenarios import scenario as find_scenario
    from harness.scenario.stack import default_stack

    for flag, given in (
        ("--watch", options.watch),
        ("--mark", options.mark),
        ("--charm-source", options.charm_source),
        ("--charm-venv", options.charm_venv),
        ("--overlay", options.overlay),
    ):
        if given:
            raise HarnessError(f"{flag} needs --bundle", "pass the bundle the app is in")
    chosen = find_scenario(options.scenario)
    require_consent(chosen.name, chosen.disruption, options.backend, options)
    check_model(options.model)
    juju, notes = _juju_option(options)
    if not options.dry_run:
        # Before anything is deployed or disrupted: a bad folder must cost nothing.
        check_evidence_root(options.evidence_dir)
    backend, announcement = _choose_backend(options.backend, options.dry_run)
    print(announcement, flush=True)
    require_consent(chosen.name, chosen.disruption, backend, options)
    stack = replace(default_stack(probe_charm_for(options, backend)), redact=options.redact)
    chosen = _targets_for(chosen, options.app, stack.app_names)
    if options.unit is not None:
        chosen = one_unit(chosen, options.unit, _units_of(stack), options.app)
    _say_juju(options, backend, notes)
    _inherit_on_twin(options, backend)
    if options.dry_run:
        model = options.model or f"repro-{chosen.name}"
        print_plan(
            options,
            backend,
            chosen.disruption,
            juju,
            lambda version: plan(
                chosen,
                stack,
                model=model,
                namespace=model,
                juju=version,
                new_model=options.model is None,
                model_config=_model_config_set(options, backend),
            ),
        )
        return 0
    folder = claim_folder(options.evidence_dir, f"{chosen.name}-{backend}")
    return _execute(
        folder,
        chosen,
        backend,
        stack,
        lambda interruption: deploy_and_run(
            options,
            backend,
            chosen,
            stack,
            folder,
            juju,
            juju_notes=notes.track_only,
            interruption=interruption,
        ),
        options,
        juju,
    )


def _targets_for(scenario: Scenario, app: str | None, stack_apps: Sequence[str]) -> Scenario:
    from harness.scenario.scenarios import Target

    if app is None:
        return scenario
    if app not in stack_apps:
        raise unknown("application", app, stack_apps)
    chosen = tuple(t for t in scenario.targets if t.app == app)
    if not chosen:
        template = scenario.targets[0]
        chosen = (Target(app, container=template.container, resource=template.resource),)
    return replace(scenario, targets=chosen)


# --- a disruption on a user's bundle -------------------------------------------------------


def _run_bundle(options: RunOptions, bundle: str) -> int:
    from harness.evidence.folders import check_evidence_root, claim_folder
    from harness.run.bundle_run import (
        folder_name,
        parse_charm_sources,
        plan_lines,
        prepare_run,
        start,
    )
    from harness.scenario.bundle.load import load_bundle

    require_consent(options.scenario, options.scenario, options.backend, options)
    juju, notes = _juju_option(options)
    check_model(options.model)
    # A bad file is refused before the backend is even chosen (any app's charm source may
    # stand in for a local charm not packed yet: the twin runs the source).
    load_bundle(bundle, parse_charm_sources(options.charm_source), options.overlay)
    backend, announcement = _choose_backend(options.backend, options.dry_run)
    print(announcement, flush=True)
    require_consent(options.scenario, options.scenario, backend, options)
    probe = None if options.no_probe else probe_charm_for(options, backend)
    run = prepare_run(options, backend, probe)
    if options.unit is not None:
        chosen = one_unit(run.scenario, options.unit, _units_of(run.stack), options.app)
        run = replace(run, scenario=chosen)
    if not options.dry_run:  # a dry run's plan has them
        for note in (*run.bundle.notes, *run.notes):
            print(f"note: {note.removeprefix('# ')}", flush=True)
    if not options.dry_run:
        # After the bundle's checks (bad input leaves nothing behind), before any deploy.
        check_evidence_root(options.evidence_dir)
    _say_juju(options, backend, notes)
    _inherit_on_twin(options, backend)
    if options.dry_run:
        model = options.model or f"repro-{run.scenario.name}"
        print_plan(
            options,
            backend,
            run.scenario.disruption,
            juju,
            lambda version: plan_lines(
                run,
                model,
                version,
                new_model=options.model is None,
                model_config=_model_config_set(options, backend),
            ),
            containers=_disrupted_containers(run),
        )
        return 0
    folder = claim_folder(options.evidence_dir, f"{folder_name(run)}-{backend}")
    return _execute(
        folder,
        run.scenario,
        backend,
        run.stack,
        lambda interruption: start(
            options, backend, run, folder, juju, interruption, juju_notes=notes.track_only
        ),
        options,
        juju,
    )


@dataclass(frozen=True)
class _JujuNotes:
    """What to say about ``--juju``: every note (stdout), and the track's (for the run: the
    run notes an extrapolation itself, for whatever version it judges)."""

    all: tuple[str, ...] = ()
    track_only: tuple[str, ...] = ()


def _juju_option(options: RunOptions) -> tuple[JujuVersion | None, _JujuNotes]:
    """``--juju`` read once: checked always, judged where it counts (not on live, where
    the controller's version decides): a track is its newest release, and said."""
    juju = parse_juju_option(options.juju)
    if options.juju is None or options.backend == "live":
        return juju, _JujuNotes()
    judged = judge_juju(options.juju)
    track = (judged.track,) if judged.track else ()
    return judged.version, _JujuNotes(judged.notes, track)


def _say_juju(options: RunOptions, backend: str, notes: _JujuNotes) -> None:
    if backend == "live" and options.juju:
        print("note: --juju is ignored on live: the controller's version decides", flush=True)
        return
    for note in notes.all:
        print(f"note: {note}", flush=True)


def _model_config_set(options: RunOptions, backend: str) -> dict[str, str]:
    """What a live run sets on the model it makes: Juju's hook settings, unless told to
    keep the controller's model-defaults; nothing on a model it did not make."""
    from harness.live.model_config import JUJU_DEFAULTS

    if backend != "live" or options.model is not None or options.inherit_model_config:
        return {}
    return dict(JUJU_DEFAULTS)


def _units_of(stack: Stack) -> dict[str, int]:
    return {spec.app: spec.units for spec in stack.apps}


def _disrupted_containers(run: BundleRun) -> tuple[str, ...]:
    """The disrupted app's workload containers, when its metadata is known."""
    target = run.scenario.targets[0]
    if target.container:
        return (target.container,)
    meta = run.metas.get(target.app)
    return meta.container_names if meta is not None else ()


# --- the backend --------------------------------------------------------


def _controller_reachable() -> object:
    """Truthy when a controller answers; its ``why`` (when present) says what was seen."""
    from harness.live.controller import check_controller

    return check_controller(say=lambda line: print(f"repro: {line}", file=sys.stderr))


def _choose_backend(requested: str, dry_run: bool) -> tuple[str, str]:
    """The backend and the first line that announces it."""
    if requested == "twin":
        return "twin", "backend: twin (SIMULATED: an in-process simulation, not a real Juju)"
    if requested == "live":
        require_live()
        if not dry_run:
            check = _controller_reachable()
            if not check:
                raise _unreachable(check)
        return "live", "backend: live" + (" (dry run: nothing is touched)" if dry_run else "")
    if live_extra.missing():
        return "twin", (
            "backend: twin (the live extra is not installed: "
            f"{live_extra.INSTALL}; results are SIMULATED)"
        )
    check = _controller_reachable()
    if check:
        return "live", "backend: live (a Juju controller is reachable)"
    why = getattr(check, "why", "") or "no Juju controller is reachable"
    return "twin", f"backend: twin ({why}, so this fell back to the twin: results are SIMULATED)"


def _unreachable(check: object) -> EnvironmentUnavailable:
    """What did not answer, and a fix that fits: bootstrap only when there is no controller."""
    why = getattr(check, "why", "") or "no Juju controller is reachable"
    if getattr(check, "configured", False):
        fix = "check the controller with `juju status` (up? reachable?), or pass --backend twin"
        return EnvironmentUnavailable(why, fix)
    return EnvironmentUnavailable(f"no Juju controller is reachable: {why}", BOOTSTRAP_FIX)


def _inherit_on_twin(options: RunOptions, backend: str) -> None:
    if backend == "twin" and options.inherit_model_config:
        print(
            "note: --inherit-model-config is ignored on the twin: it has no controller "
            "and no model-defaults (SIMULATED)",
            flush=True,
        )


# --- running under an interruption handler --------------------------------------------------

SCENARIO_RUNTIME_LOGGER = "ops-scenario.runtime"
"""ops-scenario warns through it each time the twin makes a Context (e.g. about Juju 2.x)."""


class _Once(logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message in self.seen:
            return False
        self.seen.add(message)
        return True


@contextlib.contextmanager
def _each_warning_once(name: str) -> Iterator[None]:
    """Within a run, a logger's repeated message is shown once (the twin runs many hooks)."""
    logger, once = logging.getLogger(name), _Once()
    logger.addFilter(once)
    try:
        yield
    finally:
        logger.removeFilter(once)


def _execute(
    folder: Path,
    scenario: Scenario,
    backend: str,
    stack: Stack,
    start: Callable[[Interruption], Coroutine[Any, Any, RunResult]],
    options: RunOptions,
    juju: JujuVersion | None,
) -> int:
    """Run under an interruption handler; a run that stops early still leaves its bundle.

    A stop is one RunInterrupted saying by which signal and during what (the cancel the
    first signal caused is no error of its own); the handlers stay installed until the
    folder is printed.
    """
    from harness.common.interrupt import Interruption
    from harness.run.launch import write_unfinished_bundle

    interruption = Interruption()
    with interruption.installed(), _each_warning_once(SCENARIO_RUNTIME_LOGGER):
        try:
            result = asyncio.run(start(interruption))
        except BaseException as exc:
            stop = interruption.stop_for(exc)
            with interruption.writing():
                written = write_unfinished_bundle(
                    folder, scenario, backend, stack, stop or exc, options=options, juju=juju
                )
                if written is not None:
                    print_folder(written)
            if stop is not None and stop is not exc:
                raise stop from exc
            _raise_without_secrets(exc, stack)
            raise
        say_charm_errors(result.evidence.charm_errors)
        print_folder(result.folder)
    if interruption.requested:
        raise KeyboardInterrupt(f"interrupted by {interruption.signal_name} after the run ended")
    return int(result.exit_code)


def _raise_without_secrets(exc: BaseException, stack: Stack) -> None:
    """An error that quotes a secret option (a failed `juju deploy --config ...`) goes to the
    terminal with the value redacted, as the bundle has it."""
    from harness.common.redact import scrub
    from harness.run.result import one_line
    from harness.scenario.secrets import secret_values

    values = secret_values(stack)
    if isinstance(exc, Exception) and scrub(str(exc), values) != str(exc):
        raise HarnessError(scrub(one_line(exc), values)) from None
