"""``repro``: list, predict, timeline, run, report and matrix.

Every failure a person can fix ends in one line on stderr and exit status 2; ``run`` exits 1
when a finding deviates from the catalogue and 0 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import io
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn, TextIO, cast

from harness.common.errors import EnvironmentUnavailable, HarnessError, unknown
from harness.common.versions import JujuVersion

if TYPE_CHECKING:
    from harness.common.interrupt import Interruption
    from harness.run.bundle_run import BundleRun
    from harness.run.scenario import RunResult
    from harness.scenario.scenarios import Scenario
    from harness.scenario.stack import Stack
    from harness.twin.charms import CharmSource

BOOTSTRAP_FIX = "bootstrap one with `juju bootstrap microk8s`, or pass --backend twin"
_UNIT = re.compile(r"^[a-z][a-z0-9-]*/\d+$")


class UsageError(Exception):
    """Bad command-line usage, reported as one line."""


class _Parser(argparse.ArgumentParser):
    # argparse prints usage and exits; we want one line and our own exit status.
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


# --- helpers ---------------------------------------------------------------------------


def _juju(text: str) -> JujuVersion:
    try:
        return JujuVersion.parse(text)
    except ValueError:
        raise HarnessError(
            f"not a Juju version: {text!r}", "use a version such as 3.6 or 2.9.43"
        ) from None


_JUJU_OPTION = re.compile(r"v?\d+\.\d+(?:[.-][a-z]*\d+)?(?:\.\d+)?")


def _juju_option(text: str | None) -> JujuVersion | None:
    """``--juju`` as given: a whole version (3.6, 2.9.43, 3.0-beta4, 3.6.1.1), never a prefix.

    ``JujuVersion.parse`` reads the version at the start of any text (``juju version``
    prints ``3.6.1-genericlinux-amd64``); a person's option must be a version and no more.
    """
    return None if text is None else _juju_strict(text)


def _juju_strict(text: str) -> JujuVersion:
    if not _JUJU_OPTION.fullmatch(text.strip()):
        raise HarnessError(
            f"not a Juju version: {text!r}", "use a version such as 3.6, 2.9.43 or 3.0-beta4"
        )
    return _juju(text)


def _judged(version: JujuVersion, text: str) -> str | None:
    """Refuse a version the catalogue cannot judge; a note when it only extrapolates to it.

    The catalogue's entries say which versions it covers (its lowest ``juju_min``) and which
    Juju series its ranges name; a later series is judged by the newest range, unread.
    """
    from harness.catalogue import load

    entries = load().entries
    lowest = min(JujuVersion.parse(e.juju_min) for e in entries)
    named = [JujuVersion.parse(e.juju_min) for e in entries]
    named += [JujuVersion.parse(e.juju_max) for e in entries if e.juju_max]
    newest = max(named)
    if version < lowest:
        raise HarnessError(
            f"the catalogue cannot judge Juju {text}: it covers Juju "
            f"{lowest.major}.{lowest.minor} and later",
            f"pass --juju {lowest.major}.{lowest.minor} or newer",
        )
    if version.major > newest.major:
        series = ", ".join(f"{major}.x" for major in sorted({v.major for v in named}))
        return (
            f"note: the catalogue's ranges name Juju {series} only; Juju {text} is judged "
            f"by its newest range ({newest.major}.{newest.minor} and later): an extrapolation"
        )
    return None


# juju/names model.go (IsValidModelName): lowercase letters, digits, non-leading hyphens.
_MODEL = re.compile(r"^[a-z0-9]+[a-z0-9-]*$")


def _check_model(name: str | None) -> None:
    """``--model``: refused before anything runs; the name is also the Kubernetes namespace
    in every printed command, so it must be one Juju accepts."""
    if name is not None and not _MODEL.match(name):
        raise HarnessError(
            f"not a Juju model name: {name!r}",
            "use lowercase letters, digits and hyphens, e.g. --model repro-lab",
        )


def _normal_unit(text: str) -> str:
    """``probe/0``, also accepting the agent name ``unit-probe-0``."""
    from harness.observe.debug_log import unit_from_entity

    unit = unit_from_entity(text) if text.startswith("unit-") else text
    if unit is None or not _UNIT.match(unit):
        raise HarnessError(f"not a unit name: {text!r}", "use app/N, e.g. mysql-router-k8s/0")
    return unit


GZIP_MAGIC = b"\x1f\x8b"


def _text_of(raw: IO[bytes]) -> TextIO:
    """Text lines of a byte stream: gunzipped when it is gzip, without a UTF-8 BOM.

    Logs can hold any bytes; a bad one must not stop a 1 GB read, so it is replaced.
    """
    peek = getattr(raw, "peek", None)
    head = peek(2)[:2] if peek is not None else b""
    stream: IO[bytes] = raw
    if head == GZIP_MAGIC:
        stream = cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
    return io.TextIOWrapper(cast(Any, stream), encoding="utf-8-sig", errors="replace")


@contextlib.contextmanager
def _open_log(path: str) -> Iterator[TextIO]:
    if path == "-":
        if sys.stdin is None:  # fd 0 closed (`<&-`)
            raise HarnessError(
                "stdin is closed", "pipe a debug-log into repro timeline -, or pass its file"
            )
        buffer = getattr(sys.stdin, "buffer", None)
        yield _text_of(buffer) if buffer is not None else sys.stdin
        return
    file = Path(path)
    if not file.exists():
        raise HarnessError(
            f"no such file: {path}", "pass a saved `juju debug-log` dump, or - for stdin"
        )
    if file.is_dir():
        raise HarnessError(f"{path} is a folder", "pass a debug-log file, or - for stdin")
    try:
        raw = open(file, "rb", buffering=1 << 20)  # noqa: SIM115
    except OSError as exc:
        raise HarnessError(
            f"cannot read {path}: {exc.strerror}", "check its permissions"
        ) from None
    with raw, _text_of(raw) as handle:
        try:
            yield handle
        except (EOFError, gzip.BadGzipFile) as exc:
            raise HarnessError(
                f"{path} is a damaged gzip file ({exc})", "pass the log as it was saved"
            ) from None


def _write(out: IO[str], text: str) -> None:
    out.write(text if text.endswith("\n") else text + "\n")


# --- list ------------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    from harness.disrupt.base import NAMES
    from harness.scenario.scenarios import SCENARIOS

    width = max(len(n) for n in (*NAMES, *(s.name for s in SCENARIOS)))
    print("disruptions (repro run NAME: the default stack; add --bundle FILE --app APP):")
    for name in NAMES:
        print(f"  {name:<{width}}  {_summary(name)}".rstrip())
    print("scenarios (named reproductions on the default stack):")
    for s in SCENARIOS:
        bug = f" ({s.bug})" if s.bug else ""
        params = "".join(
            f" (container {t.container}, signal {t.signal or 'TERM'})"
            for t in s.targets
            if t.container
        )
        print(f"  {s.name:<{width}}  [{s.disruption}{params}] {s.summary}{bug}")
    return 0


def _summary(name: str) -> str:
    try:
        from harness.disrupt import get

        return str(get(name).summary)
    except (ImportError, HarnessError):
        return ""


# --- predict ---------------------------------------------------------------------------


def cmd_predict(args: argparse.Namespace) -> int:
    from harness.catalogue import load
    from harness.catalogue.predict import predict_json, predict_text

    version = _juju_strict(args.juju)
    catalogue = load()
    if args.disruption not in catalogue.disruptions():
        _refuse_a_scenario(args.disruption, args.juju)
    if args.container or args.signal or args.variant:
        branches: tuple[Any, ...] = (
            catalogue.expect(
                args.disruption,
                version,
                variant=args.variant,
                container=args.container,
                signal=args.signal,
            ),
        )
    else:
        branches = catalogue.branches(args.disruption, version)
    if args.format == "json":
        print(json.dumps(predict_json(branches), indent=2, sort_keys=True))
    else:
        print(predict_text(branches, str(args.juju)))
    return 0


def _refuse_a_scenario(name: str, juju: str) -> None:
    """``repro list`` shows scenarios too; predict takes their disruption, so name it."""
    from harness.scenario.scenarios import SCENARIOS

    for s in SCENARIOS:
        if s.name == name:
            target = s.targets[0]
            container = f" --container {target.container}" if target.container else ""
            signal = f" --signal {target.signal}" if target.signal not in (None, "TERM") else ""
            raise HarnessError(
                f"{name} is a scenario, not a disruption",
                f"use: repro predict {s.disruption} --juju {juju}{container}{signal}",
            )


# --- timeline --------------------------------------------------------------------------


def cmd_timeline(args: argparse.Namespace) -> int:
    from harness.common.observations import HookRecord
    from harness.evidence.svg import render_timeline_svg
    from harness.evidence.timeline_text import render_markdown, write_json, write_text
    from harness.observe.debug_log import rows, unit_from_entity

    only = _normal_unit(args.unit) if args.unit else None
    name = "stdin" if args.file == "-" else Path(args.file).name
    # An agent log file has no entity on its lines; its name (unit-probe-0.log) says whose.
    default_unit = only or (unit_from_entity(Path(args.file).stem) if args.file != "-" else None)
    with _open_log(args.file) as handle:
        records = rows(handle, default_unit, ops=True)
        if only is not None:
            records = (r for r in records if r[0] == only)
        if args.format == "json":
            count = write_json(records, sys.stdout)
        elif args.format == "text":
            count = write_text(records, sys.stdout)
        else:
            kept = list(records)  # records only; the lines stream past
            count = len(kept)
            if args.format == "md":
                _write(sys.stdout, render_markdown(kept, name))
            else:
                title = f"hook timeline: {name}" + (f" ({only})" if only else "")
                svg = render_timeline_svg([HookRecord(*r) for r in kept], title=title)
                _write(sys.stdout, svg)
    if count == 0:
        whose = f" for {only}" if only else ""
        print(f"repro: no hook lines{whose} in {name}", file=sys.stderr)
    return 0


# --- report and matrix -----------------------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    from harness.evidence.bundle import read_bundle, to_json
    from harness.evidence.report import render_report
    from harness.evidence.svg import render_svg

    evidence = read_bundle(args.bundle)
    render = {"md": render_report, "svg": render_svg, "json": to_json}[args.format]
    _write(sys.stdout, render(evidence))
    return 0


def cmd_matrix(args: argparse.Namespace) -> int:
    from harness.evidence.matrix import find_bundles, read_bundles, render_matrix

    good, bad = read_bundles(find_bundles(args.bundles))
    _write(sys.stdout, render_matrix(good, bad))
    if bad and args.strict:
        print(f"repro: {len(bad)} unreadable bundles (listed under the table)", file=sys.stderr)
        return 1
    return 0


# --- run -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ClientPlan:
    """What a live dry run learns from the local ``juju`` client (no controller needed)."""

    version: JujuVersion | None
    lines: tuple[str, ...]


def _live_client_plan(requested_driver: str) -> _ClientPlan:
    """The client's version, the driver it implies and what differs on that Juju."""
    from harness.live.drivers import COVERS, choose_driver, client_version

    text = client_version()
    if text is None:
        driver = choose_driver(requested_driver, None)
        return _ClientPlan(
            None, (f"# juju client: not found or not answering; Juju driver {driver} assumed",)
        )
    version = _juju(text)
    driver = choose_driver(requested_driver, version)
    lines = [
        f"# juju client {text} (Juju {version.major}.{version.minor}): "
        f"Juju driver {driver} (covers Juju {COVERS[driver]})"
    ]
    if version.major >= 4:
        lines += [
            "# Juju 4: python-libjuju does not support it; jubilant drives the juju CLI",
            "# Juju 4: the probe is deployed as a packed .charm (deploying a directory was "
            "removed)",
            "# Juju 4: juju show-unit shows each unit's own application databag, so relation "
            "data is read from the units on both sides",
        ]
    return _ClientPlan(version, tuple(lines))


