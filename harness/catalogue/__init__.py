"""The expectation catalogue: ``load()`` reads and validates ``catalogue.yaml``.

    >>> from harness.catalogue import load
    >>> catalogue = load()
    >>> catalogue.expect("pod-delete", "3.6").hooks
    ('stop', 'upgrade-charm', 'config-changed', 'start')
    >>> catalogue.expect("pod-delete", "3.6").required_hooks(["workload"], leader=False)[3:]
    ('start', 'leader-settings-changed', 'workload-pebble-ready')
    >>> [b.branch for b in catalogue.branches("pod-delete", "3.6")]
    ['main', 'interrupted-stop']
    >>> kill = catalogue.expect("container-restart", "3.6", container="charm", signal="KILL")
    >>> kill.variant, kill.hooks
    ('charm-kill', ('start',))
    >>> e = catalogue.expect("pod-delete", "3.0")
    >>> (e.termination_grace_seconds, e.stop_budget_seconds)
    (300, 5)

Public API (every value is a frozen dataclass):

- ``load(path=None) -> Catalogue`` (the packaged catalogue is read once and cached).
- ``Catalogue.expect(disruption, juju, *, variant=None, container=None, signal=None)``:
  the ``Expectation`` for one branch on one Juju version (``"3.6"`` or a ``JujuVersion``).
  ``variant=None`` (or ``"main"``) is the main branch. For ``container-restart``,
  ``container`` (``"charm"`` or a workload container's name) and ``signal`` (``TERM``,
  ``KILL``, ``OOM``) pick the branch. Unknown names are ``UnknownName`` errors naming
  the valid ones; a branch asked for before it exists says from which version it does.
- ``Catalogue.branches(disruption, juju)``: every branch on that version, main first.
  A branch's ``selected_by`` says which observation makes the verdict use it
  (``stop-not-completed``, ``second-roll``).
- ``Catalogue.variants(disruption)``, ``Catalogue.disruptions()``,
  ``Catalogue.boundaries()`` (every version where some entry or fact changes).
- ``Expectation``: ``hooks`` (required, in order), ``optional`` (placed hooks, some
  required, some for leaders or non-leaders only), ``required_hooks(...)`` and
  ``expected_sequence(..., leader=)`` with templates expanded, ``survives`` per layer
  (``container-root``, ``charm-dir``, ``storage``), ``relation_data`` /
  ``app_relation_data``, ``pod_uid``, ``restart_count``, ``unit_identity``,
  ``unit_name`` (``reused`` after scale-down-up), ``pebble_state``,
  ``termination_grace_seconds``, ``stop_budget_seconds``, ``background`` hooks,
  ``container``/``signals`` (container-restart), ``new_units`` (scale-down-up),
  ``sources`` (each with its claim, URL and, where low, why), ``known_bugs``.

Validation happens on load, so a broken catalogue fails at once with one line naming the
entry: every entry has a source, the main branch's version ranges of one disruption
neither overlap nor leave gaps from 2.9 on (a branch's are contiguous from where it
starts), hook names are Juju hooks or ``{container}``/``{endpoint}``/``{storage}``
templates, every disruption is one of ``harness.catalogue.names.NAMES`` or a lifecycle entry
(``deploy``, ``integrate``), and every fact of ``juju_facts`` covers 2.9 on with a source.
Facts (grace period, stop budget, ``leader-settings-changed``) and versioned background
hooks are applied by splitting each entry at their boundaries (``harness.catalogue.facts``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import yaml

from harness.catalogue.facts import BOOLEAN_FACTS, FACTS, Facts, Span
from harness.catalogue.facts import apply as apply_facts
from harness.catalogue.hooknames import parse as parse_hook
from harness.catalogue.model import (
    LAYERS,
    MAIN,
    SELECTORS,
    SIGNALS,
    Expectation,
    KnownBug,
    Layer,
    OptionalHook,
    Signal,
    Source,
)
from harness.catalogue.names import LIFECYCLE, NAMES
from harness.common.errors import HarnessError, UnknownName, unknown
from harness.common.versions import JujuVersion

DEFAULT_PATH = Path(__file__).with_name("catalogue.yaml")
# The charm container's name in every sidecar pod (the agent's container).
CHARM_CONTAINER = "charm"
SUPPORTED_FROM = "2.9"

__all__ = [
    "CHARM_CONTAINER",
    "DEFAULT_PATH",
    "LIFECYCLE",
    "MAIN",
    "SIGNALS",
    "SUPPORTED_FROM",
    "Catalogue",
    "CatalogueError",
    "Expectation",
    "KnownBug",
    "Layer",
    "OptionalHook",
    "Source",
    "load",
    "normal_signal",
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
    fact_boundaries: tuple[JujuVersion, ...] = ()

    def disruptions(self) -> tuple[str, ...]:
        """Disruption names in catalogue order (lifecycle entries included)."""
        seen: list[str] = []
        for entry in self.entries:
            if entry.disruption not in seen:
                seen.append(entry.disruption)
        return tuple(seen)

    def variants(self, disruption: str) -> tuple[str | None, ...]:
        """The variants (branches) of one disruption; ``None`` is the main branch."""
        seen: list[str | None] = []
        for entry in self.entries:
            if entry.disruption == disruption and entry.variant not in seen:
                seen.append(entry.variant)
        return tuple(seen)

    def expect(
        self,
        disruption: str,
        juju: JujuVersion | str,
        *,
        variant: str | None = None,
        container: str | None = None,
        signal: str | None = None,
    ) -> Expectation:
        """The expectation for a disruption on a Juju version; UnknownName if none.

        ``variant`` names a branch (``None`` or ``"main"``: the main branch). For
        ``container-restart``, ``container`` (``charm``, or any workload container's name)
        and ``signal`` (``TERM``, ``KILL``, ``OOM``; ``SIG`` prefix allowed) pick the
        branch instead; giving both them and a different ``variant`` is an error.
        """
        self._known(disruption)
        picked = self.variant_for(disruption, container=container, signal=signal)
        wanted = None if variant in (None, MAIN) else variant
        if picked is not None or container is not None:
            if wanted is not None and wanted != picked:
                raise UnknownName(
                    f"{disruption}: variant {variant!r} contradicts container {container!r}"
                    f" and signal {signal!r} (they give {picked or MAIN!r})",
                    "give either the variant or the container and signal",
                )
            wanted = picked
        if wanted not in self.variants(disruption):
            named = ", ".join(v for v in self.variants(disruption) if v is not None)
            raise UnknownName(
                f"{disruption} has no variant {variant!r}",
                f"leave it out or choose one of: {named}" if named else "leave it out",
            )
        version = _version(juju)
        for entry in self.entries:
            same = entry.disruption == disruption and entry.variant == wanted
            if same and entry.covers(version):
                return entry
        first = min(
            (e for e in self.entries if e.disruption == disruption and e.variant == wanted),
            key=lambda e: JujuVersion.parse(e.juju_min),
        )
        if wanted is not None:
            raise UnknownName(
                f"{disruption} has no {wanted} branch on Juju {juju}",
                f"it exists from Juju {first.juju_min}",
            )
        raise UnknownName(
            f"no catalogue entry for {disruption} on Juju {juju}",
            f"the catalogue covers Juju {SUPPORTED_FROM} and later",
        )

    def variant_for(
        self, disruption: str, *, container: str | None = None, signal: str | None = None
    ) -> str | None:
        """The variant a container-restart of ``container`` by ``signal`` is catalogued as.

        ``None`` (the main branch: a workload container) unless the charm container is
        named; its branch then depends on the signal (TERM when not given).
        """
        sig = normal_signal(signal)
        if container is None:
            if sig is not None:
                raise UnknownName(
                    f"{disruption}: a signal needs a container",
                    "give --container too (container= in Python)",
                )
            return None
        for entry in self.entries:
            if entry.disruption != disruption or entry.container is None:
                continue
            kind = "charm" if container == CHARM_CONTAINER else "workload"
            if entry.container == kind and (sig or "TERM") in entry.signals:
                return entry.variant
        by = f" and signal {signal!r}" if signal else ""
        raise UnknownName(
            f"{disruption} has no branch for container {container!r}{by}",
            "--container and --signal apply to container-restart only (container= and "
            "signal= in Python)",
        )

    def branches(self, disruption: str, juju: JujuVersion | str) -> tuple[Expectation, ...]:
        """Every branch of a disruption on one version, the main branch first."""
        self._known(disruption)
        version = _version(juju)
        found = [
            entry
            for entry in self.entries
            if entry.disruption == disruption and entry.covers(version)
        ]
        return tuple(sorted(found, key=lambda e: e.variant is not None))

    def boundaries(self) -> tuple[JujuVersion, ...]:
        """Every version where some entry or fact changes, ascending (2.9 first)."""
        found = {JujuVersion.parse(e.juju_min) for e in self.entries}
        found |= {JujuVersion.parse(e.juju_max) for e in self.entries if e.juju_max}
        return tuple(sorted(found | set(self.fact_boundaries)))

    def bugs(self, bug_id: str) -> tuple[KnownBug, ...]:
        """Every claim of one known bug (one per disruption it was filed against)."""
        return tuple(bug for bug in self.known_bugs if bug.id == bug_id)

    def _known(self, disruption: str) -> None:
        if disruption not in self.disruptions():
            raise unknown("disruption", disruption, self.disruptions())


def normal_signal(signal: str | None) -> Signal | None:
    """``SIGKILL``/``kill``/``9`` -> ``KILL``; UnknownName for a signal not catalogued."""
    if signal is None:
        return None
    text = signal.strip().upper().removeprefix("SIG")
    text = {"15": "TERM", "9": "KILL"}.get(text, text)
    if text not in SIGNALS:
        raise UnknownName(f"unknown signal {signal!r}", f"use one of: {', '.join(SIGNALS)}")
    return text  # type: ignore[return-value]  # checked against SIGNALS above


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
    allowed = {"schema", "refs", "juju_facts", "background", "known_bugs", "entries"}
    for key in doc:
        if key not in allowed and not str(key).startswith("_"):
            raise CatalogueError(f"catalogue {where}: unknown top-level key {key!r}")
    refs = _refs(doc.get("refs"), where)
    facts = Facts(
        spans=_facts(doc.get("juju_facts") or {}, where, refs),
        background=_background(doc.get("background") or {}, where, refs),
    )
    bugs = _known_bugs(doc.get("known_bugs") or [], where)
    entries: list[tuple[Expectation, str | None]] = []
    raw_entries = doc.get("entries")
    if not isinstance(raw_entries, list) or not raw_entries:
        raise CatalogueError(f"catalogue {where}: no entries", "add an `entries:` list")
    for index, raw_entry in enumerate(raw_entries, 1):
        entries.extend(_entry(raw_entry, f"{where} entry {index}", refs, bugs))
    split = [(piece, name) for entry, name in entries for piece in apply_facts([entry], facts)]
    resolved = tuple(_resolve_new_units(split, where))
    background = tuple(dict.fromkeys(str(span.value) for span in facts.background))
    catalogue = Catalogue(resolved, bugs, background, where, facts.boundaries())
    _validate(catalogue, where)
    return catalogue


def _facts(raw: object, where: str, refs: Mapping[str, str]) -> dict[str, tuple[Span, ...]]:
    facts = _mapping(raw, f"{where} juju_facts")
    out: dict[str, tuple[Span, ...]] = {}
    for name, items in facts.items():
        if name not in FACTS:
            raise CatalogueError(
                f"catalogue {where}: unknown fact {name!r}", f"use one of: {', '.join(FACTS)}"
            )
        if not isinstance(items, list) or not items:
            raise CatalogueError(f"catalogue {where}: fact {name} needs a list of ranges")
        spans = [_span(item, f"{where} fact {name}", refs, "value") for item in items]
        if name == "checked_in_source":
            # Says where claims were read, not a timing: it backs no check of its own.
            spans = [
                replace(span, source=replace(span.source, checks=())) if span.source else span
                for span in spans
            ]
        for span in spans:
            ok = (
                isinstance(span.value, bool)
                if name in BOOLEAN_FACTS
                else (isinstance(span.value, int) and not isinstance(span.value, bool))
            )
            if not ok:
                raise CatalogueError(
                    f"catalogue {where}: fact {name} from {span.juju_min} has value "
                    f"{span.value!r}",
                    f"true/false for {' and '.join(sorted(BOOLEAN_FACTS))}, whole seconds "
                    "otherwise",
                )
        _check_spans(spans, f"{where} fact {name}")
        out[name] = tuple(spans)
    return out


def _background(raw: object, where: str, refs: Mapping[str, str]) -> tuple[Span, ...]:
    """Background hooks: a name (every version) or ``{hook, juju_min, ..., ref, claim}``."""
    doc = _mapping(raw, f"{where} background")
    items = doc.get("hooks") or []
    if not isinstance(items, list):
        raise CatalogueError(f"catalogue {where}: background hooks must be a list")
    spans: list[Span] = []
    for item in items:
        if isinstance(item, str):
            _check_hook(item, f"{where} background")
            spans.append(Span(SUPPORTED_FROM, None, item))
            continue
        span = _span(item, f"{where} background", refs, "hook")
        _check_hook(str(span.value), f"{where} background")
        spans.append(span)
    return tuple(spans)


def _span(raw: object, here: str, refs: Mapping[str, str], key: str) -> Span:
    item = _mapping(raw, here)
    extra = set(item) - {"juju_min", "juju_max", key, "ref", "claim", "confidence", "unverified"}
    if extra:
        raise CatalogueError(f"catalogue {here}: unknown keys {sorted(extra)}")
    if key not in item:
        raise CatalogueError(f"catalogue {here}: a range has no {key}")
    low, high = _bounds(item, here)
    source = None
    if item.get("ref") is not None or item.get("claim"):
        (source,) = _sources([item], here, refs)
        source = replace(source, checks=("timing",) if key == "value" else ("hooks",))
    elif key == "value":
        raise CatalogueError(f"catalogue {here} from {low}: no source", "add ref: and claim:")
    return Span(low, high, item[key], source)


def _bounds(item: Mapping[str, Any], here: str) -> tuple[str, str | None]:
    """A range's ``juju_min`` (2.9 when absent) and ``juju_max``, both valid versions."""
    low = str(item.get("juju_min", SUPPORTED_FROM))
    high = None if item.get("juju_max") is None else str(item["juju_max"])
    for bound in (low, high):
        if bound is not None:
            try:
                JujuVersion.parse(bound)
            except ValueError as err:
                raise CatalogueError(f"catalogue {here}: {err}") from None
    return low, high


def _check_spans(spans: Sequence[Span], here: str) -> None:
    """A fact's ranges: contiguous from 2.9, the last one open."""
    expected = JujuVersion.parse(SUPPORTED_FROM)
    ordered = sorted(spans, key=lambda span: JujuVersion.parse(span.juju_min))
    for index, span in enumerate(ordered):
        if JujuVersion.parse(span.juju_min) != expected:
            raise CatalogueError(
                f"catalogue {here}: the range from {span.juju_min} should start at {expected}",
                "make the ranges contiguous from 2.9",
            )
        if span.juju_max is None:
            if index != len(ordered) - 1:
                raise CatalogueError(f"catalogue {here}: an open range is not the last")
            return
        expected = JujuVersion.parse(span.juju_max)
    raise CatalogueError(f"catalogue {here}: the last range must be open (no juju_max)")


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
                    quote=" ".join(str(bug.get("quote", "")).split()),
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
    "stop_budget_seconds",
    "container",
    "signals",
    "selected_by",
    "pebble_state",
    "unit_name",
}
# What one version range of an entry may say differently from the entry.
_RANGE_OVERRIDES = frozenset(
    {
        "summary",
        "hooks",
        "optional",
        "survives",
        "relation_data",
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
}
_DEFAULTS: Mapping[str, str] = {
    "app_relation_data": "kept",
    "confidence": "medium",
    "scope": "pod",
    "unit_name": "kept",
}


def _entry(
    raw: object,
    where: str,
    refs: Mapping[str, str],
    bugs: Sequence[KnownBug],
) -> list[tuple[Expectation, str | None]]:
    """One expectation per range, each with the name of its ``new_units`` entry.

    A range may override the entry's fields (``_RANGE_OVERRIDES``): the entry is read
    again with the range's values in place of its own.
    """
    entry = _mapping(raw, where)
    ranges = entry.get("ranges")
    disruption = _text(entry, "disruption", where)
    if not isinstance(ranges, list) or not ranges:
        raise CatalogueError(
            f"catalogue {where} ({disruption}): no ranges", "add ranges: [{juju_min: '2.9'}]"
        )
    out: list[tuple[Expectation, str | None]] = []
    for item in ranges:
        span = _mapping(item, f"{where} ({disruption}) range")
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
    disruption = _text(entry, "disruption", where)
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
    signals = tuple(_strings(entry.get("signals") or [], f"{here} signals"))
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
        new_units=None,  # resolved by _resolve_new_units once every entry is read
        summary=" ".join(str(entry.get("summary", "")).split()),
        stop_budget_seconds=_seconds(entry.get("stop_budget_seconds"), here),
        container=cast(Any, choices["container"]),
        signals=cast(Any, signals),
        selected_by=cast(Any, choices["selected_by"]),
        pebble_state=cast(Any, choices["pebble_state"]),
        unit_name=cast(Any, choices["unit_name"]),
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
    low, high = _bounds(item, here)
    if high is not None and JujuVersion.parse(high) <= JujuVersion.parse(low):
        raise CatalogueError(f"catalogue {here}: range {low} to {high} is empty")
    grace = _seconds(item.get("termination_grace_seconds"), here)
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
    for item in _flat(raw):
        source = _mapping(item, f"{here} source")
        ref = source.get("ref")
        url = refs.get(str(ref)) if ref is not None else source.get("url")
        if not isinstance(url, str) or not url:
            raise CatalogueError(f"catalogue {here}: source {ref!r} is not in refs")
        claim = " ".join(str(source.get("claim", "")).split())
        if not claim:
            raise CatalogueError(f"catalogue {here}: source {ref!r} states no claim")
        checks = tuple(_strings(source.get("checks") or [], f"{here} source checks"))
        confidence = source.get("confidence")
        if confidence not in (None, "high", "medium", "low"):
            raise CatalogueError(f"catalogue {here}: source confidence {confidence!r}")
        unverified = " ".join(str(source.get("unverified", "")).split())
        if confidence == "low" and not unverified:
            raise CatalogueError(
                f"catalogue {here}: a low-confidence claim says why",
                "add unverified: <the reason>",
            )
        out.append(
            Source(
                claim=claim,
                url=url,
                checks=checks,
                confidence=cast(Any, confidence),
                unverified=unverified,
            )
        )
    return out


def _flat(items: list[Any]) -> list[Any]:
    """A list whose items may be lists (YAML anchors of shared sources), flattened."""
    out: list[Any] = []
    for item in items:
        out.extend(_flat(item) if isinstance(item, list) else [item])
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
        if None not in catalogue.variants(disruption):
            raise CatalogueError(f"catalogue {where}: {disruption} has no main branch")
        for variant in catalogue.variants(disruption):
            _check_ranges(
                [
                    e
                    for e in catalogue.entries
                    if e.disruption == disruption and e.variant == variant
                ],
                where,
                from_first=variant is not None,
            )
            if variant == MAIN:
                raise CatalogueError(
                    f"catalogue {where}: {disruption} names a variant {MAIN!r}",
                    "leave variant out for the main branch",
                )
    for bug in catalogue.known_bugs:
        if bug.disruption not in names:
            raise CatalogueError(f"catalogue {where}: {bug.id} names unknown {bug.disruption!r}")


def _check_ranges(entries: list[Expectation], where: str, *, from_first: bool = False) -> None:
    """Sorted by lower bound, each range must start where the previous one ended.

    The main branch starts at 2.9; a branch (``from_first``) may start later, where the
    behaviour it describes first exists, and is contiguous from there.
    """
    ordered = sorted(entries, key=lambda e: JujuVersion.parse(e.juju_min))
    expected_low = JujuVersion.parse(SUPPORTED_FROM)
    if from_first and ordered:
        expected_low = JujuVersion.parse(ordered[0].juju_min)
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
