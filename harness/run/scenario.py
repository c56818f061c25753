"""One scenario end to end on a deployed stack; shared by ``repro run`` and the pytest plugin.

Versions, a ``before`` snapshot, each target's disruption, a wait until the model settles,
an ``after`` snapshot, the hooks inside the disruption window (debug-log and the probe
journal), the verdict, and the evidence bundle. The bundle is written whatever happens: when
a step raises, with what was gathered so far and the error, and the exception goes on up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.common.errors import HarnessError
from harness.common.findings import Finding
from harness.common.interrupt import Interruption, RunInterrupted, writing
from harness.common.observations import Snapshot, Step
from harness.common.redact import scrub
from harness.common.versions import JujuVersion, Versions
from harness.evidence.folders import fallback_folder, folder_for_new_bundle
from harness.evidence.model import Evidence
from harness.evidence.write import write_bundle
from harness.lab.ports import Lab
from harness.live.signals import Interrupted
from harness.run.gathered import Gathered, Progress, lab_now
from harness.run.hooks import charm_errors_of, collect_log_hooks, journal_hooks
from harness.run.options import RunOptions
from harness.run.reproduce import (
    applied_targets,
    deploy_commands,
    disrupted_apps,
    disruption_commands,
    local_charm,
    portable_commands,
    repro_command,
    user_bundle,
)
from harness.run.result import RunResult, one_line
from harness.scenario.hook_names import HookNames, expecting, hook_names, required_per_unit
from harness.scenario.scenarios import Scenario
from harness.scenario.secrets import secret_values
from harness.scenario.stack import Stack

if TYPE_CHECKING:
    from harness.catalogue.model import Expectation
    from harness.verdict.branches import BranchChoice


async def _versions(lab: Lab) -> Versions:
    versions = await lab.juju.versions()
    if versions.kubernetes is None:
        versions = replace(versions, kubernetes=await lab.cluster.server_version())
    if versions.microk8s is None and lab.backend == "live":
        versions = replace(versions, microk8s=await lab.node.version())
    return versions


def _pick_juju(versions: Versions, given: str | None) -> str:
    """The version the catalogue is consulted for: the one asked for (twin), else detected."""
    for candidate in (given, versions.juju_agent, versions.juju_controller):
        if candidate:
            try:
                JujuVersion.parse(candidate)
            except ValueError as exc:
                raise HarnessError(str(exc), "pass --juju with a version such as 3.6") from None
            return candidate
    raise HarnessError("could not learn the Juju version", "pass --juju VERSION, e.g. 3.6")


def _disrupted_units(scenario: Scenario, before: Snapshot) -> tuple[str, ...]:
    """The targets' units as they were before: named ones, or every unit of the app."""
    known = sorted({s.unit for s in before.statuses} | {p.unit for p in before.pods})
    units: list[str] = []
    for target in scenario.targets:
        chosen = target.units or tuple(u for u in known if u.rpartition("/")[0] == target.app)
        units.extend(u for u in chosen if u not in units)
    return tuple(units)


def _affected_units(scenario: Scenario, stack: Stack) -> dict[str, int]:
    counts = {spec.app: spec.units for spec in stack.apps}
    return {t.app: counts.get(t.app, 1) for t in scenario.targets}


def _say(line: str) -> None:
    """A progress line, flushed: through a pipe (`| tee`, `| head`) each shows as it ends."""
    print(line, flush=True)