def _expected_hooks_line(
    disruption: str, juju: JujuVersion, containers: Sequence[str] = ()
) -> str:
    """The catalogue's hooks; ``containers`` (the charm's, when known) name its templates."""
    from harness.catalogue import load

    try:
        expectation = load().expect(disruption, juju)
    except HarnessError as error:
        return f"# the catalogue has no expectation for {disruption} on Juju {juju}: {error}"
    hooks = []
    for hook in expectation.required_hooks():
        if "{container}" in hook and containers:
            hooks += [hook.replace("{container}", c) for c in containers]
        else:
            hooks.append(hook)
    listed = ", ".join(hooks) or "(none)"
    return f"# the catalogue expects on Juju {juju.major}.{juju.minor}: {listed}"


def _print_plan(
    args: argparse.Namespace,
    backend: str,
    disruption: str,
    juju: JujuVersion | None,
    lines_for: Callable[[JujuVersion | None], Iterable[str]],
    containers: Sequence[str] = (),
) -> None:
    """A dry run's plan; live, with what the local juju client says and what to expect."""
    if backend == "live":
        client = _live_client_plan(args.juju_driver)
        juju = client.version or juju
        for line in client.lines:
            print(line)
        print(_model_config_line(args.inherit_model_config))
    for line in lines_for(juju):
        print(line)
    if backend == "live" and juju is not None:
        print(_expected_hooks_line(disruption, juju, containers))


