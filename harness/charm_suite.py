"""Disruption tests in a charm repository's own suite: its bundle, its charm, our checks.

The repository's ``conftest.py`` returns a ``CharmStack`` from a ``charm_stack`` fixture;
the plugin deploys it once per test module (live through pytest-operator's ``ops_test``,
or pytest-jubilant's ``juju``; on the twin with the charm's real code) and a test is
three lines::

    async def test_config_survives_pod_delete(charm_disrupt):
        run = await charm_disrupt("pod-delete")      # disrupt, then wait until settled
        assert_no_deviation(run, "hooks", "my-app/0 [debug-log]")
        assert file_digest(run.evidence.after, "my-app/0", "app", "/etc/app.conf") != "absent"

The checks are the ones the seed scenarios use (``harness.checks``). Each disruption runs
at most once per module and writes its evidence bundle like ``repro run`` does.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.common.errors import HarnessError
from harness.evidence.folders import session_folder
from harness.evidence.model import Evidence
from harness.lab.ports import Lab
from harness.run.deploy import deploy_stack, mark_stack
from harness.run.reproduce import deploy_commands, user_bundle
from harness.run.result import RunResult, one_line
from harness.run.scenario import run_scenario
from harness.scenario.bundle.load import load_bundle
from harness.scenario.bundle.model import BundleSpec
from harness.scenario.bundle_stack import (
    MetaSources,
    bundle_scenario,
    check_twin_scale,
    implied_meta,
    prepare,
    read_metas,
)
from harness.scenario.charm_meta import CharmMeta
from harness.scenario.secrets import secret_values
from harness.scenario.stack import Stack
from harness.suite.session import DEPLOY_FOLDER, evidence_folder, write_deploy_evidence

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CharmStack:
    """What a charm repository's conftest gives the plugin.

    ``bundle``: the Juju bundle (a local ``charm: ./x.charm`` for ``app`` may not exist
    yet: ``packed``, or the charm packed from ``source``, takes its place). ``source``: the
    charm's folder (src/charm.py and its metadata): the twin runs that code, and live packs
    it with ``ops_test.build_charm`` unless ``packed`` is given (the jubilant driver needs
    ``packed``). ``sources`` gives other
    applications' folders for the twin (the rest are generic SIMULATED stand-ins).
    ``watch``/``mark`` as ``repro run --watch/--mark``; ``probe`` adds the probe observer.
    Live, the model is the plugin's ``lab`` fixture's: pytest-jubilant's ``juju`` when the
    repository uses it, else pytest-operator's ``ops_test`` (``--juju-driver`` chooses).
    """

    bundle: Path
    app: str
    source: Path | None = None
    packed: Path | None = None
    sources: Mapping[str, Path] = field(default_factory=dict)
    watch: tuple[str, ...] = ()
    mark: tuple[str, ...] = ()
    probe: bool = False
    probe_charm: str | None = None

    def charm_sources(self) -> dict[str, Path]:
        found = dict(self.sources)
        if self.source is not None:
            found[self.app] = self.source
        return found


def load_for(spec: CharmStack, charm: Path | None, others: Mapping[str, Path] = {}) -> BundleSpec:
    """The bundle, with ``spec.app`` deployed from ``charm`` (its packed file, or its
    source on the twin), and ``others`` likewise."""
    overrides = dict(others)
    if charm is not None:
        overrides[spec.app] = charm
    return load_bundle(spec.bundle, charms=overrides)


class BundleDeployment:
    """A charm repository's bundle, deployed once per module; one run per disruption."""

    def __init__(
        self,
        lab: Lab,
        spec: CharmStack,
        bundle: BundleSpec,
        metas: Mapping[str, CharmMeta | None],
        evidence_dir: Path,
        juju_version: str | None,
        ran_by: Mapping[str, str] | None = None,
    ) -> None:
        self.lab = lab
        self.spec = spec
        self.bundle = bundle
        self.metas = dict(metas)
        self.evidence_dir = evidence_dir
        self.juju_version = juju_version
        self.ran_by = dict(ran_by or {})
        self.stack, _ = self._prepare("pod-delete")
        self._runs: dict[str, RunResult] = {}
        self._folders: dict[str, Path] = {}
        # Where a failed deploy's bundle went (a fallback folder when the usual one refused).
        self.deploy_evidence: Path | None = None

    def _prepare(self, disruption: str) -> tuple[Stack, Any]:
        return prepare(
            self.bundle,
            disruption,
            self.spec.app,
            metas=self.metas,
            watches=self.spec.watch,
            marks=self.spec.mark,
            probe_charm=self.spec.probe_charm if self.spec.probe else None,
        )

    async def deploy(self) -> None:
        """Deploy the bundle; if that fails, leave a bundle saying how far it got."""
        try:
            await deploy_stack(self.lab, self.stack)
        except BaseException as exc:
            evidence = Evidence.before_the_run(
                DEPLOY_FOLDER,
                self.lab.backend,
                self.lab.simulated,
                deploy_commands(self.stack),
                one_line(exc),
            )
            bundle = user_bundle(self.stack, self.spec.app, self.ran_by)
            # A failed deploy may quote a secret option (--config): the writer hides it.
            evidence = replace(evidence, bundle=bundle, secrets=secret_values(self.stack))
            folder = write_deploy_evidence(evidence, self.evidence_dir)
            self.deploy_evidence = folder
            log.error("deploying bundle %s failed; evidence: %s", self.bundle.path.name, folder)
            raise

    def folder(self, disruption: str) -> Path:
        """Where the run of ``disruption`` writes its bundle (this module's, this session)."""
        if disruption not in self._folders:
            self._folders[disruption] = session_folder(self.evidence_dir, disruption)
        return self._folders[disruption]

    async def run(self, disruption: str) -> RunResult:
        if disruption not in self._runs:
            if self._runs:  # an earlier disruption may have wiped the markers
                await mark_stack(self.lab, self.stack)
            container = next(
                (w.container for w in self.stack.watched if w.app == self.spec.app), None
            )
            scenario = bundle_scenario(
                disruption,
                self.spec.app,
                self.metas.get(self.spec.app),
                probe=self.stack.has_probe,
                container=None if container == "charm" else container,
            )
            self._runs[disruption] = await run_scenario(
                self.lab,
                scenario,
                self.stack,
                self.folder(disruption),
                juju_version=self.juju_version if self.lab.simulated else None,
                progress=log.info,
                ran_by=self.ran_by,
            )
        return self._runs[disruption]


