"""The expectation catalogue: ``load()`` reads and validates ``catalogue.yaml``.

    >>> from harness.catalogue import load
    >>> from harness.versions import JujuVersion
    >>> load().expect("pod-delete", JujuVersion.parse("3.6")).hooks
    ('stop', 'upgrade-charm', 'config-changed', 'start')

Validation happens on load, so a broken catalogue fails at once with one line naming the
entry: every entry has a source, version ranges of one disruption neither overlap nor
leave gaps from 2.9 on, hook names are Juju hooks or ``{container}``/``{endpoint}``/
``{storage}`` templates, and every disruption is one of ``harness.disrupt.NAMES`` or a
lifecycle entry (``deploy``, ``integrate``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import yaml

from harness.catalogue.hooknames import parse as parse_hook
from harness.catalogue.model import (
    LAYERS,
    Expectation,
    KnownBug,
    Layer,
    OptionalHook,
    Source,
)
from harness.errors import HarnessError, UnknownName
from harness.versions import JujuVersion

DEFAULT_PATH = Path(__file__).with_name("catalogue.yaml")
LIFECYCLE: tuple[str, ...] = ("deploy", "integrate")
SUPPORTED_FROM = "2.9"

__all__ = [
    "DEFAULT_PATH",
    "LIFECYCLE",
    "SUPPORTED_FROM",
    "Catalogue",
    "CatalogueError",
    "Expectation",
    "KnownBug",
    "Layer",
    "OptionalHook",
    "Source",
    "load",
]


class CatalogueError(HarnessError):
    """The catalogue file is malformed or breaks a rule; says which entry and why."""


@dataclass(frozen=True)
class Catalogue:
    """Every expectation, per disruption (and variant) and Juju version range."""

    entries: tuple[Expectation, ...]
    known_bugs: tuple[KnownBug, ...]
    background: tuple[str, ...]
    path: str

    def disruptions(self) -> tuple[str, ...]:
        """Disruption names in catalogue order (lifecycle entries included)."""
        seen: list[str] = []
        for entry in self.entries:
            if entry.disruption not in seen:
                seen.append(entry.disruption)
        return tuple(seen)

    def variants(self, disruption: str) -> tuple[str | None, ...]:
        """The variants of one disruption; ``None`` is the default one."""
        seen: list[str | None] = []
        for entry in self.entries:
            if entry.disruption == disruption and entry.variant not in seen:
                seen.append(entry.variant)
        return tuple(seen)

    def expect(
        self, disruption: str, juju: JujuVersion | str, *, variant: str | None = None
    ) -> Expectation:
        """The expectation for a disruption on a Juju version; UnknownName if none."""
        if disruption not in self.disruptions():
            raise UnknownName(
                f"unknown disruption {disruption!r}",
                f"choose one of: {', '.join(self.disruptions())}",
            )
        if variant not in self.variants(disruption):
            named = ", ".join(v for v in self.variants(disruption) if v is not None)
            raise UnknownName(
                f"{disruption} has no variant {variant!r}",
                f"leave it out or choose one of: {named}" if named else "leave it out",
            )
        version = _version(juju)
        for entry in self.entries:
            same = entry.disruption == disruption and entry.variant == variant
            if same and entry.covers(version):
                return entry
        raise UnknownName(
            f"no catalogue entry for {disruption} on Juju {juju}",
            f"the catalogue covers Juju {SUPPORTED_FROM} and later",
        )

    def bugs(self, bug_id: str) -> tuple[KnownBug, ...]:
        """Every claim of one known bug (one per disruption it was filed against)."""
        return tuple(bug for bug in self.known_bugs if bug.id == bug_id)


def load(path: str | Path | None = None) -> Catalogue:
    """Read and validate a catalogue; the packaged one (cached) when ``path`` is None."""
    if path is None:
        return _load_default()
    return _load(Path(path))


@lru_cache(maxsize=1)
def _load_default() -> Catalogue:
    return _load(DEFAULT_PATH)


def _version(juju: JujuVersion | str) -> JujuVersion:
    if isinstance(juju, JujuVersion):
        return juju
    try:
        return JujuVersion.parse(juju)
    except ValueError as err:
        raise UnknownName(str(err), "give a version such as 3.6 or 2.9.43") from None


# ------------------------------------------------------------------------------ parsing


def _load(path: Path) -> Catalogue:
    where = str(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise CatalogueError(f"cannot read catalogue {where}: {err.strerror}") from None
    except yaml.YAMLError as err:
        first = str(err).splitlines()[0] if str(err) else "invalid YAML"
        raise CatalogueError(f"catalogue {where} is not valid YAML: {first}") from None
    doc = _mapping(raw, where)
    allowed = {"schema", "refs", "background", "known_bugs", "entries"}
    for key in doc:
        if key not in allowed and not str(key).startswith("_"):
            raise CatalogueError(f"catalogue {where}: unknown top-level key {key!r}")
    refs = _refs(doc.get("refs"), where)
    background_raw = _mapping(doc.get("background") or {}, f"{where} background")
    background = tuple(_strings(background_raw.get("hooks") or [], f"{where} background"))
    for hook in background:
        _check_hook(hook, f"{where} background")
    bugs = _known_bugs(doc.get("known_bugs") or [], where)
    entries: list[tuple[Expectation, str | None]] = []
    raw_entries = doc.get("entries")
    if not isinstance(raw_entries, list) or not raw_entries:
        raise CatalogueError(f"catalogue {where}: no entries", "add an `entries:` list")
    for index, raw_entry in enumerate(raw_entries, 1):
        entries.extend(_entry(raw_entry, f"{where} entry {index}", refs, bugs, background))
    resolved = tuple(_resolve_new_units(entries, where))
    catalogue = Catalogue(resolved, bugs, background, where)
    _validate(catalogue, where)
    return catalogue


def _refs(raw: object, where: str) -> dict[str, str]:
    refs: dict[str, str] = {}
    for name, value in _mapping(raw or {}, f"{where} refs").items():
        ref = _mapping(value, f"{where} ref {name}")
        url = ref.get("url")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise CatalogueError(f"catalogue {where}: ref {name} has no http(s) url")
        refs[str(name)] = url
    return refs


def _known_bugs(raw: object, where: str) -> tuple[KnownBug, ...]:
    if not isinstance(raw, list):
        raise CatalogueError(f"catalogue {where}: known_bugs must be a list")
    bugs: list[KnownBug] = []
    for item in raw:
        bug = _mapping(item, f"{where} known bug")
        ident = _text(bug, "id", f"{where} known bug")
        here = f"{where} known bug {ident}"
        url = _text(bug, "url", here)
        kind = bug.get("kind", "hooks")
        if kind not in ("hooks", "relation-data"):
            raise CatalogueError(f"catalogue {here}: kind must be hooks or relation-data")
        fixed = bug.get("fixed_in")
        claims = _mapping(bug.get("claims"), f"{here} claims")
        if not claims:
            raise CatalogueError(
                f"catalogue {here}: no claims", "name the disruptions it concerns"
            )
        for disruption, claim_raw in claims.items():
            claim = _mapping(claim_raw, f"{here} claim {disruption}")
            asked = tuple(_strings(claim.get("reporter_expected"), f"{here} reporter_expected"))
            does = tuple(_strings(claim.get("juju_does"), f"{here} juju_does"))
            if kind == "hooks":
                for hook in (*asked, *does):
                    _check_hook(hook, here)
            bugs.append(
                KnownBug(
                    id=ident,
                    url=url,
                    title=str(bug.get("title", "")),
                    reporter_expected=asked,
                    juju_does=does,
                    fixed_in=None if fixed is None else str(fixed),
                    disruption=str(disruption),
                    kind=cast(Any, kind),
                    notes=" ".join(str(bug.get("notes", "")).split()),
                )
            )
    return tuple(bugs)


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
}

_CHOICES: Mapping[str, tuple[str, ...]] = {
    "pod_uid": ("new", "same"),
    "restart_count": ("increments", "resets", "unchanged"),
    "relation_data": ("kept", "lost"),
    "app_relation_data": ("kept", "lost"),
    "unit_identity": ("kept", "new"),
    "unit_order": ("one", "highest-ordinal-first", "all-at-once"),
    "confidence": ("high", "medium", "low"),
    "scope": ("pod", "container"),
}


def _entry(
    raw: object,
    where: str,
    refs: Mapping[str, str],
    bugs: Sequence[KnownBug],
    background: tuple[str, ...],
) -> list[tuple[Expectation, str | None]]:
    """One expectation per range, each with the name of its ``new_units`` entry."""
    entry = _mapping(raw, where)
    disruption = _text(entry, "disruption", where)
    variant = entry.get("variant")
    here = f"{where} ({disruption}{'' if variant is None else '/' + str(variant)})"
    for key in entry:
        if key not in _ENTRY_KEYS:
            raise CatalogueError(f"catalogue {here}: unknown key {key!r}")
    choices = {}
    for key, allowed in _CHOICES.items():
        default = {"app_relation_data": "kept", "confidence": "medium", "scope": "pod"}.get(key)
        value = entry.get(key, default)
        if value not in allowed:
            raise CatalogueError(
                f"catalogue {here}: {key} is {value!r}", f"use one of: {', '.join(allowed)}"
            )
        choices[key] = value
    hooks = tuple(_strings(entry.get("hooks") or [], f"{here} hooks"))
    for hook in hooks:
        _check_hook(hook, here)
    optional = tuple(_optional(item, here) for item in entry.get("optional") or [])
    survives = _survives(entry.get("survives"), here, lifecycle=disruption in LIFECYCLE)
    sources = tuple(_sources(entry.get("sources"), here, refs))
    bug_ids = _strings(entry.get("known_bugs") or [], f"{here} known_bugs")
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
        background=background,
        scope=choices["scope"],
        app_relation_data=choices["app_relation_data"],
        new_units=None,  # resolved by _resolve_new_units once every entry is read
        summary=" ".join(str(entry.get("summary", "")).split()),
    )
    ranges = entry.get("ranges")
    if not isinstance(ranges, list) or not ranges:
        raise CatalogueError(f"catalogue {here}: no ranges", "add ranges: [{juju_min: '2.9'}]")
    name = None if new_units is None else str(new_units)
    return [(_ranged(base, _mapping(i, f"{here} range"), here, refs), name) for i in ranges]


def _ranged(
    base: Expectation,
    item: Mapping[str, Any],
    here: str,
    refs: Mapping[str, str],
) -> Expectation:
    allowed = {"juju_min", "juju_max", "termination_grace_seconds", "notes", "sources"}
    for key in item:
        if key not in allowed:
            raise CatalogueError(f"catalogue {here}: unknown range key {key!r}")
    low = str(item.get("juju_min", SUPPORTED_FROM))
    high_raw = item.get("juju_max")
    high = None if high_raw is None else str(high_raw)
    for bound in (low, high):
        if bound is not None:
            try:
                JujuVersion.parse(bound)
            except ValueError as err:
                raise CatalogueError(f"catalogue {here}: {err}") from None
    if high is not None and JujuVersion.parse(high) <= JujuVersion.parse(low):
        raise CatalogueError(f"catalogue {here}: range {low} to {high} is empty")
    grace = item.get("termination_grace_seconds")
    if grace is not None and not isinstance(grace, int):
        raise CatalogueError(f"catalogue {here}: termination_grace_seconds must be a number")
    notes = " ".join(f"{base.notes} {item.get('notes', '')}".split())
    extra = tuple(_sources(item.get("sources") or [], here, refs, required=False))
    return replace(
        base,
        juju_min=low,
        juju_max=high,
        termination_grace_seconds=grace,
        notes=notes,
        sources=base.sources + extra,
    )


def _resolve_new_units(
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
    item = _mapping(raw, f"{here} optional")
    hook = _text(item, "hook", f"{here} optional")
    _check_hook(hook, here)
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
    survives = _mapping(raw if raw is not None else {}, f"{here} survives")
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


def _sources(
    raw: object, here: str, refs: Mapping[str, str], *, required: bool = True
) -> list[Source]:
    if raw is None or raw == []:
        if required:
            raise CatalogueError(f"catalogue {here}: no source", "add a sources: item with a ref")
        return []
    if not isinstance(raw, list):
        raise CatalogueError(f"catalogue {here}: sources must be a list")
    out: list[Source] = []
    for item in raw:
        source = _mapping(item, f"{here} source")
        ref = source.get("ref")
        url = refs.get(str(ref)) if ref is not None else source.get("url")
        if not isinstance(url, str) or not url:
            raise CatalogueError(f"catalogue {here}: source {ref!r} is not in refs")
        claim = " ".join(str(source.get("claim", "")).split())
        if not claim:
            raise CatalogueError(f"catalogue {here}: source {ref!r} states no claim")
        checks = tuple(_strings(source.get("checks") or [], f"{here} source checks"))
        out.append(Source(claim=claim, url=url, checks=checks))
    return out


def _check_hook(hook: str, here: str) -> None:
    try:
        parse_hook(hook)
    except ValueError as err:
        raise CatalogueError(f"catalogue {here}: {err}") from None


def _mapping(raw: object, here: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise CatalogueError(f"catalogue {here}: expected a mapping, got {type(raw).__name__}")
    return {str(key): value for key, value in raw.items()}


def _strings(raw: object, here: str) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise CatalogueError(f"catalogue {here}: expected a list of names")
    return list(raw)


def _text(raw: Mapping[str, Any], key: str, here: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value:
        raise CatalogueError(f"catalogue {here}: {key} is missing")
    return value


# --------------------------------------------------------------------------- validation


def _validate(catalogue: Catalogue, where: str) -> None:
    # Imported here: harness.disrupt's package may import the catalogue itself.
    from harness.disrupt.base import NAMES

    names = set(NAMES) | set(LIFECYCLE)
    for entry in catalogue.entries:
        if entry.disruption not in names:
            raise CatalogueError(
                f"catalogue {where}: unknown disruption {entry.disruption!r}",
                f"use one of: {', '.join((*NAMES, *LIFECYCLE))}",
            )
    for required in (*NAMES, *LIFECYCLE):
        if required not in catalogue.disruptions():
            raise CatalogueError(f"catalogue {where}: no entry for {required}")
    for disruption in catalogue.disruptions():
        for variant in catalogue.variants(disruption):
            _check_ranges(
                [
                    e
                    for e in catalogue.entries
                    if e.disruption == disruption and e.variant == variant
                ],
                where,
            )
    for bug in catalogue.known_bugs:
        if bug.disruption not in names:
            raise CatalogueError(f"catalogue {where}: {bug.id} names unknown {bug.disruption!r}")


def _check_ranges(entries: list[Expectation], where: str) -> None:
    """Sorted by lower bound, each range must start where the previous one ended."""
    ordered = sorted(entries, key=lambda e: JujuVersion.parse(e.juju_min))
    expected_low = JujuVersion.parse(SUPPORTED_FROM)
    for index, entry in enumerate(ordered):
        low = JujuVersion.parse(entry.juju_min)
        if low != expected_low:
            problem = "overlaps the previous range" if low < expected_low else "leaves a gap"
            raise CatalogueError(
                f"catalogue {where}: {entry.label} {problem} (expected it to start at "
                f"{expected_low})",
                "make the ranges of one disruption contiguous from 2.9",
            )
        if entry.juju_max is None:
            if index != len(ordered) - 1:
                raise CatalogueError(
                    f"catalogue {where}: {entry.label} is unbounded but not the last range"
                )
            return
        expected_low = JujuVersion.parse(entry.juju_max)
    raise CatalogueError(
        f"catalogue {where}: {ordered[-1].label} ends; the last range must be unbounded",
        "set juju_max: null on the newest range",
    )