def _model_config_line(inherit: bool) -> str:
    """What a live run does to the hook settings of the model it creates."""
    from harness.live.model_config import JUJU_DEFAULTS

    if inherit:
        return (
            "# model config: a model the harness creates keeps the controller's "
            "model-defaults (--inherit-model-config); an existing --model is used as it is"
        )
    defaults = " ".join(f"{k}={v}" for k, v in JUJU_DEFAULTS.items())
    return (
        f"# model config: a model the harness creates gets Juju's defaults ({defaults}), "
        "not the controller's model-defaults; an existing --model is used as it is"
    )


def _inherit_on_twin(args: argparse.Namespace, backend: str) -> None:
    if backend == "twin" and args.inherit_model_config:
        print(
            "note: --inherit-model-config is ignored on the twin: it has no controller "
            "and no model-defaults (SIMULATED)",
            flush=True,
        )


def _disrupted_containers(run: BundleRun) -> tuple[str, ...]:
    """The disrupted app's workload containers, when its metadata is known."""
    target = run.scenario.targets[0]
    if target.container:
        return (target.container,)
    meta = run.metas.get(target.app)
    return meta.container_names if meta is not None else ()


def _controller_reachable() -> object:
    """Truthy when a controller answers; its ``why`` (when present) says what was seen."""
    from harness.live.controller import check_controller

    return check_controller(say=lambda line: print(f"repro: {line}", file=sys.stderr))


