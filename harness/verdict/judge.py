"""The verdict: one run compared with its catalogue entry, one finding per check.

Pure functions of values: ``judge`` takes the expectation, the snapshots before and after,
and the hook records inside the disruption window, and returns findings for

- ``hooks`` (``harness.verdict.hooks``): each unit's hook sequence, per source (debug-log,
  probe journal, twin), plus whether two sources of one unit agree;
- ``file`` (``harness.verdict.files``): each watched path per container per unit, against
  the survival expected for the filesystem layer it lives in;
- ``relation`` (``harness.verdict.relations``): each databag (by ``Databag.key``), kept or
  lost/changed; secret-looking fields are compared by digest and never shown in cleartext
  (``harness.common.redact``);
- ``pod-identity`` (``harness.verdict.pod_identity``): each unit's pod uid (new/same),
  restart counts and unit identity;
- known bugs attached to the expectation (``harness.verdict.known_bugs``): ``known-bug``
  while Juju still does what the reporter did not want.

Which catalogue branch to judge against is chosen first from the run itself
(``harness.verdict.branches.choose_branch``): a ``stop`` that was terminated or failed means
the interrupted-stop branch, a second ``upgrade-charm`` on a unit after a pod template change
means Juju rolled the pods again (second-roll); the choice and its reason go into the evidence.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import get_args

from harness.catalogue.model import Expectation, Layer
from harness.common.errors import HarnessError
from harness.common.findings import Finding, Verdict
from harness.common.observations import HookRecord, Snapshot
from harness.verdict.files import DEFAULT_LAYERS, file_findings
from harness.verdict.hooks import hook_findings, split_reused
from harness.verdict.known_bugs import known_bug_findings
from harness.verdict.pod_identity import pod_finding
from harness.verdict.relations import relation_findings
from harness.verdict.units import app_of, created_units, gone

# Every verdict name, in the order ``Verdict`` lists them: that Literal is the only list.
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

__all__ = ["VERDICTS", "count", "judge"]


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
