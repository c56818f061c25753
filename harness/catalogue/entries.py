"""One catalogue entry read into an Expectation per version range.

A range may say some of the entry's fields differently (``_RANGE_OVERRIDES``); an entry's
``new_units`` names the lifecycle entry its new units follow, resolved once every entry is
read (``resolve_new_units``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from harness.catalogue.fields import (
    as_mapping,
    as_names,
    check_hook,
    read_bounds,
    read_sources,
    required_text,
)
from harness.catalogue.model import (
    LAYERS,
    SELECTORS,
    SIGNALS,
    SUPPORTED_FROM,
    Expectation,
    KnownBug,
    Layer,
    OptionalHook,
)
from harness.catalogue.names import LIFECYCLE
from harness.catalogue.validation import CatalogueError
from harness.common.versions import JujuVersion

_ENTRY_KEYS = {
    "disruption",
    "variant",
    "summary",
    "hooks",
    "optional",
    "survives",
    "scope",
    "pod_uid",
    "restart_count",
    "relation_data",
    "app_relation_data",
    "unit_identity",
    "unit_order",
    "new_units",
    "confidence",
    "known_bugs",
    "notes",
    "sources",
    "ranges",
    "stop_budget_seconds",
    "container",
    "signals",
    "selected_by",
    "pebble_state",
    "unit_name",
    "charm",
}


# What one version range of an entry may say differently from the entry.
_RANGE_OVERRIDES = frozenset(
    {
        "summary",
        "hooks",
        "optional",
        "survives",
        "relation_data",
        "restart_count",
        "confidence",
        "pebble_state",
        "stop_budget_seconds",
        "unit_name",
    }
)


_CHOICES: Mapping[str, tuple[str | None, ...]] = {
    "pod_uid": ("new", "same"),
    "restart_count": ("increments", "resets", "unchanged"),
    "relation_data": ("kept", "lost"),
    "app_relation_data": ("kept", "lost"),
    "unit_identity": ("kept", "new"),
    "unit_order": ("one", "highest-ordinal-first", "all-at-once"),
    "confidence": ("high", "medium", "low"),
    "scope": ("pod", "container"),
    "container": ("charm", "workload", None),
    "selected_by": (*SELECTORS, None),
    "pebble_state": ("kept", "lost", None),
    "unit_name": ("kept", "reused", "new"),
    "charm": ("sidecar", "podspec"),
}


_DEFAULTS: Mapping[str, str] = {
    "app_relation_data": "kept",
    "confidence": "medium",
    "scope": "pod",
    "unit_name": "kept",
    "charm": "sidecar",
}


def read_entry(
    raw: object,
    where: str,
    refs: Mapping[str, str],
    bugs: Sequence[KnownBug],
) -> list[tuple[Expectation, str | None]]:
    """One expectation per range, each with the name of its ``new_units`` entry.

    A range may override the entry's fields (``_RANGE_OVERRIDES``): the entry is read
    again with the range's values in place of its own.
    """
    entry = as_mapping(raw, where)
    ranges = entry.get("ranges")
    disruption = required_text(entry, "disruption", where)
    if not isinstance(ranges, list) or not ranges:
        raise CatalogueError(
            f"catalogue {where} ({disruption}): no ranges", "add ranges: [{juju_min: '2.9'}]"
        )
    out: list[tuple[Expectation, str | None]] = []
    for item in ranges:
        span = as_mapping(item, f"{where} ({disruption}) range")
        merged = {**entry, **{k: v for k, v in span.items() if k in _RANGE_OVERRIDES}}
        base, name = _base(merged, where, refs, bugs)
        here = f"{where} ({base.disruption}{'' if base.variant is None else '/' + base.variant})"
        out.append((_ranged(base, span, here, refs), name))
    return out


def _base(
    entry: Mapping[str, Any],
    where: str,
    refs: Mapping[str, str],
    bugs: Sequence[KnownBug],
) -> tuple[Expectation, str | None]:
    disruption = required_text(entry, "disruption", where)
    variant = entry.get("variant")
    here = f"{where} ({disruption}{'' if variant is None else '/' + str(variant)})"
    for key in entry:
        if key not in _ENTRY_KEYS:
            raise CatalogueError(f"catalogue {here}: unknown key {key!r}")
    choices = {}
    for key, allowed in _CHOICES.items():
        value = entry.get(key, _DEFAULTS.get(key))
        if value not in allowed:
            named = ", ".join(str(a) for a in allowed if a is not None)
            raise CatalogueError(f"catalogue {here}: {key} is {value!r}", f"use one of: {named}")
        choices[key] = value
    hooks = tuple(as_names(entry.get("hooks") or [], f"{here} hooks"))
    for hook in hooks:
        check_hook(hook, here)
    optional = tuple(_optional(item, here) for item in entry.get("optional") or [])
    survives = _survives(entry.get("survives"), here, lifecycle=disruption in LIFECYCLE)
    sources = tuple(read_sources(entry.get("sources"), here, refs))
    bug_ids = as_names(entry.get("known_bugs") or [], f"{here} known_bugs")
    linked: list[KnownBug] = []
    for bug_id in bug_ids:
        claims = [bug for bug in bugs if bug.id == bug_id and bug.disruption == disruption]
        if not claims:
            raise CatalogueError(
                f"catalogue {here}: known bug {bug_id} has no claim for {disruption}",
                "add it under known_bugs[].claims",
            )
        linked.extend(claims)
    new_units = entry.get("new_units")
    signals = tuple(as_names(entry.get("signals") or [], f"{here} signals"))
    for signal in signals:
        if signal not in SIGNALS:
            raise CatalogueError(
                f"catalogue {here}: unknown signal {signal!r}", f"use {', '.join(SIGNALS)}"
            )
    base = Expectation(
        disruption=disruption,
        juju_min=SUPPORTED_FROM,
        juju_max=None,
        hooks=hooks,
        optional=optional,
        survives=survives,
        pod_uid=choices["pod_uid"],
        restart_count=choices["restart_count"],
        relation_data=choices["relation_data"],
        unit_identity=choices["unit_identity"],
        unit_order=choices["unit_order"],
        sources=sources,
        known_bugs=tuple(linked),
        notes=" ".join(str(entry.get("notes", "")).split()),
        variant=None if variant is None else str(variant),
        confidence=choices["confidence"],
        scope=choices["scope"],
        app_relation_data=choices["app_relation_data"],
        new_units=None,  # resolved by resolve_new_units once every entry is read
        summary=" ".join(str(entry.get("summary", "")).split()),
        stop_budget_seconds=_seconds(entry.get("stop_budget_seconds"), here),
        container=cast(Any, choices["container"]),
        signals=cast(Any, signals),
        selected_by=cast(Any, choices["selected_by"]),
        pebble_state=cast(Any, choices["pebble_state"]),
        unit_name=cast(Any, choices["unit_name"]),
        charm=cast(Any, choices["charm"]),
    )
    return base, None if new_units is None else str(new_units)


def _seconds(raw: object, here: str) -> int | None:
    if raw is None:
        return None
    if not isinstance(raw, int) or isinstance(raw, bool) or raw < 0:
        raise CatalogueError(f"catalogue {here}: a time in seconds must be a whole number")
    return raw


def _ranged(
    base: Expectation,
    item: Mapping[str, Any],
    here: str,
    refs: Mapping[str, str],
) -> Expectation:
    allowed = {"juju_min", "juju_max", "termination_grace_seconds", "notes", "sources"}
    allowed |= _RANGE_OVERRIDES
    for key in item:
        if key not in allowed:
            raise CatalogueError(f"catalogue {here}: unknown range key {key!r}")
    low, high = read_bounds(item, here)
    if high is not None and JujuVersion.parse(high) <= JujuVersion.parse(low):
        raise CatalogueError(f"catalogue {here}: range {low} to {high} is empty")
    grace = _seconds(item.get("termination_grace_seconds"), here)
    notes = " ".join(f"{base.notes} {item.get('notes', '')}".split())
    extra = tuple(read_sources(item.get("sources") or [], here, refs, required=False))
    return replace(
        base,
        juju_min=low,
        juju_max=high,
        termination_grace_seconds=grace,
        notes=notes,
        sources=base.sources + extra,
    )


def resolve_new_units(
    read: list[tuple[Expectation, str | None]], where: str
) -> Iterable[Expectation]:
    """Replace each entry's ``new_units`` name by the lifecycle entry covering its range."""
    entries = [entry for entry, _ in read]
    for entry, name in read:
        if name is None:
            yield entry
            continue
        low = JujuVersion.parse(entry.juju_min)
        targets = [
            other
            for other in entries
            if other.disruption == name
            and other.variant is None
            and other.covers(low)
            and (
                other.juju_max is None
                or (
                    entry.juju_max is not None
                    and JujuVersion.parse(entry.juju_max) <= JujuVersion.parse(other.juju_max)
                )
            )
        ]
        if name not in LIFECYCLE or not targets:
            raise CatalogueError(
                f"catalogue {where}: {entry.label} new_units {name!r} matches no "
                "lifecycle entry covering its range",
                "use deploy",
            )
        yield replace(entry, new_units=targets[0])