def _choose_backend(requested: str, dry_run: bool) -> tuple[str, str]:
    """The backend and the first line that announces it."""
    if requested == "twin":
        return "twin", "backend: twin (SIMULATED: an in-process simulation, not a real Juju)"
    if requested == "live":
        if not dry_run:
            check = _controller_reachable()
            if not check:
                raise _unreachable(check)
        return "live", "backend: live" + (" (dry run: nothing is touched)" if dry_run else "")
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


def _probe_charm(args: argparse.Namespace, backend: str) -> str:
    given = Path(args.probe_charm) if args.probe_charm else None
    # The twin runs a probe folder's code; checked before an evidence folder is claimed.
    if (
        backend == "twin"
        and given is not None
        and given.is_dir()
        and not ((given / "src" / "charm.py").is_file() and (given / "charmcraft.yaml").is_file())
    ):
        raise HarnessError(
            f"--probe-charm {given} is a folder without the probe charm "
            "(src/charm.py and charmcraft.yaml)",
            "pass charms/probe of a checkout, or leave --probe-charm out on the twin",
        )
    if args.probe_charm:
        if not args.dry_run and not Path(args.probe_charm).exists():
            raise HarnessError(
                f"no such probe charm: {args.probe_charm}",
                "pack it with charmcraft pack in charms/probe and pass the .charm file",
            )
        return str(args.probe_charm)
    if backend == "twin":
        from harness.twin.charms import default_probe_dir

        return str(default_probe_dir())
    if args.dry_run:
        return "./charms/probe/probe_amd64.charm"
    raise HarnessError(
        "the live backend needs the packed probe charm",
        "run charmcraft pack in charms/probe, then pass --probe-charm ./probe_*.charm",
    )