async def run_scenario(
    lab: Lab,
    scenario: Scenario,
    stack: Stack,
    evidence_dir: Path | str,
    *,
    juju_version: str | None = None,
    juju_notes: Sequence[str] = (),
    progress: Progress = _say,
    ran_by: Mapping[str, str] | None = None,
    interruption: Interruption | None = None,
    options: RunOptions | None = None,
) -> RunResult:
    """Run ``scenario`` on a deployed ``stack`` and write its bundle into ``evidence_dir``.

    ``juju_version`` overrides the detected version for the catalogue (the twin's simulated
    version); ``juju_notes`` say how it was chosen (the run adds one when the catalogue
    extrapolates); ``options`` (``repro run``'s) make the report's Reproduce command.
    The bundle is written even when a step raises; the exception is re-raised. An
    ``interruption`` asked for (Ctrl-C) stops the run at its next stage; the bundle says
    so and RunInterrupted is raised. A folder that cannot be written gives way to a fallback
    folder, named in the progress and in ``RunResult.folder``.
    """
    folder, note = folder_for_new_bundle(evidence_dir)
    if note is not None:
        progress(note)
    got = Gathered(
        scenario,
        lab,
        bundle=user_bundle(stack, scenario.targets[0].app, ran_by),
        redact=stack.redact,
        secrets=secret_values(stack),
        disrupted=disrupted_apps(scenario, stack),
        interruption=interruption,
    )
    if interruption is not None:  # a stop asked for as the deploy ended names the deploy
        got.stage = interruption.during
    try:
        got.juju_notes = tuple(juju_notes)
        await _run(got, lab, scenario, stack, juju_version, progress, options)
        got.enter("writing the evidence")
    except BaseException as exc:
        error, interrupted = got.failure(exc)
        got.charm_errors = charm_errors_of(lab)
        # A cancel, or a stop asked for that a library turned into its own error, is no
        # failure to explain: reading the debug-log would hold the stop up to its timeout.
        stopping = isinstance(exc, asyncio.CancelledError) or bool(
            interruption and interruption.requested
        )
        stop = None
        if not (interrupted or stopping):
            stop = await _hooks_after_failure(got, lab, progress)
        error = scrub(error, got.secrets)  # it goes to the terminal too
        with writing(interruption):
            written = _write(got.evidence(error, interrupted=interrupted), folder, progress)
        progress(f"the run stopped early ({error}); evidence so far: {written}")
        if stop is not None:  # Ctrl-C while reading them: the bundle is written; stop now
            signal_name = interruption.signal_name if interruption else None
            raise RunInterrupted(signal_name or type(stop).__name__, got.stage) from exc
        if interrupted and not isinstance(exc, RunInterrupted):
            signal_name = interruption.signal_name if interruption else None
            if isinstance(exc, Interrupted):
                signal_name = exc.signal_name
            raise RunInterrupted(signal_name or type(exc).__name__, got.during(exc)) from exc
        raise
    evidence = got.evidence()
    with writing(interruption):
        return RunResult(evidence, _write(evidence, folder, progress))


HOOKS_AFTER_FAILURE_TIMEOUT = 120.0
"""How long a failed run may spend reading the debug-log before writing its bundle."""


async def _hooks_after_failure(
    got: Gathered, lab: Lab, progress: Progress
) -> BaseException | None:
    """After a failure past the start of the disruption, the debug-log's hooks since then.

    A unit stuck in error is the usual reason settling fails, and the hook that failed is
    what a bug report needs. Reading it is bounded and may fail (the controller may be the
    problem); the step says which. Returns a Ctrl-C that arrived meanwhile, to raise once
    the bundle is written.
    """
    if got.window_start is None or got.hooks:
        return None
    got.now_in("collecting hooks after the failure")
    bound = f"{HOOKS_AFTER_FAILURE_TIMEOUT:g} s"
    progress(f"collecting hooks after the failure (debug-log, at most {bound})")
    start = lab_now(lab)
    stop: BaseException | None = None
    try:
        hooks, notes = await asyncio.wait_for(
            collect_log_hooks(lab, got.versions, got.window_start, lab.clock.now()),
            HOOKS_AFTER_FAILURE_TIMEOUT,
        )
        got.hooks = hooks
        detail = "; ".join((f"{len(hooks)} from the debug-log since the disruption", *notes))
    except (KeyboardInterrupt, asyncio.CancelledError) as exc:
        stop, detail = exc, "interrupted"
    except asyncio.TimeoutError:  # wait_for's carries no message: say what was awaited
        detail = f"could not read the debug-log: it did not answer within {bound}"
    except Exception as exc:  # the run's own error is the one to report, not this one
        detail = f"could not read the debug-log: {one_line(exc)}"
    got.record(Step("collect hooks after the failure", start, lab_now(lab), detail), progress)
    asked = got.interruption is not None and got.interruption.requested
    # Its cancel can be lost: wait_for before 3.12 returns a result ready as the cancel came
    # (CPython issue #86296; fixed in 3.12 by PR #98518). The stop asked for still stops.
    if stop is None and asked:
        stop = KeyboardInterrupt()
    return stop


