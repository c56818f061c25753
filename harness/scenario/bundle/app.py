"""One application of a bundle, read and checked as ``juju deploy`` reads it.

Its keys follow Juju's ``ApplicationSpec`` (juju/charm ``bundledata.go``): ``charm``,
``channel``, ``revision``, ``base``/``series``, ``trust``, ``scale`` or its alias
``num_units`` (not both), ``resources``, ``options`` (its config), ``constraints``,
``storage``. A local charm or a resource file is relative to the bundle's folder; the
base is the app's own, else its series', else the bundle's default, as Juju 3.6 computes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.scenario.bundle.includes import resolve_includes
from harness.scenario.bundle.model import BundleApp, bundle_error

# Series Juju 3.6 still maps to a base (core/base/supported.go); `kubernetes` is the
# pseudo-series of 2.x Kubernetes bundles, deployed on ubuntu@20.04
# (core/bundle/changes/handlers.go: LegacyKubernetesBase).
_SERIES_BASES = {
    "xenial": "ubuntu@16.04",
    "bionic": "ubuntu@18.04",
    "focal": "ubuntu@20.04",
    "jammy": "ubuntu@22.04",
    "kinetic": "ubuntu@22.10",
    "lunar": "ubuntu@23.04",
    "mantic": "ubuntu@23.10",
    "noble": "ubuntu@24.04",
    "kubernetes": "ubuntu@20.04",
}
# juju/names application.go ApplicationSnippet: what Juju accepts as an application name.
_APP_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]*[a-z][a-z0-9]*)*$")
_BASE = re.compile(r"^[a-z][a-z0-9-]*@[0-9][0-9.]*(/[a-z-]+)?$")


def _text_map(path: Path, app: str, key: str, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise bundle_error(
            path, f"{app}.{key} is not a mapping", f"write {key} as name: value lines"
        )
    out = {}
    for k, v in value.items():
        if v is None or isinstance(v, (Mapping, list)):
            # Deployed as "None" or a Python repr, which no charm means; Juju refuses a
            # resource that is neither a revision nor a path (bundledata.go) and an option
            # its charm's config does not type so (verifyOptions).
            what = "no value" if v is None else f"a {type(v).__name__}, not a single value"
            raise bundle_error(path, f"{app}.{key}.{k} has {what}", "give it a value or drop it")
        if isinstance(v, bool):
            out[str(k)] = "true" if v else "false"
        else:
            out[str(k)] = str(v)
    return out


def _units(path: Path, name: str, raw: Mapping[str, Any]) -> int:
    if "scale" in raw and "num_units" in raw:
        # juju/charm bundledata.go normalizeData refuses both.
        raise bundle_error(path, f"{name} has both scale and num_units", "keep one of them")
    value = raw.get("scale", raw.get("num_units", 1))
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise bundle_error(
            path, f"{name} has scale {value!r}", "give a whole number of units, 1 or more"
        )
    return value


def _local_path(bundle: Path, charm: str) -> Path | None:
    if not is_local_charm(charm):
        return None
    resolved = (bundle.parent / charm).resolve()
    if not resolved.exists():
        raise bundle_error(
            bundle,
            f"local charm {charm} not found at {resolved}",
            "local charms are relative to the bundle's folder; pack it or fix the path",
        )
    return resolved


def app_base(path: Path, name: str, spec: Mapping[str, Any], default: str | None) -> str | None:
    """The app's base as Juju 3.6 computes it: its base, its series, the bundle's default.

    (core/bundle/changes/handlers.go computeApplicationBase; a local charm without either
    keeps its own, so it gets no default.)
    """
    base, series = spec.get("base"), spec.get("series")
    if base is not None and not _BASE.match(str(base)):
        raise bundle_error(
            path, f"{name} has base {base!r}", "write it as OS@VERSION, e.g. ubuntu@22.04"
        )
    if series is not None and str(series) not in _SERIES_BASES:
        raise bundle_error(
            path, f"{name} has series {series!r}, which names no base", "give base: ubuntu@22.04"
        )
    from_series = _SERIES_BASES[str(series)] if series is not None else None
    if base is not None and from_series is not None and str(base) != from_series:
        # cmd/juju/application/bundle/bundle.go verifyMixedSeriesBasesMatch
        raise bundle_error(path, f"{name} has series {series} and base {base}", "keep only base:")
    return str(base) if base is not None else from_series or default


def read_app(
    path: Path, name: str, spec: Any, override: Path | None = None, default_base: str | None = None
) -> BundleApp:
    """The application ``name`` as the bundle at ``path`` gives it (``spec``); ``override``
    deploys it from another local charm, ``default_base`` is the bundle's."""
    if not _APP_NAME.match(name):
        raise bundle_error(
            path,
            f"{name!r} is not a Juju application name",
            "use lowercase letters, digits and single hyphens, starting with a letter",
        )
    if not isinstance(spec, Mapping):
        raise bundle_error(
            path, f"application {name} is not a mapping", "give it charm: and scale:"
        )
    charm = spec.get("charm")
    if not charm or not isinstance(charm, str):
        raise bundle_error(
            path, f"application {name} has no charm", "add charm: NAME or ./x.charm"
        )
    if charm.startswith("cs:"):
        # The charm store is gone; Juju 4.0 reads cs: as a local charm URL and refuses a
        # ~user one (internal/charm/url.go at 4.0-beta5).
        raise bundle_error(
            path,
            f"{name} has charm {charm}, a charm store URL Juju can no longer deploy",
            "use its Charmhub name (charm: NAME) with a channel:",
        )
    if "config" in spec:
        raise bundle_error(
            path, f"{name} has config:", "Juju bundles call an application's config options:"
        )
    revision = spec.get("revision")
    if revision is not None and (isinstance(revision, bool) or not isinstance(revision, int)):
        raise bundle_error(path, f"{name} has revision {revision!r}", "give a revision number")
    if revision is not None and not spec.get("channel"):
        # `juju deploy` refuses a revision without a channel for Charmhub charms.
        raise bundle_error(path, f"{name} has a revision but no channel", "add channel: to it")
    local_path = override.resolve() if override is not None else _local_path(path, charm)
    series = spec.get("series")
    return BundleApp(
        name=str(name),
        charm=charm,
        local_path=local_path,
        channel=str(spec["channel"]) if spec.get("channel") else None,
        revision=revision,
        base=app_base(path, name, spec, None if is_local_charm(charm) else default_base),
        series=str(series) if series else None,
        trust=bool(spec.get("trust", False)),
        units=_units(path, str(name), spec),
        resources=_resources(path, _text_map(path, str(name), "resources", spec.get("resources"))),
        options=resolve_includes(
            path, name, _text_map(path, name, "options", spec.get("options"))
        ),
        constraints=str(spec["constraints"]) if spec.get("constraints") else None,
        storage=_text_map(path, str(name), "storage", spec.get("storage")),
    )


def _resources(bundle: Path, resources: Mapping[str, str]) -> dict[str, str]:
    """A resource file named relative to the bundle's folder made absolute, as Juju does
    when the file is there (cmd/juju/application/deployer/bundlehandler.go makeResourceMap);
    a revision or an image reference stays as written."""
    out = {}
    for name, value in resources.items():
        there = bundle.parent / value
        out[name] = str(there.resolve()) if not value.isdigit() and there.is_file() else value
    return out


def is_local_charm(charm: str) -> bool:
    """Whether a bundle's ``charm:`` names a local charm (a path or a .charm file)."""
    return charm.startswith(("./", "../", "/")) or charm.endswith(".charm")
