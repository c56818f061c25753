"""A deployed stack shared by one test module, and the runs made against it."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from pathlib import Path

from harness.evidence.folders import folder_for_new_bundle, session_folder
from harness.evidence.model import Evidence
from harness.evidence.write import write_bundle
from harness.lab.ports import Lab
from harness.run.deploy import deploy_stack, mark_stack
from harness.run.reproduce import deploy_commands, portable_commands
from harness.run.result import RunResult, one_line
from harness.run.scenario import run_scenario
from harness.scenario.scenarios import scenario
from harness.scenario.stack import Stack, default_stack
from harness.suite.options import HarnessOptions

log = logging.getLogger(__name__)

DEPLOY_FOLDER = "deploy"  # the bundle written when deploying the stack itself fails


class Deployment:
    """The stack deployed once per module; each scenario runs against it at most once."""

    def __init__(self, lab: Lab, stack: Stack, evidence_dir: Path, juju_version: str) -> None:
        self.lab = lab
        self.stack = stack
        self.evidence_dir = evidence_dir
        self.juju_version = juju_version
        self._runs: dict[str, RunResult] = {}
        self._folders: dict[str, Path] = {}
        # Where a failed deploy's bundle went (a fallback folder when the usual one refused).
        self.deploy_evidence: Path | None = None

    @classmethod
    def for_options(cls, lab: Lab, options: HarnessOptions, probe_charm: str) -> Deployment:
        stack = default_stack(
            probe_charm,
            mysql_channel=options.mysql_channel,
            router_channel=options.router_channel,
        )
        return cls(lab, stack, options.evidence_dir, options.juju_version)

    async def deploy(self) -> None:
        """Deploy the stack; if that fails, leave a bundle saying how far it got."""
        try:
            await deploy_stack(self.lab, self.stack)
        except BaseException as exc:
            folder = write_deploy_evidence(self._deploy_evidence(one_line(exc)), self.evidence_dir)
            self.deploy_evidence = folder
            log.error("deploying the stack failed; evidence: %s", folder)
            raise

    def _deploy_evidence(self, error: str) -> Evidence:
        return Evidence.before_the_run(
            DEPLOY_FOLDER,
            self.lab.backend,
            self.lab.simulated,
            portable_commands(deploy_commands(self.stack), self.stack),
            error,
            rehearsal=self.lab.rehearsal,
        )

    def folder(self, name: str) -> Path:
        """Where the run of ``name`` writes its bundle (this module's, for this session)."""
        if name not in self._folders:
            self._folders[name] = session_folder(self.evidence_dir, name)
        return self._folders[name]

    async def run(self, name: str) -> RunResult:
        if name not in self._runs:
            if self._runs:  # an earlier disruption may have wiped the markers
                await mark_stack(self.lab, self.stack)
            self._runs[name] = await run_scenario(
                self.lab,
                scenario(name),
                self.stack,
                self.folder(name),
                juju_version=self.juju_version if self.lab.simulated else None,
                progress=log.info,
            )
        return self._runs[name]


def evidence_folder(intended: Path, result: RunResult | None) -> Path:
    """Where a run's bundle is: ``intended``, or the fallback it had to go to, said as a
    warning (pytest's summary shows it even when the test passes, which shows no report)."""
    if result is None or result.folder == intended:
        return intended
    warnings.warn(
        f"the evidence could not be written to {intended}; it is in {result.folder}",
        stacklevel=3,
    )
    return result.folder


def write_deploy_evidence(evidence: Evidence, evidence_dir: Path) -> Path:
    """Write a failed deploy's bundle, keeping an earlier session's beside it."""
    folder, note = folder_for_new_bundle(evidence_dir / DEPLOY_FOLDER)
    if note is not None:
        log.info("%s", note)
    return write_bundle(evidence, folder)


class Disrupter:
    """The ``disrupt`` fixture's value: ``await disrupt(scenario_name)``."""

    def __init__(self, deployment: Deployment, record: Callable[[Path], None]) -> None:
        self.deployment = deployment
        self._record = record

    async def __call__(self, name: str) -> RunResult:
        result = None
        try:
            result = await self.deployment.run(name)
        finally:
            # The bundle is written even when the run raised; point the test at it.
            self._record(evidence_folder(self.deployment.folder(name), result))
        return result