def _write(evidence: Evidence, folder: Path, progress: Progress) -> Path:
    """Write the bundle into ``folder``, or into a fallback folder if that fails."""
    try:
        return write_bundle(evidence, folder)
    except OSError as exc:
        fallback = write_bundle(evidence, fallback_folder(folder))
        progress(f"could not write the evidence to {folder} ({exc.strerror}); wrote {fallback}")
        return fallback


async def _run(
    got: Gathered,
    lab: Lab,
    scenario: Scenario,
    stack: Stack,
    juju_version: str | None,
    progress: Progress,
    options: RunOptions | None = None,
) -> None:
    from harness.catalogue import load
    from harness.catalogue.judged import extrapolated
    from harness.disrupt import get
    from harness.disrupt.steps import keeping_steps
    from harness.observe.settle import wait_settled
    from harness.observe.snapshot import take_snapshot
    from harness.twin.charms import default_probe_dir as probe_dir
    from harness.verdict.branches import choose_branch, describe_branches
    from harness.verdict.charm_errors import relevant, with_charm_errors
    from harness.verdict.invented import invented, with_invented
    from harness.verdict.journal_layers import layer_findings
    from harness.verdict.judge import VERDICTS, judge

    label = "SIMULATED on the twin" if lab.simulated else f"live, model {lab.juju.model_name}"
    if lab.rehearsal is not None:
        label = f"REHEARSAL, model {lab.juju.model_name} ({lab.rehearsal.world})"
    progress(f"scenario {scenario.name} ({scenario.disruption}), {label}")

    with got.timed_stage("read versions", progress) as versions:
        got.versions = await _versions(lab)
        got.juju = _pick_juju(got.versions, juju_version)
        juju = JujuVersion.parse(got.juju)
        extrapolation = extrapolated(juju, load())
        if extrapolation:
            got.juju_notes = (*got.juju_notes, extrapolation)
        # Commands a reader can paste: no path of this machine; and for the twin, nothing
        # aimed at a model or namespace that existed only in the simulation.
        disruption_lines: tuple[str, ...] = ()
        if not lab.simulated:
            disruption_lines = disruption_commands(
                scenario, lab.juju.model_name, lab.cluster.namespace, local_charm(scenario, stack)
            )
        got.commands = (
            repro_command(scenario, lab.backend, got.juju, stack, options),
            *portable_commands((*deploy_commands(stack, juju), *disruption_lines), stack),
        )
        # Look the expectation up before disrupting anything: an unknown entry fails early.
        target_container = next((t.container for t in scenario.targets if t.container), None)
        target_signal = next((t.signal for t in scenario.targets if t.signal), None)
        catalogue = load()
        expected = got.expectation = catalogue.expect(
            scenario.disruption, juju, container=target_container, signal=target_signal
        )
        # Hooks spelled out from each charm's metadata before anything is disrupted (settle
        # and the verdict use these); a workload container's restart concerns only its own.
        container = target_container or ""
        one_container = expected.scope == "container" and bool(container)
        workload_only = one_container and expected.container == "workload"
        containers = {t.app: (container,) for t in scenario.targets} if workload_only else None
        affected = _affected_units(scenario, stack)
        names = hook_names(stack, tuple(affected), containers=containers, probe_dir=probe_dir)
        versions.detail = f"Juju {got.juju}"
    progress(f"Juju {got.juju}; expecting {expecting(expected, scenario, names)}")

    with got.timed_stage("snapshot before", progress, say="snapshot before"):
        before = got.before = await take_snapshot(lab, stack)

    window_start = got.window_start = lab.clock.now()
    disrupted = _disrupted_units(scenario, before)
    disruption = get(scenario.disruption, charm_path=local_charm(scenario, stack))
    for target in applied_targets(scenario, disruption):
        who = ", ".join(target.units) or f"every unit of {target.app}"
        if disruption.takes_node_down:
            who = f"the node, under {', '.join(sorted({t.app for t in scenario.targets}))}"
        got.enter(f"{scenario.disruption} of {who}")
        progress(f"{scenario.disruption}: {who}")
        with keeping_steps() as kept:
            try:
                steps = await disruption.apply(lab, target)
            except BaseException:
                got.record(kept, progress)  # what it did before it failed, and when
                raise
        got.record(steps, progress)

    got.enter("waiting until settled")
    progress(f"waiting until settled: {', '.join(affected)}")
    before_pods = {p.unit: p for p in before.pods}
    required, by_quiet = required_per_unit(expected, disrupted, names)
    if by_quiet:  # which endpoints run them depends on each relation's remote units
        progress(f"not awaited by name (the quiet window covers them): {', '.join(by_quiet)}")
    settled = await wait_settled(
        lab,
        tuple(affected),
        affected,
        disrupted={unit: before_pods.get(unit) for unit in disrupted},
        since=window_start,
        required_hooks=required,
        stop_on_error=lab.simulated,
    )
    got.record(_as_steps(settled), progress)

    with got.timed_stage("snapshot after", progress, say="snapshot after"):
        after = got.after = await take_snapshot(lab, stack)
    window_end = lab.clock.now()

    say = "collecting hooks (debug-log and probe journal)"
    with got.timed_stage("collecting hooks", progress, say=say, step="collect hooks") as hooks:
        log_hooks, log_notes = await collect_log_hooks(lab, got.versions, window_start, window_end)
        journal = await journal_hooks(lab, before, after)
        got.hooks = log_hooks + journal
        from_ops = sum(1 for h in log_hooks if h.source == "ops-log")
        counted = (
            f"{len(log_hooks) - from_ops} from debug-log, {from_ops} from ops' event lines, "
            f"{len(journal)} from the probe journal"
        )
        hooks.detail = "; ".join((counted, *log_notes))

    got.enter("judging")
    # The branch each unit is judged against comes from what it showed (a stop that did
    # not complete, a second roll); container-restart's branch is its container and signal.
    branches = (
        (expected,)
        if target_container is not None
        else catalogue.branches(scenario.disruption, juju)
    )
    choices = {unit: choose_branch(branches, got.hooks, (unit,)) for unit in disrupted}
    got.branch = describe_branches(choices)
    findings: list[Finding] = []
    for expectation, units in _by_branch(choices, disrupted):
        findings.extend(
            judge(
                expectation,
                before,
                after,
                got.hooks,
                units=units,
                target_container=container if one_container else None,
                **_bundle_judging(stack, containers, names),
            )
        )
        findings.extend(layer_findings(expectation, before, after, units))
    errors = charm_errors_of(lab)
    got.charm_errors = errors
    judged = with_invented(findings, invented(stack.metas))
    got.findings = with_charm_errors(judged, relevant(errors, window_start))
    counts = {v: sum(1 for f in got.findings if f.verdict == v) for v in VERDICTS}
    progress(", ".join(f"{n} {v}" for v, n in counts.items() if n or v != "undetermined"))


