"""``repro run DISRUPTION --bundle FILE --app APP``: a user's bundle, end to end.

Everything that can be refused is refused before anything is deployed: the bundle file,
the application, each ``--watch``/``--mark`` against the charm's metadata, each relation
endpoint. Metadata comes from ``--charm-source APP=DIR``, a local charm in the bundle, or
(live) Charmhub; on a dry run with Charmhub out of reach the plan says what it could not
check.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.common.errors import EnvironmentUnavailable, HarnessError
from harness.common.versions import JujuVersion
from harness.run.launch import deploy_and_run
from harness.run.options import RunOptions
from harness.run.plan import plan
from harness.run.result import RunResult
from harness.scenario.bundle.load import load_bundle
from harness.scenario.bundle.model import BundleSpec
from harness.scenario.bundle_stack import (
    MetaSources,
    check_twin_scale,
    implied_meta,
    prepare,
    read_metas,
    unchecked_inputs,
)
from harness.scenario.charm_meta import CharmMeta, read_charmhub
from harness.scenario.scenarios import Scenario
from harness.scenario.stack import Stack

if TYPE_CHECKING:
    from harness.common.interrupt import Interruption

# Metadata on a dry run: unreadable metadata is a note in the plan, not a refusal.
UNCHECKED = "# metadata of {app} not read ({why}): its --watch layers and endpoints are unchecked"


@dataclass(frozen=True)
class BundleRun:
    bundle: BundleSpec
    stack: Stack
    scenario: Scenario
    metas: dict[str, CharmMeta | None]
    notes: tuple[str, ...] = ()


def parse_charm_sources(values: Sequence[str]) -> dict[str, Path]:
    sources: dict[str, Path] = {}
    for text in values:
        app, sep, directory = text.partition("=")
        if not sep or not app or not directory:
            raise HarnessError(
                f"--charm-source {text!r} is not APP=DIR", "e.g. --charm-source my-app=./my-charm"
            )
        path = Path(directory)
        if not (path / "src" / "charm.py").is_file():
            raise HarnessError(
                f"--charm-source {text!r}: no src/charm.py in {directory}",
                "pass the charm's source folder (the one with src/charm.py)",
            )
        sources[app] = path
    return sources


def charm_sites(values: Sequence[str], sources: Mapping[str, Path]) -> dict[str, Path]:
    """Each --charm-source app's own dependencies: the site-packages of ``--charm-venv
    APP=VENV``, else of the charm folder's ``.venv`` or ``venv`` when it is a virtual
    environment for this Python. A venv for another Python is refused: its packages are
    imported into this process (compiled ones are built for one Python only)."""
    python = f"python{sys.version_info.major}.{sys.version_info.minor}"
    given: dict[str, Path] = {}
    for text in values:
        app, sep, directory = text.partition("=")
        if not sep or not app or not directory:
            raise HarnessError(
                f"--charm-venv {text!r} is not APP=VENV",
                "e.g. --charm-venv my-app=./my-charm/.venv",
            )
        if app not in sources:
            raise HarnessError(
                f"--charm-venv {app}: {app} has no --charm-source",
                "give the app's source with --charm-source APP=DIR too",
            )
        given[app] = Path(directory)
    sites: dict[str, Path] = {}
    for app, source in sources.items():
        venv = given.get(app)
        found = [venv] if venv else [p for p in (source / ".venv", source / "venv") if p.is_dir()]
        for candidate in found:
            site = candidate / "lib" / python / "site-packages"
            if site.is_dir():
                sites[app] = site
                break
            if venv is not None:
                others = sorted(p.name for p in (venv / "lib").glob("python*")) or ["none"]
                raise HarnessError(
                    f"--charm-venv {app}={venv}: no site-packages for {python} "
                    f"(it has {', '.join(others)})",
                    f"build it with the Python repro runs on: {python} -m venv VENV",
                )
    return sites


def _metas(
    bundle: BundleSpec,
    sources: dict[str, Path],
    backend: str,
    dry_run: bool,
    watches: list[str],
) -> tuple[dict[str, CharmMeta | None], tuple[str, ...]]:
    live = backend == "live"
    metas = read_metas(bundle, MetaSources(sources, charmhub=False))
    if not live:  # the twin's stand-ins declare what the bundle implies, and say so
        return {
            app: meta or implied_meta(app, bundle, watches, metas) for app, meta in metas.items()
        }, ()
    notes: list[str] = []
    for app in bundle.apps:
        if metas[app.name] is not None or not live:
            continue
        try:
            metas[app.name] = read_charmhub(app.charmhub_name, app.channel)
        except EnvironmentUnavailable as exc:
            if not dry_run:
                raise EnvironmentUnavailable(
                    f"{exc.problem}; the bundle cannot be checked before deploying",
                    f"pass --charm-source {app.name}=DIR with its source, or a local .charm",
                ) from None
            notes.append(UNCHECKED.format(app=app.name, why=exc.problem))
    return metas, tuple(notes)


def prepare_run(options: RunOptions, backend: str, probe_charm: str | None) -> BundleRun:
    if not options.app:
        raise HarnessError("--bundle needs --app APP", "name the application to disrupt")
    if options.bundle is None:
        raise HarnessError("a bundle run needs --bundle FILE", "pass the bundle the app is in")
    sources = parse_charm_sources(options.charm_source)
    charm_sites(options.charm_venv, sources)  # refused here, before anything is deployed
    # The twin runs a source in place of a local charm; live deploys what the bundle names.
    charms = sources if backend == "twin" else None
    bundle = load_bundle(options.bundle, charms, options.overlay)
    bundle.app(options.app)  # an unknown app is refused first: it is the likeliest typo
    if backend == "twin":
        check_twin_scale(bundle)
    watches = [*options.watch, *options.mark]
    metas, notes = _metas(bundle, sources, backend, options.dry_run, watches)
    stack, scenario = prepare(
        bundle,
        options.scenario,
        options.app,
        metas=metas,
        watches=options.watch,
        marks=options.mark,
        probe_charm=probe_charm,
        redact=options.redact,
    )
    return BundleRun(bundle, stack, scenario, metas, (*notes, *unchecked_inputs(stack)))


def plan_lines(
    run: BundleRun,
    model: str,
    juju: JujuVersion | None,
    *,
    new_model: bool = False,
    model_config: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    lines = plan(
        run.scenario,
        run.stack,
        model=model,
        namespace=model,
        juju=juju,
        new_model=new_model,
        model_config=model_config,
    )
    for app, meta in run.metas.items():
        if meta is not None:
            lines = (*lines[:1], f"# metadata of {app}: {meta.source}", *lines[1:])
    return (*lines[:1], *run.notes, *lines[1:])


def folder_name(run: BundleRun) -> str:
    """``<disruption>-<bundle>-<digest>``: the digest tells runs of edited bundles apart."""
    return f"{run.scenario.name}-{run.bundle.label}-{run.bundle.short_digest}"


async def start(
    options: RunOptions,
    backend: str,
    run: BundleRun,
    folder: Path,
    juju: JujuVersion | None,
    interruption: Interruption | None = None,
    juju_notes: Sequence[str] = (),
) -> RunResult:
    """Deploy the bundle (live, or the twin with its stand-ins) and run the disruption."""
    charms, ran_by = None, None
    if backend == "twin":
        from harness.twin.generic import bundle_charms

        refs = {spec.app: spec.charm for spec in run.stack.apps}
        sources = parse_charm_sources(options.charm_source)
        sites = charm_sites(options.charm_venv, sources)
        charms, ran_by = bundle_charms(run.bundle, run.stack.metas, sources, refs, sites)
    return await deploy_and_run(
        options,
        backend,
        run.scenario,
        run.stack,
        folder,
        juju,
        juju_notes=juju_notes,
        interruption=interruption,
        charms=charms,
        ran_by=ran_by,
    )
