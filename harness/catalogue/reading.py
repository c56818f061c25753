"""``read(path)``: the catalogue file, section by section, into a validated Catalogue.

The top-level sections (``refs``, ``juju_facts``, ``background``, ``known_bugs``,
``entries``, and ``podspec`` with its own ``gone``, ``known_bugs`` and ``entries``) are read
here, each entry by ``entries`` and each field by ``fields``; the facts then split the
entries at their boundaries (``facts.apply``) and ``validation`` checks the whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import yaml

from harness.catalogue.catalogue import Catalogue
from harness.catalogue.entries import read_entry, resolve_new_units
from harness.catalogue.facts import BOOLEAN_FACTS, FACTS, Facts, Span
from harness.catalogue.facts import apply as apply_facts
from harness.catalogue.fields import (
    as_mapping,
    as_names,
    check_hook,
    read_bounds,
    read_sources,
    required_text,
)
from harness.catalogue.model import SUPPORTED_FROM, Expectation, Gone, KnownBug
from harness.catalogue.validation import CatalogueError, check_spans, validate


def read(path: Path) -> Catalogue:
    """The catalogue file at ``path``, read and validated; CatalogueError says what is wrong."""
    where = str(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise CatalogueError(f"cannot read catalogue {where}: {err.strerror}") from None
    except yaml.YAMLError as err:
        first = str(err).splitlines()[0] if str(err) else "invalid YAML"
        raise CatalogueError(f"catalogue {where} is not valid YAML: {first}") from None
    doc = as_mapping(raw, where)
    allowed = {"schema", "refs", "juju_facts", "background", "known_bugs", "entries", "podspec"}
    for key in doc:
        if key not in allowed and not str(key).startswith("_"):
            raise CatalogueError(f"catalogue {where}: unknown top-level key {key!r}")
    refs = _refs(doc.get("refs"), where)
    facts = Facts(
        spans=_facts(doc.get("juju_facts") or {}, where, refs),
        background=_background(doc.get("background") or {}, where, refs),
    )
    podspec = _podspec(doc.get("podspec"), where)
    bugs = _known_bugs(doc.get("known_bugs") or [], where)
    bugs += _known_bugs(podspec.get("known_bugs") or [], f"{where} podspec")
    entries: list[tuple[Expectation, str | None]] = []
    raw_entries = doc.get("entries")
    if not isinstance(raw_entries, list) or not raw_entries:
        raise CatalogueError(f"catalogue {where}: no entries", "add an `entries:` list")
    for index, raw_entry in enumerate(raw_entries, 1):
        entries.extend(read_entry(raw_entry, f"{where} entry {index}", refs, bugs))
    gone = _podspec_gone(podspec, where, refs)
    for index, raw_entry in enumerate(podspec.get("entries") or [], 1):
        here = f"{where} podspec entry {index}"
        item = as_mapping(raw_entry, here)
        if item.get("charm", "podspec") != "podspec":
            raise CatalogueError(f"catalogue {here}: charm must be podspec in this section")
        entries.extend(read_entry({**item, "charm": "podspec"}, here, refs, bugs))
    split = [(piece, name) for entry, name in entries for piece in apply_facts([entry], facts)]
    resolved = tuple(resolve_new_units(split, where))
    background = tuple(dict.fromkeys(str(span.value) for span in facts.background))
    disruptions = {entry.disruption for entry in resolved if entry.charm == "podspec"}
    catalogue = Catalogue(
        resolved,
        bugs,
        background,
        where,
        facts.boundaries(),
        gone={name: gone for name in sorted(disruptions) if gone is not None},
    )
    validate(catalogue, where)
    return catalogue


def _podspec(raw: object, where: str) -> dict[str, Any]:
    """The ``podspec`` section: ``gone``, ``known_bugs`` and ``entries`` of podspec charms."""
    if raw is None:
        return {}
    section = as_mapping(raw, f"{where} podspec")
    extra = set(section) - {"gone", "known_bugs", "entries"}
    if extra:
        raise CatalogueError(f"catalogue {where} podspec: unknown keys {sorted(extra)}")
    if section.get("entries") and section.get("gone") is None:
        raise CatalogueError(
            f"catalogue {where} podspec: no gone", "say from which Juju podspec charms are gone"
        )
    return section


def _podspec_gone(section: Mapping[str, Any], where: str, refs: Mapping[str, str]) -> Gone | None:
    """The section's ``gone``: from which Juju podspec charms are gone, with sources."""
    raw = section.get("gone")
    if raw is None:
        return None
    here = f"{where} podspec gone"
    item = as_mapping(raw, here)
    extra = set(item) - {"juju_min", "claim", "sources"}
    if extra:
        raise CatalogueError(f"catalogue {here}: unknown keys {sorted(extra)}")
    low, _ = read_bounds(item, here)
    claim = " ".join(str(item.get("claim", "")).split())
    if not claim:
        raise CatalogueError(f"catalogue {here}: no claim", "say what is gone")
    return Gone(low, claim, tuple(read_sources(item.get("sources"), here, refs)))


