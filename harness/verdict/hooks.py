"""The hooks findings: each unit's hook sequence per source, and whether two sources agree."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from harness.catalogue.hooknames import HookName, Names, parse
from harness.catalogue.model import Expectation, OptionalHook
from harness.common.findings import Finding, Verdict
from harness.common.observations import HookRecord


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
    placed = [_placed_text(hook, names) for hook in expectation.optional]
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


def _placed_text(hook: OptionalHook, names: Names) -> str:
    """The hook as the charm names it (``workload-pebble-ready``), where it may run."""
    when = "" if hook.when == "always" else f", {hook.when} only"
    kind = "required" if hook.required else "optional"
    named = ", ".join(t.text for t in _targets(parse(hook.hook), names))
    return f"{named} ({kind}, {hook.where}{when})"


def hook_findings(
    expectation: Expectation,
    unit: str,
    records: Sequence[HookRecord],
    names: Names,
    leader: bool | None,
    runs: dict[tuple[str, str], list[str]],
) -> list[Finding]:
    """The unit's hooks per source against the expectation, and each pair of sources compared.

    Records what each (unit, source) ran into ``runs``, for the known-bug check.
    """
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


def split_reused(
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
