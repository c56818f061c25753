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

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from harness.catalogue.hooknames import HookName, Names, parse
from harness.catalogue.model import Expectation, KnownBug, Layer, OptionalHook
from harness.catalogue.relation_keys import unit_keys
from harness.common.errors import HarnessError
from harness.common.findings import Finding, Verdict
from harness.common.observations import (
    ABSENT,
    DIRECTORY,
    UNLISTED,
    Databag,
    FileState,
    HookRecord,
    PodIdentity,
    Snapshot,
)
from harness.common.redact import comparable, redact, shown
from harness.common.versions import JujuVersion
from harness.scenario.stack import PROBE_ROOT_INCARNATION, PROBE_WORKLOAD_MARKER, ROUTER_MARKER
from harness.verdict.file_survival import JUDGED_ON, survival

# Where the stack's judged paths live (``Stack.layers`` says the same for a whole stack);
# callers add the probe's charm-dir and storage paths. /etc/mysqlrouter itself is not
# here: it is a directory the router rewrites, so only the harness's marker inside it
# can show whether the container root survived.
DEFAULT_LAYERS: Mapping[tuple[str, str], Layer] = {
    ("mysql-router", ROUTER_MARKER): "container-root",
    ("workload", PROBE_WORKLOAD_MARKER): "container-root",
    ("charm", PROBE_ROOT_INCARNATION): "container-root",
}

VERDICTS: tuple[Verdict, ...] = ("match", "deviation", "known-bug", "undetermined", "charm-error")