def _targets_for(scenario: Scenario, app: str | None, stack_apps: Sequence[str]) -> Scenario:
    from harness.disrupt.base import Target

    if app is None:
        return scenario
    if app not in stack_apps:
        raise unknown("application", app, stack_apps)
    chosen = tuple(t for t in scenario.targets if t.app == app)
    if not chosen:
        template = scenario.targets[0]
        chosen = (Target(app, container=template.container, resource=template.resource),)
    return replace(scenario, targets=chosen)


def _unfinished_bundle(
    folder: Path,
    scenario: Scenario,
    backend: str,
    stack: Stack,
    exc: BaseException,
    signal_name: str | None = None,
) -> None:
    """A bundle for a run that stopped before the scenario began (connecting, deploying)."""
    from harness.common.interrupt import describe
    from harness.common.rehearsal import labelled_rehearsal
    from harness.evidence.model import Evidence
    from harness.evidence.write import write_bundle
    from harness.run.scenario import deploy_commands, one_line, portable_commands, user_bundle

    interrupted = isinstance(exc, KeyboardInterrupt)
    error = str(exc) if interrupted and str(exc) else one_line(exc)
    if interrupted and not str(exc):
        error = describe(signal_name or "SIGINT", "start-up (connecting and deploying)")
    evidence = Evidence.before_the_run(
        scenario.name,
        "twin" if backend == "twin" else "live",
        backend == "twin",
        portable_commands(deploy_commands(stack), stack),
        error,
        disruption=scenario.disruption,
        interrupted=interrupted,
        rehearsal=None if backend == "twin" else labelled_rehearsal(),
    )
    # A user's bundle is named even when deploying it failed.
    evidence = replace(evidence, bundle=user_bundle(stack, scenario.targets[0].app, None))
    with contextlib.suppress(OSError):
        write_bundle(evidence, folder)


