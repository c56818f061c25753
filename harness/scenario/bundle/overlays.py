"""A bundle's overlays, merged into it as ``juju deploy`` merges them.

A file of several YAML documents is a base bundle and its overlays (``ReadAndMergeBundleData``
in juju's internal/charm/overlay.go): an overlay's app merges into the base's field by field
(maps key by key, a null key deleted), an empty app is removed with its relations, relations
are appended; ``offers`` and ``exposed-endpoints`` may only appear in an overlay. An overlay
file outside the bundle's folder may name no path relative to its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from harness.scenario.bundle.app import is_local_charm
from harness.scenario.bundle.model import app_of, bundle_error

# Only an overlay may carry these (their ``source:"overlay-only"`` tag in juju's
# internal/charm/bundledata.go; VerifyNoOverlayFieldsPresent refuses them in a base).
_OVERLAY_ONLY = ("offers", "exposed-endpoints")


def merge_overlays(path: Path, documents: list[Any]) -> dict[str, Any]:
    """The base document with each overlay after it applied, as ``juju deploy`` merges them
    (internal/charm/overlay.go ReadAndMergeBundleData, applyOverlay, mergeStructs)."""
    base, *overlays = documents
    if not isinstance(base, Mapping):
        raise bundle_error(
            path, "not a bundle (no mapping at the top)", "pass the YAML `juju deploy` takes"
        )
    if "applications" in base and "services" in base:
        raise bundle_error(path, "it has both applications and services", "keep applications:")
    raw = dict(base)
    key = "services" if "services" in base else "applications"
    if raw.get(key) is not None and not isinstance(raw[key], Mapping):
        return raw  # refused as having no applications
    apps: dict[Any, Any] = dict(raw.get(key) or {})
    for name, spec in apps.items():
        for only in _OVERLAY_ONLY:
            if isinstance(spec, Mapping) and spec.get(only):
                raise bundle_error(
                    path,
                    f"applications.{name}.{only} can only appear in an overlay",
                    "move it into an overlay: a YAML document after a --- line",
                )
    relations = list(raw.get("relations") or [])
    for number, overlay in enumerate(overlays, start=2):
        where = f"overlay (YAML document {number})"
        if not isinstance(overlay, Mapping):
            raise bundle_error(
                path, f"{where} is not a mapping", "give it applications: or relations:"
            )
        if "services" in overlay:
            raise bundle_error(path, f"{where} uses the old services key", "call it applications:")
        changes = overlay.get("applications") or {}
        if not isinstance(changes, Mapping):
            raise bundle_error(
                path, f"{where}: applications is not a mapping", "list apps by name"
            )
        for name, spec in changes.items():
            if not spec:  # an empty app removes it, and its relations
                apps.pop(name, None)
                relations = [r for r in relations if not _names(r, str(name))]
            elif not isinstance(spec, Mapping) or not isinstance(apps.get(name), Mapping):
                apps[name] = spec
            else:
                apps[name] = _merge_app(apps[name], spec)
        relations += list(overlay.get("relations") or [])
        for top in ("saas", "machines"):
            if overlay.get(top) is not None:
                raw[top] = overlay[top]  # refused by parse_bundle, as in a base
        if overlay.get("default-base"):
            raw["default-base"] = overlay["default-base"]
    raw[key] = apps
    if relations or "relations" in raw:
        raw["relations"] = relations
    return raw


def _merge_app(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """Scalars and lists replace; a map merges key by key, a null or empty value deleting
    its key; a null or empty map clears it."""
    merged = dict(base)
    for key, value in overlay.items():
        if value is None or value == {}:
            merged.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            inner = dict(merged[key])
            for k, v in value.items():
                if v is None or v == "":
                    inner.pop(k, None)
                else:
                    inner[k] = v
            merged[key] = inner
        else:
            merged[key] = value
    return merged


def _names(relation: Any, app: str) -> bool:
    """Whether a relation (as written) has ``app`` at either end."""
    if not isinstance(relation, list) or len(relation) != 2:
        return False  # left for the relation checks to refuse
    return any(isinstance(e, str) and app_of(e) == app for e in relation)


def check_overlay_elsewhere(overlay: Path, text: str) -> None:
    """Refuse, in an overlay outside the bundle's folder, a path Juju would resolve from the
    overlay's own folder (a relative local charm, an include): the merged text resolves
    every path from the bundle's folder."""
    try:
        documents = [d for d in yaml.safe_load_all(text) if isinstance(d, Mapping)]
    except yaml.YAMLError:
        return  # refused as not YAML when the merged text is parsed
    for document in documents:
        apps = document.get("applications")
        for name, spec in apps.items() if isinstance(apps, Mapping) else ():
            if not isinstance(spec, Mapping):
                continue
            charm = str(spec.get("charm") or "")
            options = spec.get("options")
            values = options.values() if isinstance(options, Mapping) else ()
            included = [v for v in values if str(v).startswith("include-")]
            if (charm and is_local_charm(charm) and not charm.startswith("/")) or included:
                raise bundle_error(
                    overlay,
                    f"{name} names a path relative to the overlay, outside the bundle's folder",
                    "put the overlay beside the bundle, or make the path absolute",
                )
