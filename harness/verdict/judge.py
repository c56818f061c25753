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
from dataclasses import dataclass, field, replace

from harness.catalogue.hooknames import HookName, Names, parse
from harness.catalogue.model import Expectation, Layer, OptionalHook
from harness.common.errors import HarnessError
from harness.common.findings import Finding, Verdict
from harness.common.observations import (
    HookRecord,
    Snapshot,
)
from harness.verdict.files import DEFAULT_LAYERS, file_findings
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
    "judge_sequence",
    "ran_hooks",
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
        old_hooks, new_hooks = _split_reused(expectation, unit, hooks, removed)
        findings.extend(
            _hook_findings(
                expectation, unit, old_hooks, names_of(unit), _leader(unit, before, after), runs
            )
        )
        if new_hooks and expectation.new_units is not None:
            # The unit's name was reused by a new unit: judge what it ran as a new unit.
            findings.extend(
                _hook_findings(
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
                _hook_findings(
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


def judge_sequence(
    expectation: Expectation,
    observed: Sequence[str],
    *,
    subject: str,
    containers: Sequence[str] | None = None,
    endpoints: Sequence[str] | None = None,
    storages: Sequence[str] | None = None,
    leader: bool | None = None,
    not_run: Sequence[str] = (),
    dispatched_not_run: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
    source_label: str = "",
) -> Finding:
    """One unit's hook names (in order) against the expectation.

    Required hooks must appear in order as a subsequence; required placed hooks (such as
    ``{container}-pebble-ready``) must appear where their constraints allow; optional and
    background hooks may appear where declared; anything else is a deviation.
    ``dispatched_not_run`` gives (hook, reason) for each hook dispatched but not run (a
    mapping gives one per hook name); each accounts for one missing copy of its hook.
    """
    names: dict[str, Sequence[str]] = {}
    for variable, given in (
        ("container", containers),
        ("endpoint", endpoints),
        ("storage", storages),
    ):
        if given is not None:
            names[variable] = tuple(given)
    result = _match(expectation, list(observed), names, leader)
    expected = " -> ".join(
        expectation.required_hooks(
            names.get("container"), names.get("endpoint"), names.get("storage"), leader=leader
        )
    )
    parts: list[str] = []
    if source_label:
        parts.append(f"source: {source_label}")
    if result.missing:
        parts.append("missing: " + ", ".join(result.missing))
    if result.unexpected:
        parts.append(
            "unexpected: "
            + ", ".join(f"{hook} (#{index + 1})" for index, hook in result.unexpected)
        )
    if result.allowed:
        parts.append("allowed optional: " + ", ".join(result.allowed))
    if result.background:
        parts.append("ignored background: " + ", ".join(result.background))
    if not_run:
        parts.append("not run to completion: " + ", ".join(not_run))
    placed = [_placed_text(hook) for hook in expectation.optional]
    if placed:
        parts.append("may also run: " + "; ".join(placed))
    verdict: Verdict = "match" if not result.missing and not result.unexpected else "deviation"
    # A required hook that was dispatched but could not run (the twin cannot emit it, or
    # Juju found no charm to run it from) is neither seen nor refuted: not judged.
    # Each record explains one missing copy of its hook, never every copy.
    reasons: dict[str, list[str]] = {}
    pairs = (
        dispatched_not_run.items()
        if isinstance(dispatched_not_run, Mapping)
        else dispatched_not_run or ()
    )
    for hook, reason in pairs:
        reasons.setdefault(hook, []).append(reason)
    unjudged = [
        f"{m}: {reasons[name].pop(0)}"
        for m in result.missing
        if reasons.get(name := m.split(" (", 1)[0])
    ]
    if unjudged and len(unjudged) == len(result.missing) and not result.unexpected:
        verdict = "undetermined"
        parts.append("not judged, dispatched but not run: " + ", ".join(unjudged))
    return Finding(
        check="hooks",
        subject=subject,
        expected=expected or "(no hooks)",
        observed=" -> ".join(observed) or "(no hooks)",
        verdict=verdict,
        source=expectation.source_for("hooks"),
        detail="; ".join(parts),
    )


def count(findings: Iterable[Finding]) -> dict[str, int]:
    """Findings per verdict; every verdict is a key, zero when absent."""
    counts: dict[str, int] = {verdict: 0 for verdict in VERDICTS}
    for finding in findings:
        counts[finding.verdict] = counts.get(finding.verdict, 0) + 1
    return counts


def ran_hooks(
    records: Iterable[HookRecord], unit: str, source: str
) -> tuple[list[str], list[str]]:
    """A unit's hooks from one source: those that ran, and those that did not finish."""
    ran: list[str] = []
    other: list[str] = []
    for record in records:
        if record.unit != unit or record.source != source:
            continue
        if record.kind != "hook" or not record.hook:
            continue
        if record.outcome in (None, "ok"):
            ran.append(record.hook)
        else:
            other.append(f"{record.hook} ({record.outcome})")
    return ran, other


# ---------------------------------------------------------------------- hook matching


@dataclass
class _Match:
    missing: list[str] = field(default_factory=list)
    unexpected: list[tuple[int, str]] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)
    background: list[str] = field(default_factory=list)


def _match(
    expectation: Expectation, observed: list[str], names: Names, leader: bool | None
) -> _Match:
    result = _Match()
    used: set[int] = set()
    bound: dict[str, str] = {}  # one value per template variable across the ordered hooks
    position = 0
    for text in expectation.hooks:
        hook = parse(text)
        found: int | None = None
        for index in range(position, len(observed)):
            value = hook.match(observed[index], names)
            if value is None:
                continue
            if hook.variable is not None and bound.get(hook.variable, value) != value:
                continue
            found = index
            if hook.variable is not None:
                bound[hook.variable] = value
            break
        if found is None:
            result.missing.append(_render(hook, bound))
            continue
        used.add(found)
        position = found + 1
    for placed in expectation.optional:
        if not placed.is_required(leader):
            continue
        variable = placed.name.variable
        if variable is not None and variable != "container" and variable not in names:
            # Whether the charm has any storage or endpoint at all is unknown: optional.
            # A sidecar charm always has a workload container, so that one stays required.
            continue
        for target in _targets(placed.name, names):
            hit = next(
                (
                    i
                    for i, seen in enumerate(observed)
                    if i not in used
                    and target.match(seen, names) is not None
                    and _where_ok(placed, i, observed, names)
                ),
                None,
            )
            if hit is None:
                result.missing.append(f"{target.text} ({placed.where})")
            else:
                used.add(hit)
    applicable = [p for p in expectation.optional if p.applies(leader)]
    background = [parse(text) for text in expectation.background]
    for index, seen in enumerate(observed):
        if index in used:
            continue
        if any(
            p.name.match(seen, names) is not None and _where_ok(p, index, observed, names)
            for p in applicable
        ):
            result.allowed.append(seen)
        elif any(hook.match(seen, names) is not None for hook in background):
            result.background.append(seen)
        else:
            result.unexpected.append((index, seen))
    return result


def _targets(name: HookName, names: Names) -> tuple[HookName, ...]:
    """The hooks a required placed hook stands for: each known name, or the pattern."""
    if name.variable is None or name.variable not in names:
        return (name,)
    return tuple(HookName(concrete) for concrete in name.expand(names))


def _where_ok(placed: OptionalHook, index: int, observed: Sequence[str], names: Names) -> bool:
    for kind, anchor in placed.constraints():
        earlier = any(anchor.match(seen, names) is not None for seen in observed[:index])
        if kind == "after" and not earlier:
            return False
        if kind == "before" and earlier:
            return False
    return True


def _render(hook: HookName, bound: Mapping[str, str]) -> str:
    if hook.variable is not None and hook.variable in bound:
        return f"{bound[hook.variable]}{hook.suffix}"
    return hook.text


def _placed_text(hook: OptionalHook) -> str:
    when = "" if hook.when == "always" else f", {hook.when} only"
    kind = "required" if hook.required else "optional"
    return f"{hook.hook} ({kind}, {hook.where}{when})"


def _hook_findings(
    expectation: Expectation,
    unit: str,
    records: Sequence[HookRecord],
    names: Names,
    leader: bool | None,
    runs: dict[tuple[str, str], list[str]],
) -> list[Finding]:
    sources = sorted({r.source for r in records if r.unit == unit and r.kind == "hook"})
    if not sources:
        return [
            Finding(
                check="hooks",
                subject=unit,
                expected=" -> ".join(expectation.required_hooks(leader=leader)) or "(no hooks)",
                observed="(no hook records from any source)",
                verdict="deviation" if expectation.required_hooks(leader=leader) else "match",
                source=expectation.source_for("hooks"),
                detail="nothing was recorded for this unit inside the disruption window",
            )
        ]
    findings: list[Finding] = []
    for source in sources:
        ran, not_run = ran_hooks(records, unit, source)
        runs[(unit, source)] = ran
        unrun = [
            (r.hook, r.detail)
            for r in records
            if r.unit == unit and r.source == source and r.outcome == "not-run" and r.hook
        ]
        findings.append(
            judge_sequence(
                expectation,
                ran,
                subject=f"{unit} [{source}]",
                containers=names.get("container"),
                endpoints=names.get("endpoint"),
                storages=names.get("storage"),
                leader=leader,
                not_run=not_run,
                dispatched_not_run=unrun,
                source_label=source,
            )
        )
    for first, second in _pairs(sources):
        a, b = runs[(unit, first)], runs[(unit, second)]
        agree = a == b
        findings.append(
            Finding(
                check="hooks",
                subject=f"{unit} [{first} vs {second}]",
                expected="both sources record the same hooks",
                observed="agree"
                if agree
                else f"{first}: {' -> '.join(a) or '(none)'}; "
                f"{second}: {' -> '.join(b) or '(none)'}",
                verdict="match" if agree else "deviation",
                source=expectation.source_for("hooks"),
                detail="" if agree else "one source missed or added a hook the other recorded",
            )
        )
    return findings


def _split_reused(
    expectation: Expectation,
    unit: str,
    records: Sequence[HookRecord],
    removed: Sequence[str],
) -> tuple[Sequence[HookRecord], list[HookRecord]]:
    """The records, and the unit's records after its ``remove`` when a new unit took its name.

    Where the catalogue says names are reused (``unit_name: reused``), the new unit's hooks
    come under the old name; they are returned apart, labelled ``<unit> (new unit)``.
    """
    if expectation.unit_name != "reused" or unit in removed:
        return records, []
    later: list[HookRecord] = []
    # Per source: the probe's journal lives on the reused volume, so it holds both units.
    for source in dict.fromkeys(r.source for r in records if r.unit == unit):
        mine = [r for r in records if r.unit == unit and r.source == source]
        hooks = [r.hook if r.kind == "hook" else None for r in mine]
        # After the old unit's remove; else from the new unit's install (a source that
        # missed the teardown).
        if "remove" in hooks:
            later.extend(mine[hooks.index("remove") + 1 :])
        elif "install" in hooks:
            later.extend(mine[hooks.index("install") :])
    if not later:
        return records, []
    moved = {id(r) for r in later}
    kept = [r for r in records if id(r) not in moved]
    return kept, [replace(r, unit=f"{unit} (new unit)") for r in later]


def _pairs(items: Sequence[str]) -> list[tuple[str, str]]:
    return [(a, b) for i, a in enumerate(items) for b in items[i + 1 :]]


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