def cmd_run(args: argparse.Namespace) -> int:
    from harness.evidence.folders import check_evidence_root, claim_folder
    from harness.run.scenario import plan
    from harness.scenario.hook_names import plan_containers
    from harness.scenario.scenarios import scenario as find_scenario
    from harness.scenario.stack import default_stack

    if args.bundle:
        return _run_bundle(args)
    for flag, given in (
        ("--watch", args.watch),
        ("--mark", args.mark),
        ("--charm-source", args.charm_source),
        ("--overlay", args.overlay),
    ):
        if given:
            raise HarnessError(f"{flag} needs --bundle", "pass the bundle the app is in")
    chosen = find_scenario(args.scenario)
    _check_model(args.model)
    juju = _juju_option(args.juju)
    note = _judged(juju, args.juju) if juju is not None and args.backend != "live" else None
    if not args.dry_run:
        # Before anything is deployed or disrupted: a bad folder must cost nothing.
        check_evidence_root(args.evidence_dir)
    backend, announcement = _choose_backend(args.backend, args.dry_run)
    print(announcement, flush=True)
    stack = default_stack(_probe_charm(args, backend))
    chosen = _targets_for(chosen, args.app, stack.app_names)
    if backend == "live" and args.juju:
        print("note: --juju is ignored on live: the controller's version decides", flush=True)
    elif note:
        print(note, flush=True)
    _inherit_on_twin(args, backend)
    if args.dry_run:
        model = args.model or f"repro-{chosen.name}"
        _print_plan(
            args,
            backend,
            chosen.disruption,
            juju,
            lambda version: plan(chosen, stack, model=model, namespace=model, juju=version),
            containers=plan_containers(stack, chosen),
        )
        return 0
    folder = claim_folder(args.evidence_dir, f"{chosen.name}-{backend}")
    return _execute(
        folder,
        chosen,
        backend,
        stack,
        lambda interruption: _run(
            args, backend, chosen, stack, folder, juju, interruption=interruption
        ),
    )


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
) -> int:
    """Run under an interruption handler; a run that stops early still leaves its bundle."""
    from harness.common.interrupt import Interruption, RunInterrupted

    interruption = Interruption()
    try:
        with interruption.installed(), _each_warning_once(SCENARIO_RUNTIME_LOGGER):
            result = asyncio.run(start(interruption))
    except BaseException as exc:
        signal_name = interruption.signal_name
        if not (folder / "bundle.json").exists():
            _unfinished_bundle(folder, scenario, backend, stack, exc, signal_name)
        if (folder / "bundle.json").exists():
            print(folder, flush=True)
        if signal_name and type(exc) is KeyboardInterrupt and not str(exc):
            # A second signal stops at once with a bare KeyboardInterrupt: name the signal.
            raise RunInterrupted(signal_name, "start-up (connecting and deploying)") from exc
        raise
    print(result.folder, flush=True)
    if interruption.requested:
        raise KeyboardInterrupt(f"interrupted by {interruption.signal_name} after the run ended")
    return int(result.exit_code)


def _run_bundle(args: argparse.Namespace) -> int:
    from harness.evidence.folders import check_evidence_root, claim_folder
    from harness.run.bundle_run import (
        folder_name,
        parse_charm_sources,
        plan_lines,
        prepare_run,
        start,
    )
    from harness.scenario.bundle_spec import load_bundle

    juju = _juju_option(args.juju)
    _check_model(args.model)
    # A bad file is refused before the backend is even chosen (any app's charm source may
    # stand in for a local charm not packed yet: the twin runs the source).
    load_bundle(args.bundle, parse_charm_sources(args.charm_source), args.overlay or ())
    backend, announcement = _choose_backend(args.backend, args.dry_run)
    print(announcement, flush=True)
    probe = None if args.no_probe else _probe_charm(args, backend)
    run = prepare_run(args, backend, probe)
    if not args.dry_run:  # a dry run's plan has them
        for note in run.bundle.notes:
            print(f"note: {note}", flush=True)
    if not args.dry_run or backend == "twin":
        # After the bundle's checks (bad input leaves nothing behind), before any deploy.
        check_evidence_root(args.evidence_dir)
    if backend == "live" and args.juju:
        print("note: --juju is ignored on live: the controller's version decides", flush=True)
    _inherit_on_twin(args, backend)
    if args.dry_run:
        model = args.model or f"repro-{run.scenario.name}"
        _print_plan(
            args,
            backend,
            run.scenario.disruption,
            juju,
            lambda version: plan_lines(run, model, version),
            containers=_disrupted_containers(run),
        )
        if backend == "live":
            return 0
        # The twin touches nothing real: a dry run there also writes the SIMULATED bundle.
        print("# dry run on the twin: running the SIMULATED plan", flush=True)
    folder = claim_folder(args.evidence_dir, f"{folder_name(run)}-{backend}")
    version = str(juju) if juju else None
    return _execute(
        folder,
        run.scenario,
        backend,
        run.stack,
        lambda interruption: start(args, backend, run, folder, version, interruption),
    )


