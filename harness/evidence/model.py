"""The evidence of one run as a value, and the names of the files it is written to.

``Evidence`` is what a run hands the writers: bundle.json (``harness.evidence.bundle``),
report.md and report.txt (``harness.evidence.report``) and timeline.svg
(``harness.evidence.svg``), each a view of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.common.charm_errors import CharmError
from harness.common.findings import Finding, Verdict
from harness.common.observations import (
    HookRecord,
    Snapshot,
    Step,
)
from harness.common.versions import Versions
from harness.evidence.user_bundle import UserBundle
from harness.lab.ports import Backend

SCHEMA_VERSION = "1"


BUNDLE_FILE = "bundle.json"


REPORT_FILE = "report.md"


TEXT_REPORT_FILE = "report.txt"  # the same report as plain text, for Launchpad


TIMELINE_FILE = "timeline.svg"


@dataclass(frozen=True)
class Evidence:
    """Everything one run observed and concluded; ``before``/``after`` are None if not taken."""

    scenario: str
    backend: Backend
    simulated: bool
    versions: Versions
    steps: tuple[Step, ...]
    before: Snapshot | None
    after: Snapshot | None
    hooks: tuple[HookRecord, ...]
    findings: tuple[Finding, ...]
    commands: tuple[str, ...]
    disruption: str | None = None
    juju_version: str | None = None  # the version the catalogue was consulted for
    # How that version was judged, where a reader must know: a track taken as a release,
    # a Juju past the catalogue's ranges judged by extrapolation.
    juju_notes: tuple[str, ...] = ()
    expected_hooks: tuple[str, ...] = ()  # the catalogue's required hooks, in order
    error: str | None = None  # one line when the run failed part-way
    bundle: UserBundle | None = None  # the user's Juju bundle, when the run deployed one
    interrupted: bool = False  # stopped by Ctrl-C or SIGTERM (``error`` says during what)
    branch: str = ""  # the catalogue branch each unit was judged against, and why
    disruption_detail: str = ""  # the disruption's parameters (container, signal)
    redact: tuple[str, ...] = ()  # keys the user named secret (repro run --redact)
    disrupted: tuple[str, ...] = ()  # the applications the disruption was applied to
    # The cleartext of the run's secret options: the writer hides them wherever they turn
    # up (harness.evidence.redaction.redact). Never written, never shown.
    secrets: tuple[str, ...] = field(default=(), repr=False, compare=False)
    charm_errors: tuple[CharmError, ...] = ()  # hooks the charms' own code failed

    @property
    def complete(self) -> bool:
        """Whether the run went to its end: no error and no interruption."""
        return self.error is None and not self.interrupted

    @classmethod
    def before_the_run(
        cls,
        scenario: str,
        backend: Backend,
        simulated: bool,
        commands: tuple[str, ...],
        error: str,
        *,
        disruption: str | None = None,
        interrupted: bool = False,
        steps: tuple[Step, ...] = (),
        disrupted: tuple[str, ...] = (),
    ) -> Evidence:
        """The evidence of a run that stopped before its scenario began (deploying), with
        the ``steps`` the deploy finished."""
        return cls(
            scenario=scenario,
            backend=backend,
            simulated=simulated,
            versions=Versions(),
            steps=steps,
            before=None,
            after=None,
            hooks=(),
            findings=(),
            commands=commands,
            disruption=disruption,
            error=error,
            interrupted=interrupted,
            disrupted=disrupted,
        )

    def count(self, verdict: Verdict) -> int:
        return sum(1 for finding in self.findings if finding.verdict == verdict)

    @property
    def deviations(self) -> int:
        return self.count("deviation")