__all__ = [
    "DEFAULT_LAYERS",
    "VERDICTS",
    "BranchChoice",
    "choose_branch",
    "count",
    "describe_branches",
    "judge",
    "judge_known_bug",
    "judge_sequence",
    "ran_hooks",
    "units_for",
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
        tuple(u for u in disrupted if after.pod(u) is None and _gone(u, after))
        if expectation.unit_identity == "new"
        else ()
    )
    created = _created_units(disrupted, before, after, hooks)
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
        _file_findings(
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
    relation_results = _relation_findings(expectation, before, after, disrupted, removed, created)
    findings.extend(finding for _, finding in relation_results)
    for unit in disrupted:
        findings.append(_pod_finding(expectation, unit, before, after, created, target_container))
    if expectation.new_units is not None:
        for unit in created:
            findings.append(
                _pod_finding(expectation.new_units, unit, before, after, created, None)
            )
    if include_known_bugs:
        findings.extend(_known_bug_findings(expectation, runs, relation_results, disrupted))
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


def units_for(before: Snapshot, app: str, units: Sequence[str] = ()) -> tuple[str, ...]:
    """The disrupted units: those given, else every unit of ``app`` seen before."""
    if units:
        return tuple(units)
    seen = [p.unit for p in before.pods] + [s.unit for s in before.statuses]
    return tuple(sorted({u for u in seen if _app(u) == app}, key=_ordinal))


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


def judge_known_bug(known_bug: KnownBug, observed: Sequence[str], *, subject: str = "") -> Finding:
    """Whether the reporter's expectation is met by what was observed.

    ``observed`` is the unit's hook names in order (``hooks`` bugs; only the hooks the bug
    talks about are compared) or one word, ``kept``/``lost`` (``relation-data`` bugs).
    ``known-bug`` while Juju does what the catalogue says it does (the integration suite
    makes that a strict xfail); ``match`` once the reporter's expectation holds (fixed, or
    not reproduced); ``deviation`` when it is neither.
    """
    if known_bug.kind == "hooks":
        named = set(known_bug.reporter_expected) | set(known_bug.juju_does)
        seen = tuple(hook for hook in observed if hook in named)
    else:
        seen = tuple(observed)
    verdict: Verdict
    if seen == known_bug.reporter_expected:
        verdict = "match"
    elif seen == known_bug.juju_does:
        verdict = "known-bug"
    else:
        verdict = "deviation"
    fixed = f"fixed in Juju {known_bug.fixed_in}" if known_bug.fixed_in else "not fixed"
    arrow = " -> " if known_bug.kind == "hooks" else ", "
    detail = (
        f"{known_bug.title} ({fixed}); Juju is catalogued to do: "
        f"{arrow.join(known_bug.juju_does) or '(nothing)'}"
    )
    if known_bug.quote:
        detail += f'; the report says: "{known_bug.quote}"'
    if known_bug.notes:
        detail += f"; {known_bug.notes}"
    return Finding(
        check="hooks" if known_bug.kind == "hooks" else "relation",
        subject=f"{known_bug.id} {subject}".strip(),
        expected="reporter: " + (arrow.join(known_bug.reporter_expected) or "(nothing)"),
        observed=arrow.join(seen) or "(none)",
        verdict=verdict,
        source=known_bug.url,
        detail=detail,
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


# ------------------------------------------------------------------------------ files


def _file_findings(
    expectation: Expectation,
    before: Snapshot,
    after: Snapshot,
    units: Sequence[str],
    removed: Sequence[str],
    layers: Mapping[tuple[str, str], Layer],
    target_container: str | None,
    charm_written: frozenset[tuple[str, str]] = frozenset(),
) -> list[Finding]:
    keys: list[tuple[str, str, str]] = []
    for state in (*before.files, *after.files):
        key = (state.unit, state.container, state.path)
        if state.unit in units and key not in keys:
            keys.append(key)
    was = {(f.unit, f.container, f.path): f.digest for f in before.files}
    now = {(f.unit, f.container, f.path): f.digest for f in after.files}
    states = {(f.unit, f.container, f.path): f for f in before.files}
    states_after = {(f.unit, f.container, f.path): f for f in after.files}
    findings: list[Finding] = []
    for unit, container, path in keys:
        layer = layers.get((container, path))
        if layer is None or layer not in expectation.survives:
            continue
        survive = expectation.survives[layer]
        scope_note = ""
        restarted_elsewhere = expectation.scope == "container" and container != target_container
        if restarted_elsewhere and layer == "container-root":
            survive, scope_note = True, f", {container} was not restarted"
        expected = f"{'survives' if survive else 'lost'} ({layer}{scope_note})"
        old, new = was.get((unit, container, path)), now.get((unit, container, path))
        detail = ""
        not_listed = _not_listed(before, after, unit, container, path, removed=unit in removed)
        if not_listed is not None:
            findings.append(
                Finding(
                    check="file",
                    subject=f"{unit} {container}:{path}",
                    expected=expected,
                    observed=not_listed,
                    verdict="undetermined",
                    source=expectation.source_for("file"),
                    detail="the container could not be listed: survival could not be tested",
                )
            )
            continue
        if (container, path) in charm_written:
            findings.append(
                _watched_finding(
                    expectation,
                    f"{unit} {container}:{path}",
                    expected,
                    survive,
                    layer,
                    states.get((unit, container, path)),
                    states_after.get((unit, container, path)),
                    removed=unit in removed,
                    started_at=_started(before, unit, container),
                    other_node=_moved(before, after, unit),
                )
            )
            continue
        if old is None or old == ABSENT:
            observed = "absent before the disruption: nothing to survive"
            verdict: Verdict = "deviation"
            detail = "write the marker before disrupting; survival could not be tested"
        elif unit in removed:
            observed, kept = "unit removed", False
            verdict = "match" if kept == survive else "deviation"
        elif new is None:
            observed = "not observed after the disruption"
            verdict = "deviation"
        else:
            kept = new == old
            if kept:
                observed = f"survived ({_short(old)})"
                if old == DIRECTORY:
                    detail = "a directory: only its existence is compared, not its contents"
            elif new == ABSENT:
                observed = f"lost (was {_short(old)}, now absent)"
            else:
                observed = f"lost (replaced: {_short(old)} -> {_short(new)})"
            verdict = "match" if kept == survive else "deviation"
        findings.append(
            Finding(
                check="file",
                subject=f"{unit} {container}:{path}",
                expected=expected,
                observed=observed,
                verdict=verdict,
                source=expectation.source_for("file"),
                detail=detail,
            )
        )
    return findings


def _not_listed(
    before: Snapshot, after: Snapshot, unit: str, container: str, path: str, *, removed: bool
) -> str | None:
    """What was observed when a listing failed: neither absent nor missing after, unknown."""
    key = (unit, container, path)
    old = next((f for f in before.files if (f.unit, f.container, f.path) == key), None)
    new = next((f for f in after.files if (f.unit, f.container, f.path) == key), None)
    if old is None or old.digest == UNLISTED:
        why = before.unlisted(unit, container, path)
        if why is not None:
            return f"not listed before the disruption ({why}); survival undetermined"
    if not removed and (new is None or new.digest == UNLISTED):
        why = after.unlisted(unit, container, path)
        if why is not None:
            return f"not listed after the disruption ({why}); survival undetermined"
    return None


def _short(digest: str) -> str:
    return digest[:15] + "…" if digest.startswith("sha256:") else digest


def _watched_finding(
    expectation: Expectation,
    subject: str,
    expected: str,
    survive: bool,
    layer: Layer,
    old: FileState | None,
    new: FileState | None,
    *,
    removed: bool,
    started_at: str | None,
    other_node: str | None = None,
) -> Finding:
    """A file the charm writes, judged on its metadata (see ``harness.verdict.file_survival``)."""
    verdict: Verdict
    if old is None or old.digest == ABSENT:
        observed = "absent before the disruption: nothing to survive; survival undetermined"
        verdict = "undetermined"
    elif removed:
        observed = "unit removed"
        verdict = "match" if not survive else "deviation"
    elif new is None:
        observed, verdict = "not observed after the disruption", "deviation"
    else:
        got = survival(old, new, layer=layer, started_at=started_at, other_node=other_node)
        observed = got.observed
        if got.outcome == "undetermined":
            verdict = "undetermined"
        else:
            verdict = "match" if (got.outcome == "kept") == survive else "deviation"
    return Finding(
        check="file",
        subject=subject,
        expected=expected,
        observed=observed,
        verdict=verdict,
        source=expectation.source_for("file"),
        detail=JUDGED_ON,
    )


def _moved(before: Snapshot, after: Snapshot, unit: str) -> str | None:
    """The node the unit's pod is on after, when it differs from the one before."""
    old, new = before.pod(unit), after.pod(unit)
    if old is None or new is None or not old.node or not new.node or old.node == new.node:
        return None
    return new.node


def _started(snapshot: Snapshot, unit: str, container: str) -> str | None:
    pod = snapshot.pod(unit)
    status = pod.container(container) if pod is not None else None
    return status.started_at if status is not None else None


# -------------------------------------------------------------------------- relations


def _relation_findings(
    expectation: Expectation,
    before: Snapshot,
    after: Snapshot,
    units: Sequence[str],
    removed: Sequence[str],
    created: Sequence[str],
) -> list[tuple[Databag, Finding]]:
    """Each databag with its finding (the bag tells the known-bug check whose it is)."""
    was = {bag.key: bag for bag in before.relations}
    now = {bag.key: bag for bag in after.relations}
    apps = {_app(unit) for unit in units}
    findings: list[tuple[Databag, Finding]] = []
    for key in [*was, *(k for k in now if k not in was)]:
        old, new = was.get(key), now.get(key)
        bag = old if old is not None else new
        assert bag is not None  # one of them holds the key
        subject = f"{key[0]} {bag.owner} (seen by {bag.seen_by}, {bag.source})"
        verdict: Verdict
        if bag.owner in removed or bag.seen_by in removed:
            expected, verdict, observed = "gone with the removed unit", "match", "gone"
            if new is not None:
                verdict, observed = "deviation", "still there: " + _describe(new.data)
        elif old is None:
            assert new is not None
            if bag.owner in created or bag.seen_by in created:
                expected, verdict = "new (a new unit)", "match"
            else:
                expected, verdict = "kept (it did not exist before)", "deviation"
            observed = "appeared: " + _describe(new.data)
        else:
            wanted = _wanted(expectation, bag, units, apps)
            expected = f"{wanted} ({len(old.data)} keys)"
            if wanted == "lost":
                # Juju writes a new unit's network keys itself; the charm's keys are lost.
                # Which keys are Juju's depends on the version (private-address is the
                # charm's own from 4.0); every catalogue range lies within one such span.
                juju = unit_keys(JujuVersion.parse(expectation.juju_min)).owned
                old, new = _charm_keys(old, juju), None if new is None else _charm_keys(new, juju)
                expected = f"lost ({len(old.data)} keys the charm wrote)"
            observed, kept = _compare(old, new)
            verdict = "match" if kept == (wanted == "kept") else "deviation"
            if wanted == "lost" and not old.data:
                # Only Juju's own keys, which a new unit gets again: nothing to judge here.
                observed, verdict = "only Juju's network keys, set again for the new unit", "match"
        finding = Finding(
            check="relation",
            subject=subject,
            expected=expected,
            observed=observed,
            verdict=verdict,
            source=expectation.source_for("relation"),
            detail=_dump(old, new),
        )
        findings.append((bag, finding))
    return findings


def _wanted(expectation: Expectation, bag: Databag, units: Sequence[str], apps: set[str]) -> str:
    """What the catalogue says about this databag; remote data Juju leaves alone."""
    if bag.scope == "unit" and bag.owner in units:
        return expectation.relation_data
    if bag.scope == "app" and bag.owner in apps:
        return expectation.app_relation_data
    return "kept"


def _charm_keys(bag: Databag, juju: frozenset[str]) -> Databag:
    """The bag without the keys Juju wrote (``juju``)."""
    return replace(bag, data={k: v for k, v in bag.data.items() if k not in juju})


def _compare(old: Databag, new: Databag | None) -> tuple[str, bool]:
    if new is None:
        return "lost (databag gone)", False
    before = {k: comparable(k, v) for k, v in old.data.items()}
    after = {k: comparable(k, v) for k, v in new.data.items()}
    if before == after:
        return "kept", True
    if not after:
        return "lost (emptied)", False
    changes: list[str] = []
    for key in sorted(set(before) | set(after)):
        if key not in after:
            changes.append(f"{key} removed")
        elif key not in before:
            changes.append(f"{key} added = {shown(key, new.data[key])}")
        elif before[key] != after[key]:
            changes.append(f"{key}: {shown(key, old.data[key])} -> {shown(key, new.data[key])}")
    return "changed: " + "; ".join(changes), False


def _describe(data: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={shown(k, v)}" for k, v in sorted(data.items())) or "(empty)"


def _dump(old: Databag | None, new: Databag | None) -> str:
    def text(bag: Databag | None) -> str:
        return "absent" if bag is None else json.dumps(redact(bag.data), sort_keys=True)

    return f"before: {text(old)}; after: {text(new)}"


# ------------------------------------------------------------------------ pod identity


def _pod_finding(
    expectation: Expectation,
    unit: str,
    before: Snapshot,
    after: Snapshot,
    created: Sequence[str],
    target_container: str | None,
) -> Finding:
    old, new = before.pod(unit), after.pod(unit)
    expected = _pod_expected(expectation, target_container)
    verdict: Verdict
    detail = ""
    if new is None and expectation.unit_identity == "new":
        replacements = [u for u in created if _app(u) == _app(unit)]
        observed = f"unit removed; new units: {', '.join(replacements) or 'none'}"
        verdict = "match" if replacements else "deviation"
    elif new is None:
        observed, verdict = "unit gone after the disruption", "deviation"
    elif old is None:
        counts = ", ".join(f"{c.name} {c.restart_count}" for c in new.containers)
        observed = f"new pod {new.name} ({new.uid[:8]}); restarts: {counts or 'none'}"
        fresh = all(c.restart_count == 0 for c in new.containers)
        if unit in created or expectation.unit_identity == "new":
            verdict = "match" if fresh or expectation.restart_count != "resets" else "deviation"
        else:
            verdict, detail = "deviation", "the unit's pod was not observed before"
    else:
        uid_new = new.uid != old.uid
        counts_ok, counts_text = _restarts(expectation, old, new, uid_new, target_container)
        observed = (
            f"uid {'new' if uid_new else 'same'} ({old.uid[:8]} -> {new.uid[:8]}); "
            f"restarts: {counts_text}"
        )
        uid_ok = uid_new == (expectation.pod_uid == "new")
        verdict = "match" if uid_ok and counts_ok else "deviation"
        if not uid_ok:
            detail = f"expected a {'new' if expectation.pod_uid == 'new' else 'same'} pod uid"
    return Finding(
        check="pod-identity",
        subject=unit,
        expected=expected,
        observed=observed,
        verdict=verdict,
        source=expectation.source_for("pod-identity"),
        detail=detail,
    )


def _pod_expected(expectation: Expectation, target_container: str | None) -> str:
    if expectation.unit_identity == "new":
        return (
            f"unit replaced by a new unit on a new pod; restart counts {expectation.restart_count}"
        )
    counts: str = expectation.restart_count
    if expectation.scope == "container" and target_container:
        counts = f"{counts} for {target_container}, unchanged for the others"
    return f"uid {expectation.pod_uid}; restart counts {counts}"


def _restarts(
    expectation: Expectation,
    old: PodIdentity,
    new: PodIdentity,
    uid_new: bool,
    target_container: str | None,
) -> tuple[bool, str]:
    names = [c.name for c in old.containers] + [
        c.name for c in new.containers if old.container(c.name) is None
    ]
    pairs: list[tuple[str, int | None, int | None]] = []
    for name in names:
        was, now = old.container(name), new.container(name)
        pairs.append(
            (
                name,
                None if was is None else was.restart_count,
                None if now is None else now.restart_count,
            )
        )
    text = ", ".join(
        f"{n} {'-' if b is None else b}->{'-' if a is None else a}" for n, b, a in pairs
    )
    rule = expectation.restart_count
    ok: bool
    if rule == "resets":
        ok = uid_new and all(a == 0 for _, _, a in pairs if a is not None)
    elif rule == "unchanged":
        ok = all(a == b for _, b, a in pairs)
    elif expectation.scope == "container":
        ok = all(
            (a is not None and b is not None and a > b) if n == target_container else a == b
            for n, b, a in pairs
        )
    else:
        ok = all(a is not None and b is not None and a > b for _, b, a in pairs)
    return ok, text or "no containers reported"


# ---------------------------------------------------------------------- known bugs


def _known_bug_findings(
    expectation: Expectation,
    runs: Mapping[tuple[str, str], list[str]],
    relations: Sequence[tuple[Databag, Finding]],
    units: Sequence[str],
) -> list[Finding]:
    apps = {_app(unit) for unit in units}
    findings: list[Finding] = []
    for bug in expectation.known_bugs:
        if bug.kind == "hooks":
            for (unit, source), ran in runs.items():
                findings.append(judge_known_bug(bug, ran, subject=f"{unit} [{source}]"))
        else:
            # The disrupted units' own databags and their applications' databags.
            mine = [f for bag, f in relations if bag.owner in units or bag.owner in apps]
            word = "kept" if all(f.verdict == "match" for f in mine) else "lost"
            findings.append(
                judge_known_bug(bug, (word,), subject=f"relation data of {', '.join(units)}")
            )
    return findings


# ---------------------------------------------------------------------------- helpers


def _app(unit: str) -> str:
    return unit.rsplit("/", 1)[0]


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
        found = mapping.get(unit, mapping.get(_app(unit)))
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


def _gone(unit: str, after: Snapshot) -> bool:
    """A unit with no pod, no status and no databag after the disruption was removed."""
    return not any(s.unit == unit for s in after.statuses) and not any(
        bag.owner == unit or bag.seen_by == unit for bag in after.relations
    )


def _created_units(
    units: Sequence[str], before: Snapshot, after: Snapshot, hooks: Sequence[HookRecord]
) -> tuple[str, ...]:
    """Units of the disrupted applications that exist after but not before."""
    apps = {_app(unit) for unit in units}
    known = {p.unit for p in before.pods} | {s.unit for s in before.statuses} | set(units)
    seen = [p.unit for p in after.pods] + [s.unit for s in after.statuses]
    seen += [r.unit for r in hooks if r.unit not in known and _install_seen(r, hooks)]
    out: list[str] = []
    for unit in seen:
        if _app(unit) in apps and unit not in known and unit not in out:
            out.append(unit)
    return tuple(sorted(out, key=_ordinal))


def _install_seen(record: HookRecord, hooks: Sequence[HookRecord]) -> bool:
    return any(r.unit == record.unit and r.hook == "install" for r in hooks)


def _ordinal(unit: str) -> tuple[str, int]:
    app, _, number = unit.rpartition("/")
    return (app, int(number) if number.isdigit() else -1)
