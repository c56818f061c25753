"""One scenario end to end on a deployed stack; shared by ``repro run`` and the pytest plugin.

Versions, a ``before`` snapshot, each target's disruption, a wait until the model settles,
an ``after`` snapshot, the hooks inside the disruption window (debug-log and the probe
journal), the verdict, and the evidence bundle. The bundle is written whatever happens: when
a step raises, with what was gathered so far and the error, and the exception goes on up.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.common.errors import HarnessError
from harness.common.findings import Finding
from harness.common.interrupt import Interruption, RunInterrupted, describe
from harness.common.observations import HookRecord, JournalEntry, Snapshot, Step
from harness.common.times import duration, format_duration, parse_instant, seconds_of_day
from harness.common.versions import JujuVersion, Versions
from harness.disrupt.base import Disruption, Target
from harness.evidence.folders import fallback_folder, folder_for_new_bundle
from harness.evidence.model import Evidence
from harness.evidence.user_bundle import UserBundle
from harness.evidence.write import write_bundle
from harness.lab.ports import Lab
from harness.live.signals import Interrupted
from harness.scenario.hook_names import HookNames, expecting, hook_names, required_per_unit
from harness.scenario.scenarios import Scenario
from harness.scenario.stack import Stack, WatchedPath

if TYPE_CHECKING:
    from harness.catalogue.model import Expectation
    from harness.verdict.judge import BranchChoice

Progress = Callable[[str], None]


@dataclass(frozen=True)
class RunResult:
    """What a run concluded and where its bundle is."""

    evidence: Evidence
    folder: Path

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.evidence.findings

    @property
    def deviations(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.evidence.findings if f.verdict == "deviation")

    @property
    def report(self) -> Path:
        return self.folder / "report.md"

    @property
    def exit_code(self) -> int:
        """0 unless a finding deviates (``undetermined`` is not one), then 1."""
        return 1 if self.deviations else 0


def one_line(exc: BaseException) -> str:
    """An exception as the one line the bundle and the report carry."""
    message = re.sub(r"\s+", " ", str(exc)).strip()
    if isinstance(exc, HarnessError):
        return message
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


# --- commands a person can paste -------------------------------------------------------


def deploy_commands(
    stack: Stack, juju: JujuVersion | None = None, *, as_bundle: bool = True
) -> tuple[str, ...]:
    """``juju deploy``/``juju integrate`` for the stack (``relate`` before Juju 3).

    A stack built from a user's bundle is given as ``juju deploy`` of that bundle file, then
    the apps and relations the harness adds (the probe observer); with ``as_bundle=False``,
    app by app, as the harness deploys it.
    """
    lines = []
    bundled: set[str] = set()
    relations = stack.relations
    if stack.bundle is not None and as_bundle:
        lines.append(stack.bundle.deploy_command())
        bundled = set(stack.bundle.app_names)
        ours = set(stack.bundle.app_names)
        relations = tuple(r for r in relations if not {e.partition(":")[0] for e in r} <= ours)
    for spec in stack.apps:
        if spec.app in bundled:
            continue
        parts = ["juju", "deploy", spec.charm, spec.app]
        if spec.channel:
            parts += ["--channel", spec.channel]
        if spec.revision is not None:
            parts += ["--revision", str(spec.revision)]
        if spec.trust:
            parts.append("--trust")
        if spec.units != 1:
            parts += ["-n", str(spec.units)]
        if spec.base:
            parts += ["--base", spec.base]
        if spec.constraints:
            parts += ["--constraints", shlex.quote(spec.constraints)]
        for key, value in sorted(spec.storage.items()):
            parts += ["--storage", f"{key}={value}"]
        for key, value in sorted(spec.config.items()):
            parts += ["--config", f"{key}={value}"]
        for key, value in sorted(spec.resources.items()):
            parts += ["--resource", f"{key}={value}"]
        lines.append(" ".join(parts))
    verb = "relate" if juju is not None and juju.major < 3 else "integrate"
    lines += [f"juju {verb} {a} {b}" for a, b in relations]
    return tuple(lines)


def repro_command(
    scenario: Scenario, backend: str, juju: str | None, stack: Stack | None = None
) -> str:
    version = f" --juju {juju}" if juju and backend == "twin" else ""
    given = ""
    if stack is not None and stack.bundle is not None:
        given = f" --bundle ./{stack.bundle.path.name} --app {scenario.targets[0].app}"
        given += "".join(
            f" --{'mark' if w.seed else 'watch'} {w.app}:{w.container}:{w.path}"
            for w in stack.watched
            if w.app in stack.bundle.app_names
        )
        if not stack.has_probe:
            given += " --no-probe"
    return f"repro run {scenario.name}{given} --backend {backend}{version}"


# Where an installed wheel carries charms/probe (setup.py; harness.twin.charms reads it too).
PACKAGED_PROBE = Path(__file__).resolve().parents[1] / "probe_charm"
_PROJECT_MARKERS = ("pyproject.toml", ".git", "tox.ini")
_CHARM_NAME = re.compile(r"^name:\s*['\"]?([a-z][a-z0-9-]*)", re.MULTILINE)


def _project_root(path: Path) -> Path | None:
    """The nearest folder above ``path`` that is a project (a checkout the reader has)."""
    for folder in path.parents:
        if any((folder / marker).exists() for marker in _PROJECT_MARKERS):
            return folder
    return None


def _charm_name(folder: Path) -> str:
    for name in ("charmcraft.yaml", "metadata.yaml"):
        try:
            found = _CHARM_NAME.search((folder / name).read_text("utf-8"))
        except OSError:
            continue
        if found:
            return found.group(1)
    return "*"


def _portable_charm(path: str) -> tuple[str, str | None]:
    """A local charm as a reader can name it: ``(deploy argument, pack step or None)``.

    Inside a project (a folder above it holds pyproject.toml, .git or tox.ini: this
    repository, or the charm author's) it is named relative to that project; elsewhere by
    its own name only. A charm directory is packed first (``juju deploy`` of a source
    directory is gone in Juju 4 and never what CI ran).
    """
    local = Path(path).expanduser().resolve()
    if local == PACKAGED_PROBE:
        # The installed copy of charms/probe: a reader has it at its place in the repository.
        return "./charms/probe/probe_*.charm", "(cd ./charms/probe && charmcraft pack)"
    root = _project_root(local)
    relative = "./" + (local.relative_to(root).as_posix() if root else local.name)
    if path.endswith(".charm"):
        return relative, None
    return f"{relative}/{_charm_name(local)}_*.charm", f"(cd {relative} && charmcraft pack)"


def portable_commands(commands: Sequence[str], stack: Stack) -> tuple[str, ...]:
    """``commands`` with every local charm path replaced by one that works on any machine."""
    replaced: list[str] = []
    packs: list[str] = []
    swaps: list[tuple[str, str]] = []
    for spec in stack.apps:
        if ("/" in spec.charm or spec.charm.endswith(".charm")) and spec.charm not in dict(swaps):
            argument, pack = _portable_charm(spec.charm)
            swaps.append((spec.charm, argument))
            if pack and pack not in packs:
                packs.append(pack)
    swaps.sort(key=lambda swap: len(swap[0]), reverse=True)  # a path inside another: longest first
    for command in commands:
        for old, new in swaps:
            command = command.replace(old, new)
        replaced.append(command)
    first_deploy = next((i for i, c in enumerate(replaced) if c.startswith("juju deploy")), 0)
    return (*replaced[:first_deploy], *packs, *replaced[first_deploy:])


def local_charm(scenario: Scenario, stack: Stack) -> str | None:
    """The local charm of the first target's application, for refresh disruptions."""
    for spec in stack.apps:
        if spec.app == scenario.targets[0].app:
            local = "/" in spec.charm or spec.charm.endswith(".charm")
            return spec.charm if local else None
    return None


def applied_targets(scenario: Scenario, disruption: Disruption) -> tuple[Target, ...]:
    """The targets to apply the disruption to: a node restart takes every app at once."""
    return scenario.targets[:1] if disruption.takes_node_down else scenario.targets


def disruption_commands(
    scenario: Scenario, model: str, namespace: str, charm_path: str | None = None
) -> tuple[str, ...]:
    from harness.disrupt import get

    disruption = get(scenario.disruption, charm_path=charm_path)
    return tuple(
        line
        for target in applied_targets(scenario, disruption)
        for line in disruption.plan(model, namespace, target)
    )


def plan(
    scenario: Scenario,
    stack: Stack,
    *,
    model: str,
    namespace: str,
    juju: JujuVersion | None = None,
) -> tuple[str, ...]:
    """Every step ``repro run`` takes, in order, as commands and ``#`` comments (--dry-run)."""
    from harness.live.juju_cli import debug_log_plan
    from harness.observe.settle import HOOKS_TIMEOUT, QUIET_FOR

    affected = sorted({t.app for t in scenario.targets})
    lines = [f"# model {model} (Kubernetes namespace {namespace})"]
    if stack.bundle is not None:
        lines += bundle_plan_notes(stack)
    else:
        lines.append("# deploy the stack")
    lines += deploy_commands(stack, juju, as_bundle=False)
    lines += [
        f"# wait until settled: {', '.join(stack.app_names)} active and idle",
        *_marking_notes(stack),
        *_watch_notes(stack, scenario),
        "# snapshot before: pods, watched files, relation data, statuses"
        + (", probe journal" if stack.has_probe else ""),
        f"# disrupt: {scenario.disruption}",
        *disruption_commands(scenario, model, namespace, local_charm(scenario, stack)),
        f"# wait until settled: each disrupted {', '.join(affected)} unit shows a new"
        " incarnation (new pod uid, restart count or agent start) and runs the catalogue's"
        f" required hooks (missing after {HOOKS_TIMEOUT:.0f}s: reported, not awaited), then pods"
        f" Ready, agents idle, no new hook line for {QUIET_FOR:.0f}s",
        "# snapshot after: pods, watched files, relation data, statuses"
        + (", probe journal" if stack.has_probe else ""),
        *debug_log_plan(),
        "# judge against the catalogue and write bundle.json, report.md, timeline.svg",
    ]
    return tuple(lines)


def _watch_note(watched: WatchedPath) -> str:
    if watched.layer is None:
        return "layer unknown: recorded, not judged"
    if not watched.judged:
        return f"{watched.layer}: recorded, not judged"
    if watched.charm_written:
        return f"{watched.layer}: judged on content and metadata; undetermined if rewritten"
    return watched.layer


def _judged_as(watched: WatchedPath) -> str:
    """How bundle.json says a watched path is judged."""
    if not watched.judged or watched.layer is None:
        return "recorded"
    if watched.seed:
        return "marker, judged"
    if watched.charm_written:
        return "judged on content and metadata"
    return "judged"


def bundle_plan_notes(stack: Stack) -> tuple[str, ...]:
    """What the plan says about a user's bundle: which file, its digest, the observer."""
    bundle = stack.bundle
    if bundle is None:
        return ()
    lines = [
        f"# deploy bundle {bundle.label} from {bundle.path} (sha256 {bundle.digest})",
        f"#   app by app, as `{bundle.deploy_command()}` would: {', '.join(bundle.app_names)}",
    ]
    if not bundle.kubernetes:
        lines.append(
            "# note: the bundle does not say `bundle: kubernetes`; juju/charm bundledata.go "
            "reads an untyped bundle as a machine one (unverified how Juju deploys it on a "
            "Kubernetes model: add the key)"
        )
    lines += [f"# note: {note}" for note in bundle.notes]
    if stack.has_probe:
        lines.append(
            "# add the probe observer (probe, probe-peer): its own apps, related only "
            "to each other, disrupted alongside"
        )
    else:
        lines.append("# no probe observer (--no-probe): hooks come from debug-log only")
    return tuple(lines)


def _marking_notes(stack: Stack) -> tuple[str, ...]:
    lines = []
    if stack.has_probe:
        lines.append(
            "# write the probe markers and databag values (actions write-marker, set-databag)"
        )
    lines += [
        f"# write a marker into {w.app} {w.container}:{w.path} (kubectl exec)"
        for w in stack.watched
        if w.seed
    ]
    return tuple(lines)


def _watch_notes(stack: Stack, scenario: Scenario) -> tuple[str, ...]:
    if stack.bundle is None:
        return ()
    lines = [f"# watch {w.app} {w.container}:{w.path} ({_watch_note(w)})" for w in stack.watched]
    for app in sorted({t.app for t in scenario.targets} & set(stack.bundle.app_names)):
        related = stack.bundle.relations_of(app)
        listed = ", ".join(f"{a} {b}" for a, b in related) or "none in the bundle"
        lines.append(f"# relation data of every relation of {app} (juju show-unit): {listed}")
    return tuple(lines)


def user_bundle(stack: Stack, app: str, ran_by: Mapping[str, str] | None) -> UserBundle | None:
    """The evidence's record of the user's bundle, when the stack came from one."""
    from harness.evidence.user_bundle import DEPLOYED

    bundle = stack.bundle
    if bundle is None:
        return None
    chosen = ran_by or {}
    return UserBundle(
        name=bundle.label,
        file=bundle.path.name,
        digest=bundle.digest,
        text=bundle.text,
        app=app,
        probe=stack.has_probe,
        runs=tuple((app, chosen.get(app, DEPLOYED)) for app in bundle.app_names),
        deploy=bundle.deploy_command(),
        notes=bundle.notes,
        watched=tuple(
            (
                w.app,
                w.container,
                w.path,
                w.layer or "unknown",
                _judged_as(w),
            )
            for w in stack.watched
        ),
    )


# --- the run ---------------------------------------------------------------------------


@dataclass
class _Gathered:
    """What the run has so far; becomes the evidence whether or not it finishes."""

    scenario: Scenario
    lab: Lab
    versions: Versions = field(default_factory=Versions)
    juju: str | None = None
    expectation: Expectation | None = None
    branch: str = ""
    steps: list[Step] = field(default_factory=list)
    before: Snapshot | None = None
    after: Snapshot | None = None
    hooks: tuple[HookRecord, ...] = ()
    findings: tuple[Finding, ...] = ()
    commands: tuple[str, ...] = ()
    bundle: UserBundle | None = None
    stage: str = "start-up"
    interruption: Interruption | None = None
    window_start: datetime | None = None  # set once the disruption is about to begin

    def record(self, steps: Step | Iterable[Step], progress: Progress) -> None:
        """Keep finished steps, and say on the terminal how long each took."""
        for step in (steps,) if isinstance(steps, Step) else tuple(steps):
            self.steps.append(step)
            took = format_duration(duration(step.start, step.end))
            clock = " on the twin's simulated clock" if self.lab.simulated else ""
            detail = f": {step.detail}" if step.detail else ""
            progress(f"  {step.name} took {took}{clock}{detail}")

    def enter(self, stage: str) -> None:
        """Start a stage; a stop asked for during the last one ends the run here."""
        if self.interruption is not None:
            self.interruption.check(self.stage)
        self.stage = stage

    def failure(self, exc: BaseException) -> tuple[str, bool]:
        """The bundle's one-line error for ``exc``, and whether it was an interruption."""
        if isinstance(exc, RunInterrupted):
            return str(exc), True
        if isinstance(exc, Interrupted):  # the disruption caught the signal and undid itself
            return describe(exc.signal_name, self.during(exc)), True
        asked = self.interruption.signal_name if self.interruption else None
        cancelled = asked is not None and isinstance(exc, asyncio.CancelledError)
        if isinstance(exc, KeyboardInterrupt) or cancelled:
            return describe(asked or type(exc).__name__, self.stage), True
        return one_line(exc), False

    def during(self, exc: BaseException) -> str:
        """The stage the run was in, and what was undone if a disruption caught the signal."""
        return f"{self.stage} ({exc.undone})" if isinstance(exc, Interrupted) else self.stage

    def evidence(self, error: str | None = None, *, interrupted: bool = False) -> Evidence:
        expected: tuple[str, ...] = ()
        if self.expectation is not None:
            expected = tuple(self.expectation.required_hooks())
        return Evidence(
            scenario=self.scenario.name,
            backend=self.lab.backend,
            simulated=self.lab.simulated,
            versions=self.versions,
            steps=tuple(self.steps),
            before=self.before,
            after=self.after,
            hooks=self.hooks,
            findings=self.findings,
            commands=self.commands,
            disruption=self.scenario.disruption,
            juju_version=self.juju,
            expected_hooks=expected,
            branch=self.branch,
            disruption_detail=_detail(self.scenario),
            error=error,
            bundle=self.bundle,
            interrupted=interrupted,
            rehearsal=self.lab.rehearsal,
        )


def _detail(scenario: Scenario) -> str:
    """The disruption's parameters a reader needs: container-restart's container and signal."""
    parts = [
        f"container {t.container}, signal {t.signal or 'TERM'}"
        for t in scenario.targets
        if t.container
    ]
    return "; ".join(dict.fromkeys(parts))


def _now(lab: Lab) -> str:
    return lab.clock.now().isoformat()


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


def in_window(record_time: str, start: datetime, end: datetime) -> bool:
    """Whether a record's time falls inside [start, end] (both aware, UTC).

    Log times are truncated (to the second without ``--ms``), so the window opens at the
    start's whole second. Undated times (``HH:MM:SS``, as the twin writes and as
    ``--utc`` without ``--date`` gives) are compared by time of day; a window of a day or
    more cannot place them, so they are kept.
    """
    opens = start.replace(microsecond=0)
    moment = parse_instant(record_time)
    if moment is not None:
        return opens <= moment <= end
    of_day = seconds_of_day(record_time)
    if of_day is None or end - opens >= timedelta(days=1):
        return True
    first, last = _of_day(opens), _of_day(end)
    if first <= last:
        return first <= of_day <= last
    return of_day >= first or of_day <= last  # the window spans midnight


def _of_day(moment: datetime) -> float:
    utc = moment.astimezone(timezone.utc)
    return utc.hour * 3600 + utc.minute * 60 + utc.second + utc.microsecond / 1e6


async def collect_log_hooks(
    lab: Lab, versions: Versions, start: datetime, end: datetime
) -> tuple[tuple[HookRecord, ...], tuple[str, ...]]:
    """The window's records from the debug-log, and what the evidence must say about them.

    The uniter's lines come from the whole filtered log (``debug_log``); ops' event lines
    from the charms' juju-log lines logged since the window began (a cursor: bounded by the
    window, not the model's age). Where the recorded logging-config drops ops' DEBUG lines,
    or the window held more juju-log lines than Juju answers, a note says so.
    """
    from harness.observe.log_cursor import LogCursor, merged

    notes: list[str] = []
    uniter = (await lab.juju.debug_log()).splitlines()
    ops = LogCursor(lab.juju, since=start, read=lab.juju.ops_log_recent)
    ops_lines = await ops.new_lines()
    if ops.missed:
        notes.append(
            "ops' event lines: the window held more charm log lines than Juju answers "
            "(10000); the earliest may be missing"
        )
    recorded = dict(versions.model_config).get("logging-config")
    if lab.backend == "live" and recorded is not None:
        from harness.common.logging_config import config_value, ops_lines_note

        note = ops_lines_note(config_value(recorded))
        if note is not None:
            notes.append(note)
    text = "\n".join(merged(ops_lines, uniter))
    return _debug_log_hooks(text, start, end), tuple(notes)


def _debug_log_hooks(text: str, start: datetime, end: datetime) -> tuple[HookRecord, ...]:
    """The window's records: the uniter's, else ops' (``Emitting Juju event``) per unit.

    A unit whose uniter lines are missing (filtered by logging-config) is judged on what
    ops logged; a unit with uniter lines keeps only ops' marked records (deferred,
    re-emitted, custom), never a second copy of its hooks.
    """
    from harness.observe.debug_log import parse_lines

    records = [
        r for r in parse_lines(text.splitlines(), ops=True) if in_window(r.time, start, end)
    ]
    from_uniter = {r.unit for r in records if r.source == "debug-log" and r.kind == "hook"}
    return tuple(
        r
        for r in records
        if not (r.source == "ops-log" and r.kind == "hook" and r.unit in from_uniter)
    )


async def _journal_hooks(
    lab: Lab, before: Snapshot | None, after: Snapshot
) -> tuple[HookRecord, ...]:
    """The probe units' journal entries written after the ``before`` snapshot, as records."""
    from harness.observe.journal import hook_records, read_journal

    since = {entry.unit: entry.seq for entry in before.journal} if before else {}
    latest = {entry.unit: entry.seq for entry in after.journal}
    entries: list[JournalEntry] = []
    # Units that exist now and keep a journal; a removed unit (scale-down-up) cannot answer.
    for unit in sorted(latest):
        start = since.get(unit, 0)
        if latest[unit] < start:  # a fresh storage volume: its journal starts again at 1
            start = 0
        found, _ = await read_journal(lab.juju, unit, start)
        entries.extend(found)
    return hook_records(entries)


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


async def run_scenario(
    lab: Lab,
    scenario: Scenario,
    stack: Stack,
    evidence_dir: Path | str,
    *,
    juju_version: str | None = None,
    progress: Progress = print,
    ran_by: Mapping[str, str] | None = None,
    interruption: Interruption | None = None,
) -> RunResult:
    """Run ``scenario`` on a deployed ``stack`` and write its bundle into ``evidence_dir``.

    ``juju_version`` overrides the detected version for the catalogue (the twin's simulated
    version). The bundle is written even when a step raises; the exception is re-raised.
    An ``interruption`` asked for (Ctrl-C) stops the run at its next stage; the bundle says
    so and RunInterrupted is raised. A folder that cannot be written gives way to a fallback
    folder, named in the progress and in ``RunResult.folder``.
    """
    folder, note = folder_for_new_bundle(evidence_dir)
    if note is not None:
        progress(note)
    got = _Gathered(
        scenario,
        lab,
        bundle=user_bundle(stack, scenario.targets[0].app, ran_by),
        interruption=interruption,
    )
    try:
        await _run(got, lab, scenario, stack, juju_version, progress)
        got.enter("writing the evidence")
    except BaseException as exc:
        error, interrupted = got.failure(exc)
        # A cancel, or a stop asked for that a library turned into its own error, is no
        # failure to explain: reading the debug-log would hold the stop up to its timeout.
        stopping = isinstance(exc, asyncio.CancelledError) or bool(
            interruption and interruption.requested
        )
        stop = None
        if not (interrupted or stopping):
            stop = await _hooks_after_failure(got, lab, progress)
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
    return RunResult(evidence, _write(evidence, folder, progress))


HOOKS_AFTER_FAILURE_TIMEOUT = 120.0
"""How long a failed run may spend reading the debug-log before writing its bundle."""


async def _hooks_after_failure(
    got: _Gathered, lab: Lab, progress: Progress
) -> BaseException | None:
    """After a failure past the start of the disruption, the debug-log's hooks since then.

    A unit stuck in error is the usual reason settling fails, and the hook that failed is
    what a bug report needs. Reading it is bounded and may fail (the controller may be the
    problem); the step says which. Returns a Ctrl-C that arrived meanwhile, to raise once
    the bundle is written.
    """
    if got.window_start is None or got.hooks:
        return None
    got.stage = "collecting hooks after the failure"
    bound = f"{HOOKS_AFTER_FAILURE_TIMEOUT:g} s"
    progress(f"collecting hooks after the failure (debug-log, at most {bound})")
    start = _now(lab)
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
    got.record(Step("collect hooks after the failure", start, _now(lab), detail), progress)
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
    got: _Gathered,
    lab: Lab,
    scenario: Scenario,
    stack: Stack,
    juju_version: str | None,
    progress: Progress,
) -> None:
    from harness.catalogue import load
    from harness.disrupt import get
    from harness.disrupt.steps import keeping_steps
    from harness.observe.settle import wait_settled
    from harness.observe.snapshot import take_snapshot
    from harness.verdict.journal_layers import layer_findings
    from harness.verdict.judge import choose_branch, describe_branches, judge

    label = "SIMULATED on the twin" if lab.simulated else f"live, model {lab.juju.model_name}"
    if lab.rehearsal is not None:
        label = f"REHEARSAL, model {lab.juju.model_name} ({lab.rehearsal.world})"
    progress(f"scenario {scenario.name} ({scenario.disruption}), {label}")

    got.enter("read versions")
    start = _now(lab)
    got.versions = await _versions(lab)
    got.juju = _pick_juju(got.versions, juju_version)
    juju = JujuVersion.parse(got.juju)
    # Commands a reader can paste: no path of this machine; and for the twin, nothing
    # aimed at a model or namespace that existed only in the simulation.
    disruption_lines: tuple[str, ...] = ()
    if not lab.simulated:
        disruption_lines = disruption_commands(
            scenario, lab.juju.model_name, lab.cluster.namespace, local_charm(scenario, stack)
        )
    got.commands = portable_commands(
        (
            repro_command(scenario, lab.backend, got.juju, stack),
            *deploy_commands(stack, juju),
            *disruption_lines,
        ),
        stack,
    )
    # Look the expectation up before disrupting anything: an unknown entry fails early.
    target_container = next((t.container for t in scenario.targets if t.container), None)
    target_signal = next((t.signal for t in scenario.targets if t.signal), None)
    catalogue = load()
    got.expectation = catalogue.expect(
        scenario.disruption, juju, container=target_container, signal=target_signal
    )
    # The hooks spelled out for each disrupted app's charm (its metadata), before anything
    # is disrupted: settle awaits them and the verdict judges them by these names.
    container = next((t.container for t in scenario.targets if t.container), "")
    one_container = got.expectation.scope == "container" and bool(container)
    # A workload container's restart concerns that container only (its pebble-ready hook);
    # a charm container's restart gives every workload container's pebble-ready.
    workload_only = one_container and got.expectation.container == "workload"
    containers = {t.app: (container,) for t in scenario.targets} if workload_only else None
    names = hook_names(stack, tuple(_affected_units(scenario, stack)), containers=containers)
    got.record(Step("read versions", start, _now(lab), f"Juju {got.juju}"), progress)
    progress(f"Juju {got.juju}; expecting {expecting(got.expectation, scenario, names)}")

    got.enter("snapshot before")
    progress("snapshot before")
    start = _now(lab)
    got.before = await take_snapshot(lab, stack)
    got.record(Step("snapshot before", start, _now(lab)), progress)

    window_start = got.window_start = lab.clock.now()
    disrupted = _disrupted_units(scenario, got.before)
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

    affected = _affected_units(scenario, stack)
    got.enter("waiting until settled")
    progress(f"waiting until settled: {', '.join(affected)}")
    before_pods = {p.unit: p for p in got.before.pods}
    required, by_quiet = required_per_unit(got.expectation, disrupted, names)
    if by_quiet:
        progress(
            f"not awaited by name (which endpoints run them depends on each relation's "
            f"remote units; the quiet window covers them): {', '.join(by_quiet)}"
        )
    settled = await wait_settled(
        lab,
        tuple(affected),
        affected,
        disrupted={unit: before_pods.get(unit) for unit in disrupted},
        since=window_start,
        required_hooks=required,
    )
    got.record(_as_steps(settled), progress)

    got.enter("snapshot after")
    progress("snapshot after")
    start = _now(lab)
    got.after = await take_snapshot(lab, stack)
    got.record(Step("snapshot after", start, _now(lab)), progress)
    window_end = lab.clock.now()

    got.enter("collecting hooks")
    progress("collecting hooks (debug-log and probe journal)")
    start = _now(lab)
    log_hooks, log_notes = await collect_log_hooks(lab, got.versions, window_start, window_end)
    journal = await _journal_hooks(lab, got.before, got.after)
    got.hooks = log_hooks + journal
    from_ops = sum(1 for h in log_hooks if h.source == "ops-log")
    counted = (
        f"{len(log_hooks) - from_ops} from debug-log, {from_ops} from ops' event lines, "
        f"{len(journal)} from the probe journal"
    )
    got.record(
        Step("collect hooks", start, _now(lab), "; ".join((counted, *log_notes))),
        progress,
    )

    got.enter("judging")
    # The branch each unit is judged against comes from what it showed (a stop that did
    # not complete, a second roll); container-restart's branch is its container and signal.
    branches = (
        (got.expectation,)
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
                got.before,
                got.after,
                got.hooks,
                units=units,
                target_container=container if one_container else None,
                **_bundle_judging(stack, containers, names),
            )
        )
        findings.extend(layer_findings(expectation, got.before, got.after, units))
    got.findings = tuple(findings)
    counts = {v: sum(1 for f in got.findings if f.verdict == v) for v in _VERDICTS}
    progress(", ".join(f"{n} {v}" for v, n in counts.items() if n or v != "undetermined"))


_VERDICTS = ("match", "deviation", "known-bug", "undetermined")


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