def _optional(raw: object, here: str) -> OptionalHook:
    item = as_mapping(raw, f"{here} optional")
    hook = required_text(item, "hook", f"{here} optional")
    check_hook(hook, here)
    placed = OptionalHook(
        hook=hook,
        where=str(item.get("where", "anywhere")),
        when=str(item.get("when", "always")),
        required=bool(item.get("required", False)),
    )
    extra = set(item) - {"hook", "where", "when", "required"}
    if extra:
        raise CatalogueError(f"catalogue {here}: optional {hook} has unknown keys {sorted(extra)}")
    if placed.when not in ("always", "leader", "non-leader"):
        raise CatalogueError(f"catalogue {here}: {hook} when must be always, leader or non-leader")
    try:
        placed.constraints()
    except ValueError as err:
        raise CatalogueError(f"catalogue {here}: {hook}: {err}") from None
    return placed


def _survives(raw: object, here: str, *, lifecycle: bool) -> dict[Layer, bool]:
    survives = as_mapping(raw if raw is not None else {}, f"{here} survives")
    out: dict[Layer, bool] = {}
    for layer in LAYERS:
        if layer in survives:
            value = survives[layer]
            if not isinstance(value, bool):
                raise CatalogueError(f"catalogue {here}: survives.{layer} must be true or false")
            out[layer] = value
        elif not lifecycle:
            raise CatalogueError(
                f"catalogue {here}: survives has no {layer}",
                f"say whether each of {', '.join(LAYERS)} survives",
            )
    unknown = set(survives) - set(LAYERS)
    if unknown:
        raise CatalogueError(f"catalogue {here}: unknown layers {sorted(unknown)}")
    return out