async def _run(
    args: argparse.Namespace,
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
    from harness.run.deploy import deploy_stack
    from harness.run.scenario import run_scenario

    if interruption is not None:
        interruption.attach()
    if backend == "live":
        from harness.live.lab import connect_lab

        async with connect_lab(
            args.model,
            args.keep_model,
            driver=args.juju_driver,
            juju_defaults=not args.inherit_model_config,
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
    given = Path(args.probe_charm) if args.probe_charm else None
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


# --- parser and main -------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="repro",
        description="Reproduce Juju lifecycle bugs on MicroK8s (or the twin) and write evidence.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("list", help="disruptions and scenarios, one line each")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("predict", help="what the catalogue expects for a disruption")
    p.add_argument("disruption")
    p.add_argument("--juju", required=True, metavar="VERSION", help="e.g. 3.6 or 2.9.43")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--variant", metavar="BRANCH", help="one branch, e.g. interrupted-stop")
    p.add_argument("--container", help="container-restart: charm or a workload container")
    p.add_argument("--signal", help="container-restart: TERM (default), KILL or OOM")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("timeline", help="a juju debug-log dump as a per-unit hook timeline")
    p.add_argument("file", metavar="DEBUG_LOG_FILE", help="a saved debug-log, or - for stdin")
    p.add_argument("--unit", metavar="U", help="only this unit (app/N)")
    p.add_argument("--format", choices=("text", "json", "md", "svg"), default="text")
    p.set_defaults(func=cmd_timeline)

    p = sub.add_parser("run", help="run one scenario end to end and write its evidence")
    p.add_argument("scenario")
    p.add_argument("--backend", choices=("auto", "live", "twin"), default="auto")
    p.add_argument("--juju", metavar="VERSION", help="the Juju version the twin simulates")
    p.add_argument("--app", help="disrupt this application instead of the scenario's")
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
        "--no-probe", action="store_true", help="do not add the probe observer to the bundle"
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
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("report", help="re-render a bundle")
    p.add_argument("bundle", metavar="BUNDLE_DIR")
    p.add_argument("--format", choices=("md", "svg", "json"), default="md")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("matrix", help="one Markdown table from many bundles")
    p.add_argument("bundles", nargs="+", metavar="BUNDLE_DIR")
    p.add_argument("--strict", action="store_true", help="exit 1 when any bundle cannot be read")
    p.set_defaults(func=cmd_matrix)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # named by the command's own help, which lists what it takes
            raise UsageError(
                f"unrecognized arguments: {' '.join(extra)} (see repro {args.command} --help)"
            )
        return int(args.func(args))
    except UsageError as exc:
        print(f"repro: {exc}", file=sys.stderr)
    except HarnessError as exc:
        print(f"repro: {_one_line(str(exc))}", file=sys.stderr)
    except KeyboardInterrupt as exc:
        print(f"repro: {_one_line(str(exc)) or 'interrupted'}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `repro timeline big.log | head`: the reader left; that is not an error.
        # Point stdout at devnull so the interpreter's final flush does not fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # e.g. output redirected to a full disk
        if exc.filename:
            problem, fix = f"{exc.strerror or exc}: {exc.filename}", "check that path"
        else:
            problem, fix = str(exc.strerror or exc), "check free space where the output goes"
        print(f"repro: {problem} ({fix})", file=sys.stderr)
    except Exception as exc:  # a bug, but still one line: the bundle has the rest
        print(f"repro: {type(exc).__name__}: {_one_line(str(exc))}", file=sys.stderr)
    return 2


def _one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":
    raise SystemExit(main())