def _facts(raw: object, where: str, refs: Mapping[str, str]) -> dict[str, tuple[Span, ...]]:
    facts = as_mapping(raw, f"{where} juju_facts")
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
        check_spans(spans, f"{where} fact {name}")
        out[name] = tuple(spans)
    return out


def _background(raw: object, where: str, refs: Mapping[str, str]) -> tuple[Span, ...]:
    """Background hooks: a name (every version) or ``{hook, juju_min, ..., ref, claim}``."""
    doc = as_mapping(raw, f"{where} background")
    items = doc.get("hooks") or []
    if not isinstance(items, list):
        raise CatalogueError(f"catalogue {where}: background hooks must be a list")
    spans: list[Span] = []
    for item in items:
        if isinstance(item, str):
            check_hook(item, f"{where} background")
            spans.append(Span(SUPPORTED_FROM, None, item))
            continue
        span = _span(item, f"{where} background", refs, "hook")
        check_hook(str(span.value), f"{where} background")
        spans.append(span)
    return tuple(spans)


def _span(raw: object, here: str, refs: Mapping[str, str], key: str) -> Span:
    item = as_mapping(raw, here)
    extra = set(item) - {"juju_min", "juju_max", key, "ref", "claim", "confidence", "unverified"}
    if extra:
        raise CatalogueError(f"catalogue {here}: unknown keys {sorted(extra)}")
    if key not in item:
        raise CatalogueError(f"catalogue {here}: a range has no {key}")
    low, high = read_bounds(item, here)
    source = None
    if item.get("ref") is not None or item.get("claim"):
        (source,) = read_sources([item], here, refs)
        source = replace(source, checks=("timing",) if key == "value" else ("hooks",))
    elif key == "value":
        raise CatalogueError(f"catalogue {here} from {low}: no source", "add ref: and claim:")
    return Span(low, high, item[key], source)


def _refs(raw: object, where: str) -> dict[str, str]:
    refs: dict[str, str] = {}
    for name, value in as_mapping(raw or {}, f"{where} refs").items():
        ref = as_mapping(value, f"{where} ref {name}")
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
        bug = as_mapping(item, f"{where} known bug")
        ident = required_text(bug, "id", f"{where} known bug")
        here = f"{where} known bug {ident}"
        url = required_text(bug, "url", here)
        kind = bug.get("kind", "hooks")
        if kind not in ("hooks", "relation-data"):
            raise CatalogueError(f"catalogue {here}: kind must be hooks or relation-data")
        fixed = bug.get("fixed_in")
        claims = as_mapping(bug.get("claims"), f"{here} claims")
        if not claims:
            raise CatalogueError(
                f"catalogue {here}: no claims", "name the disruptions it concerns"
            )
        for disruption, claim_raw in claims.items():
            claim = as_mapping(claim_raw, f"{here} claim {disruption}")
            asked = tuple(as_names(claim.get("reporter_expected"), f"{here} reporter_expected"))
            does = tuple(as_names(claim.get("juju_does"), f"{here} juju_does"))
            if kind == "hooks":
                for hook in (*asked, *does):
                    check_hook(hook, here)
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