def twin_deployment(
    spec: CharmStack, *, juju_version: str, workdir: Path, evidence_root: Path
) -> BundleDeployment:
    """The bundle on the twin: real code for the apps with a source, stand-ins otherwise."""
    from harness.twin import make_lab
    from harness.twin.generic import bundle_charms

    sources = spec.charm_sources()
    bundle = load_for(spec, sources.get(spec.app), sources)
    check_twin_scale(bundle)
    read = read_metas(bundle, MetaSources(sources, charmhub=False))
    watches = [*spec.watch, *spec.mark]
    metas = {app: meta or implied_meta(app, bundle, watches, read) for app, meta in read.items()}
    refs = {app.name: app.app_spec().charm for app in bundle.apps}
    charms, ran_by = bundle_charms(bundle, metas, sources, refs)
    lab = make_lab(juju_version=juju_version, workdir=workdir, charms=charms)
    return BundleDeployment(
        lab, spec, bundle, metas, _evidence_dir(evidence_root, bundle), juju_version, ran_by
    )


def live_deployment(
    spec: CharmStack, lab: Lab, packed: Path | None, *, evidence_root: Path
) -> BundleDeployment:
    """The bundle on a live model: metadata from the sources, local charms or Charmhub."""
    bundle = load_for(spec, packed)
    metas = read_metas(bundle, MetaSources(spec.charm_sources(), charmhub=True))
    return BundleDeployment(lab, spec, bundle, metas, _evidence_dir(evidence_root, bundle), None)


def _evidence_dir(root: Path, bundle: BundleSpec) -> Path:
    return root / f"{bundle.label}-{bundle.short_digest}"


Disrupt = Callable[[str], Awaitable[RunResult]]


def disrupter(deployment: BundleDeployment, record: Callable[[Path], None]) -> Disrupt:
    """``await charm_disrupt("pod-delete")``; the test's report points at the bundle."""

    async def disrupt(name: str) -> RunResult:
        result = None
        try:
            result = await deployment.run(name)
        finally:
            record(evidence_folder(deployment.folder(name), result))
        return result

    return disrupt


def packed_charm(spec: CharmStack) -> Path | None:
    """The packed charm given, if any (live packs ``source`` otherwise)."""
    if spec.packed is not None and not spec.packed.is_file():
        raise HarnessError(f"no such packed charm: {spec.packed}", "run charmcraft pack first")
    return spec.packed


def packer(
    spec: CharmStack, lab: Lab, fixture: Callable[[str], Any | None]
) -> Callable[[], Awaitable[Path | None]]:
    """How the live suite gets the charm under test packed: ``spec.packed``, else
    pytest-operator's ``ops_test.build_charm(spec.source)``; the jubilant driver (and a
    repository on pytest-jubilant) deploys only a charm packed before the tests.

    Call it outside the event loop: pytest-asyncio sets ``ops_test`` up by running the loop,
    which fails from inside a running one. On the jubilant path ``ops_test`` is never asked
    for: setting it up would add a libjuju model beside the lab's (and fails on Juju 4).
    """
    given = packed_charm(spec)
    source = spec.source
    if given is not None or source is None:
        return lambda: _ready(given)
    fix = "run charmcraft pack first and pass CharmStack(packed=Path('./x.charm'))"
    if getattr(lab.juju, "driver", None) == "jubilant":
        raise HarnessError(
            f"nothing packs {spec.app}'s charm: the jubilant driver deploys a packed charm", fix
        )
    ops_test = fixture("ops_test")
    if ops_test is None:
        raise HarnessError(
            f"nothing packs {spec.app}'s charm: pytest-operator is not installed", fix
        )

    async def build() -> Path | None:
        return Path(await ops_test.build_charm(source))

    return build


async def _ready(packed: Path | None) -> Path | None:
    return packed
