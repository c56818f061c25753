"""The verdict: one run compared with its catalogue entry, one finding per check.

Pure functions of values: ``judge`` takes the expectation, the snapshots before and after,
and the hook records inside the disruption window, and returns findings for

- ``hooks``: each unit's hook sequence, per source (debug-log, probe journal, twin), plus
  whether two sources of one unit agree;
- ``file``: each watched path per container per unit, against the survival expected for
  the filesystem layer it lives in;
- ``relation``: each databag (by ``Databag.key``), kept or lost/changed; secret-looking
  fields are compared by digest and never shown in cleartext (``harness.common.redact``);
- ``pod-identity``: each unit's pod uid (new/same), restart counts and unit identity;
- known bugs attached to the expectation (``judge_known_bug``): ``known-bug`` while Juju
  still does what the reporter did not want.

Which catalogue branch to judge against is chosen first from the run itself
(``choose_branch``): a ``stop`` that was terminated or failed means the interrupted-stop
branch, a second ``upgrade-charm`` on a unit after a pod template change means Juju rolled
the pods again (second-roll); the choice and its reason go into the evidence.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.catalogue.model import Expectation, Layer
from harness.common.errors import HarnessError
from harness.common.findings import Finding, Verdict
from harness.common.observations import (
    HookRecord,
    Snapshot,
)
from harness.verdict.files import DEFAULT_LAYERS, file_findings
from harness.verdict.hooks import hook_findings, ran_hooks, split_reused
from harness.verdict.known_bugs import known_bug_findings
from harness.verdict.pod_identity import pod_finding
from harness.verdict.relations import relation_findings
from harness.verdict.units import app_of, created_units, gone

VERDICTS: tuple[Verdict, ...] = ("match", "deviation", "known-bug", "undetermined")

__all__ = [
    "VERDICTS",
    "BranchChoice",
    "choose_branch",
    "count",
    "describe_branches",
    "judge",
]


def judge(
    expectation: Expectation,
    before: Snapshot,
    after: Snapshot,
    hooks: Sequence[HookRecord],
    *,
    units: Sequence[str],
    containers: Mapping[str, Sequence[str]] | None = None,
    endpoints: Mapping[str, Sequence[str]] | None = None,
    storages: Mapping[str, Sequence[str]] | None = None,
    watched_layers: Mapping[tuple[str, str], Layer] | None = None,
    charm_written: Collection[tuple[str, str]] = (),
    target_container: str | None = None,
    include_known_bugs: bool = True,
) -> tuple[Finding, ...]:
    """Every finding for one disruption run.

    ``units`` are the disrupted units (``app/N``) as they were before. ``hooks`` are the
    records inside the disruption window, any units and sources. ``containers``,
    ``endpoints`` and ``storages`` map an application (or a unit) to the names its charm
    declares; they turn templates such as ``{container}-pebble-ready`` into concrete,
    required hooks. Unknown names leave templates matching any hook of their family; a
    required ``{container}`` hook then needs at least one such hook, a required
    ``{storage}``/``{endpoint}`` hook becomes optional (the charm may have none).
    For ``container-restart`` pass ``containers`` with the restarted container only, and
    ``target_container``. ``watched_layers`` says which filesystem layer each
    ``(container, path)`` lives in (``DEFAULT_LAYERS`` when omitted); paths without a
    layer are not judged. Of those, the ``charm_written`` ``(container, path)`` pairs
    (``--watch``) are judged on their metadata, and may come out ``undetermined``
    (``harness.verdict.file_survival``); the others (markers the harness wrote) on their content.
    Units created by the disruption (scale-down-up) are judged against
    ``expectation.new_units``.
    """
    if expectation.scope == "container" and target_container is None:
        raise HarnessError(
            f"{expectation.label} restarts one container: say which",
            "pass target_container= (e.g. 'workload')",
        )
    disrupted = tuple(units)
    layers = DEFAULT_LAYERS if watched_layers is None else watched_layers
    # Only a disruption that replaces units may remove them; elsewhere a missing pod is
    # a deviation of its own, not a removal.
    removed = (
        tuple(u for u in disrupted if after.pod(u) is None and gone(u, after))
        if expectation.unit_identity == "new"
        else ()
    )
    created = created_units(disrupted, before, after, hooks)
    findings: list[Finding] = []
    runs: dict[tuple[str, str], list[str]] = {}

    def names_of(unit: str) -> dict[str, Sequence[str]]:
        return _names_for(unit, containers, endpoints, storages)

    for unit in disrupted:
        old_hooks, new_hooks = split_reused(expectation, unit, hooks, removed)
        findings.extend(
            hook_findings(
                expectation, unit, old_hooks, names_of(unit), _leader(unit, before, after), runs
            )
        )
        if new_hooks and expectation.new_units is not None:
            # The unit's name was reused by a new unit: judge what it ran as a new unit.
            findings.extend(
                hook_findings(
                    expectation.new_units,
                    f"{unit} (new unit)",
                    new_hooks,
                    names_of(unit),
                    _leader(unit, after, after),
                    {},
                )
            )
    if expectation.new_units is not None:
        for unit in created:
            findings.extend(
                hook_findings(
                    expectation.new_units,
                    unit,
                    hooks,
                    names_of(unit),
                    _leader(unit, after, after),
                    {},
                )
            )
    findings.extend(
        file_findings(
            expectation,
            before,
            after,
            disrupted,
            removed,
            layers,
            target_container,
            frozenset(charm_written),
        )
    )
    relation_results = relation_findings(expectation, before, after, disrupted, removed, created)
    findings.extend(finding for _, finding in relation_results)
    for unit in disrupted:
        findings.append(pod_finding(expectation, unit, before, after, created, target_container))
    if expectation.new_units is not None:
        for unit in created:
            findings.append(pod_finding(expectation.new_units, unit, before, after, created, None))
    if include_known_bugs:
        findings.extend(known_bug_findings(expectation, runs, relation_results, disrupted))
    return tuple(findings)


@dataclass(frozen=True)
class BranchChoice:
    """The catalogue branch a run is judged against, and what in the run chose it."""

    expectation: Expectation
    sign: str = ""  # what was observed that chose it; empty for the default branch

    @property
    def name(self) -> str:
        return self.expectation.branch

    @property
    def reason(self) -> str:
        return f"{self.name}: {self.sign or 'the default branch; no sign of another'}"


def choose_branch(
    branches: Sequence[Expectation], hooks: Sequence[HookRecord], units: Sequence[str]
) -> BranchChoice:
    """Pick the branch from what was observed; the main branch unless a branch's sign shows.

    ``branches`` are ``Catalogue.branches(disruption, version)`` (main first). A stop that
    did not complete (terminated, failed) on a disrupted unit selects ``stop-not-completed``
    branches (interrupted-stop); a unit that ran ``upgrade-charm`` twice in one source
    selects ``second-roll``. The reason names the unit and what it showed.
    """
    if not branches:
        raise HarnessError("no catalogue branch to judge against", "pass Catalogue.branches()")
    main = branches[0]
    signs = {
        "stop-not-completed": _stop_not_completed(hooks, units),
        "second-roll": _second_roll(hooks, units),
    }
    for branch in branches[1:]:
        sign = signs.get(branch.selected_by or "")
        if sign:
            return BranchChoice(branch, sign)
    return BranchChoice(main)


def describe_branches(choices: Mapping[str, BranchChoice]) -> str:
    """``main for probe/0; interrupted-stop for probe/1 (probe/1's stop was terminated)``."""
    groups: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for unit, choice in choices.items():
        groups.setdefault(choice.name, []).append(unit)
        if choice.sign:
            reasons.setdefault(choice.name, choice.sign)
    return "; ".join(
        f"{name} for {', '.join(units)}" + (f" ({reasons[name]})" if name in reasons else "")
        for name, units in groups.items()
    )


def _stop_not_completed(hooks: Sequence[HookRecord], units: Sequence[str]) -> str:
    for record in hooks:
        stop = record.unit in units and record.kind == "hook" and record.hook == "stop"
        if stop and record.outcome not in (None, "ok"):
            return f"{record.unit}'s stop was {record.outcome} ({record.source})"
    return ""


def _second_roll(hooks: Sequence[HookRecord], units: Sequence[str]) -> str:
    for unit in units:
        for source in dict.fromkeys(r.source for r in hooks if r.unit == unit):
            ran, _ = ran_hooks(hooks, unit, source)
            if ran.count("upgrade-charm") >= 2:
                return f"{unit} ran upgrade-charm twice ({source}): its pod was replaced again"
    return ""


def count(findings: Iterable[Finding]) -> dict[str, int]:
    """Findings per verdict; every verdict is a key, zero when absent."""
    counts: dict[str, int] = {verdict: 0 for verdict in VERDICTS}
    for finding in findings:
        counts[finding.verdict] = counts.get(finding.verdict, 0) + 1
    return counts


# ---------------------------------------------------------------------------- helpers


def _names_for(
    unit: str,
    containers: Mapping[str, Sequence[str]] | None,
    endpoints: Mapping[str, Sequence[str]] | None,
    storages: Mapping[str, Sequence[str]] | None,
) -> dict[str, Sequence[str]]:
    names: dict[str, Sequence[str]] = {}
    for variable, mapping in (
        ("container", containers),
        ("endpoint", endpoints),
        ("storage", storages),
    ):
        if mapping is None:
            continue
        found = mapping.get(unit, mapping.get(app_of(unit)))
        if found is not None:
            names[variable] = tuple(found)
    return names


def _leader(unit: str, first: Snapshot, second: Snapshot) -> bool | None:
    """Leadership as the second snapshot saw it, else the first; None when unknown."""
    for snapshot in (second, first):
        for status in snapshot.statuses:
            if status.unit == unit:
                return status.leader
    return None