def _by_branch(
    choices: Mapping[str, BranchChoice], units: Sequence[str]
) -> list[tuple[Expectation, tuple[str, ...]]]:
    """The disrupted units grouped by the branch chosen for each, in unit order."""
    groups: dict[str, tuple[Expectation, list[str]]] = {}
    for unit in units:
        choice = choices[unit]
        groups.setdefault(choice.name, (choice.expectation, []))[1].append(unit)
    return [(expectation, tuple(members)) for expectation, members in groups.values()]


def _bundle_judging(
    stack: Stack, containers: Mapping[str, Sequence[str]] | None, names: HookNames
) -> dict[str, Any]:
    """What the charms declare (names the catalogue's ``{container}`` and ``{storage}``
    templates; a user's bundle's ``{endpoint}`` too) and, for a user's bundle, the layers
    its watched paths are in."""
    if stack.bundle is None:
        return {"containers": containers or names.containers, "storages": names.storages}
    metas = stack.metas
    return {
        "containers": containers or {app: m.container_names for app, m in metas.items()},
        "endpoints": {app: tuple(m.endpoints) for app, m in metas.items()},
        "storages": {app: tuple(m.storage) for app, m in metas.items()},
        "watched_layers": stack.layers,
        "charm_written": stack.charm_written,
    }


def _as_steps(value: Step | Iterable[Step] | None) -> Sequence[Step]:
    if value is None:
        return ()
    if isinstance(value, Step):
        return (value,)
    return tuple(value)
