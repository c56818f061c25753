"""The typed fields of the catalogue's YAML, each failing with a CatalogueError naming the place.

A mapping, a list of names, a required text, a hook name, a range's version bounds and a
list of sources (a ``ref`` into ``refs`` and the claim it backs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from harness.catalogue.hooknames import parse as parse_hook
from harness.catalogue.model import SUPPORTED_FROM, Source
from harness.catalogue.validation import CatalogueError
from harness.common.versions import JujuVersion


def as_mapping(raw: object, here: str) -> dict[str, Any]:
    """``raw`` as a mapping with text keys."""
    if not isinstance(raw, dict):
        raise CatalogueError(f"catalogue {here}: expected a mapping, got {type(raw).__name__}")
    return {str(key): value for key, value in raw.items()}


def as_names(raw: object, here: str) -> list[str]:
    """``raw`` as a list of strings (hooks, bug ids, checks, signals)."""
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise CatalogueError(f"catalogue {here}: expected a list of names")
    return list(raw)


def required_text(raw: Mapping[str, Any], key: str, here: str) -> str:
    """``raw[key]``: a text that must be there and not empty."""
    value = raw.get(key)
    if not isinstance(value, str) or not value:
        raise CatalogueError(f"catalogue {here}: {key} is missing")
    return value


def check_hook(hook: str, here: str) -> None:
    """A Juju hook's name, or a ``{container}``/``{endpoint}``/``{storage}`` template."""
    try:
        parse_hook(hook)
    except ValueError as err:
        raise CatalogueError(f"catalogue {here}: {err}") from None


def read_bounds(item: Mapping[str, Any], here: str) -> tuple[str, str | None]:
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


def read_sources(
    raw: object, here: str, refs: Mapping[str, str], *, required: bool = True
) -> list[Source]:
    """Each source's ``ref`` (or ``url``) and claim; ``required``: at least one."""
    if raw is None or raw == []:
        if required:
            raise CatalogueError(f"catalogue {here}: no source", "add a sources: item with a ref")
        return []
    if not isinstance(raw, list):
        raise CatalogueError(f"catalogue {here}: sources must be a list")
    out: list[Source] = []
    for item in _flat(raw):
        source = as_mapping(item, f"{here} source")
        ref = source.get("ref")
        url = refs.get(str(ref)) if ref is not None else source.get("url")
        if not isinstance(url, str) or not url:
            raise CatalogueError(f"catalogue {here}: source {ref!r} is not in refs")
        claim = " ".join(str(source.get("claim", "")).split())
        if not claim:
            raise CatalogueError(f"catalogue {here}: source {ref!r} states no claim")
        checks = tuple(as_names(source.get("checks") or [], f"{here} source checks"))
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
