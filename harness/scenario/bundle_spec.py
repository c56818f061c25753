"""A Juju bundle file, read the way ``juju deploy`` reads it, as frozen values.

The keys follow Juju's bundle format (``BundleData``/``ApplicationSpec`` in juju/charm
``bundledata.go``): ``bundle: kubernetes``, ``applications`` with ``charm``, ``channel``,
``revision``, ``base``/``series``, ``trust``, ``scale`` or its alias ``num_units`` (not
both), ``resources``, ``options`` (the application's config), ``constraints``, ``storage``;
``relations`` as pairs of ``app:endpoint`` (or a bare app, which Juju completes from the
charms' metadata). A local charm (``charm: ./x.charm``) is relative to the bundle's folder,
as Juju resolves it.

A file of several YAML documents is a base bundle and its overlays, merged as Juju merges
them (``ReadAndMergeBundleData`` in juju's internal/charm/overlay.go): an overlay's app
merges into the base's field by field (maps key by key, a null key deleted), an empty app
is removed with its relations, relations are appended; ``offers`` and
``exposed-endpoints`` may only appear in an overlay.

Everything that makes the bundle unusable here is refused with one line before anything is
deployed: not YAML, no applications, a machine (non-Kubernetes) bundle, a relation naming an
application the bundle does not have. What Juju would ignore (keys it does not know) or do
that the harness does not (offers, expose, placement) is kept in ``notes``, which the plan
and the report print.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from harness.common.errors import HarnessError
from harness.scenario.bundle.app import app_base, is_local_charm, read_app
from harness.scenario.bundle.model import KUBERNETES, BundleSpec, app_of, bundle_error
from harness.scenario.bundle.notes import app_notes, top_notes
from harness.scenario.bundle.relations import read_relations

# Only an overlay may carry these (their ``source:"overlay-only"`` tag in juju's
# internal/charm/bundledata.go; VerifyNoOverlayFieldsPresent refuses them in a base).
_OVERLAY_ONLY = ("offers", "exposed-endpoints")


def _machine_problem(raw: Mapping[str, Any], apps: Mapping[str, Any]) -> str | None:
    kind = raw.get("bundle")
    if kind is not None and kind != KUBERNETES:
        return f"it says bundle: {kind}"
    if raw.get("machines"):
        return "it has a machines section"
    for name, spec in apps.items():
        if isinstance(spec, Mapping) and spec.get("to") and kind != KUBERNETES:
            return f"{name} is placed on machines (to: {spec.get('to')})"
    return None


def parse_bundle(
    path: Path,
    text: str,
    charms: Mapping[str, Path] | None = None,
    overlays: tuple[str, ...] = (),
) -> BundleSpec:
    """A bundle from its text; ``path`` locates local charms and names the bundle;
    ``overlays`` names the overlay files the text ends with, for ``juju deploy``.

    ``charms`` deploys some applications from another local charm (a freshly packed
    ``.charm``, or a source folder on the twin) than the one the bundle names, and every
    application the bundle gives that same charm likewise.
    """
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise bundle_error(
            path, f"not YAML{where}", "pass the YAML file `juju deploy` takes"
        ) from None
    documents = [d for d in documents if d is not None]
    if not documents:
        raise bundle_error(path, "0 YAML documents", "pass a bundle file")
    raw = _merged(path, documents)
    apps_raw = raw.get("applications", raw.get("services"))
    if not isinstance(apps_raw, Mapping) or not apps_raw:
        raise bundle_error(
            path, "no applications", "a bundle lists its applications under applications:"
        )
    machine = _machine_problem(raw, apps_raw)
    if machine:
        raise bundle_error(
            path,
            f"a machine (non-Kubernetes) bundle: {machine}",
            "the harness disrupts Kubernetes pods: use a bundle with bundle: kubernetes",
        )
    if raw.get("saas"):
        raise bundle_error(
            path, "it consumes offers (saas)", "deploy the offered apps in the bundle itself"
        )
    overrides = dict(charms or {})
    unknown = sorted(set(overrides) - {str(name) for name in apps_raw})
    if unknown:
        raise bundle_error(
            path, f"no application {unknown[0]!r}", f"applications: {', '.join(apps_raw)}"
        )
    # Apps the bundle gives the same charm file take the same stand-in charm.
    by_charm = {
        apps_raw[name].get("charm"): charm
        for name, charm in overrides.items()
        if isinstance(apps_raw[name], Mapping)
    }
    for name, spec in apps_raw.items():
        if isinstance(spec, Mapping) and spec.get("charm") in by_charm:
            overrides.setdefault(str(name), by_charm[spec["charm"]])
    default_base = app_base(path, "the bundle", _default_base(raw), None)
    apps = {
        str(name): read_app(path, str(name), spec, overrides.get(str(name)), default_base)
        for name, spec in apps_raw.items()
    }
    return BundleSpec(
        path=path,
        text=text,
        digest=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        name=str(raw["name"]) if raw.get("name") else None,
        apps=tuple(apps.values()),
        relations=read_relations(path, raw.get("relations"), apps),
        kubernetes=raw.get("bundle") == KUBERNETES,
        notes=top_notes(raw, default_base) + app_notes(apps_raw, apps),
        overlays=overlays,
    )


def _default_base(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The bundle's ``default-base``/``series`` in an app's terms, for ``app_base``."""
    return {
        k: raw[key] for k, key in (("base", "default-base"), ("series", "series")) if raw.get(key)
    }


def _merged(path: Path, documents: list[Any]) -> dict[str, Any]:
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
                raw[top] = overlay[top]  # refused below, as in a base
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


def load_bundle(
    location: Path | str,
    charms: Mapping[str, Path] | None = None,
    overlays: Sequence[Path | str] = (),
) -> BundleSpec:
    """Read a bundle file and its overlay files (``juju deploy --overlay``, applied in
    order after any overlay the file itself holds); a HarnessError (one line, exit 2) for
    anything unusable. The bundle's text is then the file and each overlay after it as a
    further YAML document, which Juju merges the same way."""
    path = Path(location)
    if path.is_dir():
        path = path / "bundle.yaml"
        if not path.is_file():
            raise HarnessError(
                f"{location} is a folder without bundle.yaml", "pass the bundle file"
            )
    text = _read(path, "bundle")
    names = []
    for overlay in overlays:
        more = _read(Path(overlay), "overlay")
        if Path(overlay).resolve().parent != path.resolve().parent:
            _check_elsewhere(Path(overlay), more)
        names.append(Path(overlay).name)
        text += ("" if text.endswith("\n") else "\n") + f"--- # overlay {names[-1]}\n{more}"
    return parse_bundle(path.resolve(), text, charms, tuple(names))


def _check_elsewhere(overlay: Path, text: str) -> None:
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


def _read(path: Path, what: str) -> str:
    if not path.exists():
        raise HarnessError(f"no such {what} file: {path}", "pass the YAML `juju deploy` takes")
    if not path.is_file():  # a FIFO or a link to /dev/zero would be read forever
        raise HarnessError(f"{path} is not a regular file", f"pass the {what}'s YAML file")
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise bundle_error(
            path, "not YAML (not UTF-8 text)", "pass the YAML `juju deploy` takes"
        ) from None
    except OSError as exc:
        raise HarnessError(
            f"cannot read {path}: {exc.strerror}", "check its permissions"
        ) from None
