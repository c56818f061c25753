"""A bundle file read as ``juju deploy`` reads it: ``load_bundle`` and ``parse_bundle``.

``load_bundle`` reads the file and its ``--overlay`` files; ``parse_bundle`` turns their text
into a ``BundleSpec``. Everything that makes the bundle unusable here is refused with one line
before anything is deployed: not YAML, no applications, a machine (non-Kubernetes) bundle, a
relation naming an application the bundle does not have.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from harness.common.errors import HarnessError
from harness.scenario.bundle.app import app_base, read_app
from harness.scenario.bundle.model import KUBERNETES, BundleSpec, bundle_error
from harness.scenario.bundle.notes import app_notes, top_notes
from harness.scenario.bundle.overlays import check_overlay_elsewhere, merge_overlays
from harness.scenario.bundle.relations import read_relations


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
    raw = merge_overlays(path, documents)
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
            check_overlay_elsewhere(Path(overlay), more)
        names.append(Path(overlay).name)
        text += ("" if text.endswith("\n") else "\n") + f"--- # overlay {names[-1]}\n{more}"
    return parse_bundle(path.resolve(), text, charms, tuple(names))


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
