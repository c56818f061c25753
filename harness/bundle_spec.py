"""A Juju bundle file, read the way ``juju deploy`` reads it, as frozen values.

The keys follow Juju's bundle format (``BundleData``/``ApplicationSpec`` in juju/charm
``bundledata.go``): ``bundle: kubernetes``, ``applications`` with ``charm``, ``channel``,
``revision``, ``base``/``series``, ``trust``, ``scale`` or its alias ``num_units`` (not
both), ``resources``, ``options`` (the application's config), ``constraints``, ``storage``;
``relations`` as pairs of ``app:endpoint`` (or a bare app, which Juju completes from the
charms' metadata). A local charm (``charm: ./x.charm``) is relative to the bundle's folder,
as Juju resolves it.

Everything that makes the bundle unusable here is refused with one line before anything is
deployed: not YAML, no applications, a machine (non-Kubernetes) bundle, a relation naming an
application the bundle does not have.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.errors import HarnessError, UnknownName, choose_one_of
from harness.ports import AppSpec

KUBERNETES = "kubernetes"
_APP_KEYS = {
    "charm",
    "channel",
    "revision",
    "base",
    "series",
    "trust",
    "scale",
    "num_units",
    "resources",
    "options",
    "constraints",
    "storage",
    "annotations",
    "expose",
    "placement",
    "to",
    "devices",
    "bindings",
    "plan",
    "exposed-endpoints",
    "offers",
}


@dataclass(frozen=True)
class BundleApp:
    """One application of the bundle."""

    name: str
    charm: str  # as written in the bundle
    local_path: Path | None = None  # resolved, for a local charm
    channel: str | None = None
    revision: int | None = None
    base: str | None = None
    series: str | None = None
    trust: bool = False
    units: int = 1
    resources: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, str] = field(default_factory=dict)
    constraints: str | None = None
    storage: Mapping[str, str] = field(default_factory=dict)

    @property
    def local(self) -> bool:
        return self.local_path is not None

    def app_spec(self) -> AppSpec:
        return AppSpec(
            self.name,
            str(self.local_path) if self.local_path else self.charm,
            channel=None if self.local else self.channel,
            revision=None if self.local else self.revision,
            constraints=self.constraints,
            storage=dict(self.storage),
            trust=self.trust,
            units=self.units,
            config=dict(self.options),
            resources=dict(self.resources),
            base=self.base,
        )


@dataclass(frozen=True)
class BundleSpec:
    """A bundle file: where it is, its exact text and digest, its applications and relations."""

    path: Path
    text: str
    digest: str  # sha256 of the file's bytes
    name: str | None
    apps: tuple[BundleApp, ...]
    relations: tuple[tuple[str, str], ...]
    kubernetes: bool = True  # it says bundle: kubernetes

    @property
    def short_digest(self) -> str:
        return self.digest[:12]

    @property
    def label(self) -> str:
        """The bundle's name, else its file's (its folder's, for a plain bundle.yaml)."""
        if self.name:
            return self.name
        return self.path.parent.name if self.path.stem == "bundle" else self.path.stem

    @property
    def app_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.apps)

    @property
    def needs_trust(self) -> bool:
        return any(a.trust for a in self.apps)

    def app(self, name: str) -> BundleApp:
        for app in self.apps:
            if app.name == name:
                return app
        raise UnknownName(
            f"application {name!r} is not in bundle {self.path.name}",
            choose_one_of(name, self.app_names),
        )

    def relations_of(self, app: str) -> tuple[tuple[str, str], ...]:
        return tuple(r for r in self.relations if app in (_app_of(r[0]), _app_of(r[1])))

    def deploy_command(self) -> str:
        """``juju deploy`` of this file; a bundle with ``trust: true`` apps needs --trust."""
        return f"juju deploy ./{self.path.name}" + (" --trust" if self.needs_trust else "")


def _app_of(endpoint: str) -> str:
    return endpoint.partition(":")[0]


def _fail(path: Path, problem: str, fix: str) -> HarnessError:
    return HarnessError(f"bundle {path.name}: {problem}", fix)


def _text_map(path: Path, app: str, key: str, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _fail(path, f"{app}.{key} is not a mapping", f"write {key} as name: value lines")
    out = {}
    for k, v in value.items():
        if isinstance(v, bool):
            out[str(k)] = "true" if v else "false"
        else:
            out[str(k)] = str(v)
    return out


def _units(path: Path, name: str, raw: Mapping[str, Any]) -> int:
    if "scale" in raw and "num_units" in raw:
        # juju/charm bundledata.go normalizeData refuses both.
        raise _fail(path, f"{name} has both scale and num_units", "keep one of them")
    value = raw.get("scale", raw.get("num_units", 1))
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _fail(path, f"{name} has scale {value!r}", "give a whole number of units, 1 or more")
    return value


def _local_path(bundle: Path, charm: str) -> Path | None:
    if not (charm.startswith(("./", "../", "/")) or charm.endswith(".charm")):
        return None
    resolved = (bundle.parent / charm).resolve()
    if not resolved.exists():
        raise _fail(
            bundle,
            f"local charm {charm} not found at {resolved}",
            "local charms are relative to the bundle's folder; pack it or fix the path",
        )
    return resolved


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


def _app(path: Path, name: str, spec: Any, override: Path | None = None) -> BundleApp:
    if not isinstance(spec, Mapping):
        raise _fail(path, f"application {name} is not a mapping", "give it charm: and scale:")
    charm = spec.get("charm")
    if not charm or not isinstance(charm, str):
        raise _fail(path, f"application {name} has no charm", "add charm: NAME or ./x.charm")
    if "config" in spec:
        raise _fail(
            path, f"{name} has config:", "Juju bundles call an application's config options:"
        )
    unknown = sorted(set(spec) - _APP_KEYS)
    if unknown:
        raise _fail(
            path, f"{name} has unknown keys {', '.join(unknown)}", "see `juju deploy --help`"
        )
    revision = spec.get("revision")
    if revision is not None and (isinstance(revision, bool) or not isinstance(revision, int)):
        raise _fail(path, f"{name} has revision {revision!r}", "give a revision number")
    if revision is not None and not spec.get("channel"):
        # `juju deploy` refuses a revision without a channel for Charmhub charms.
        raise _fail(path, f"{name} has a revision but no channel", "add channel: to it")
    base, series = spec.get("base"), spec.get("series")
    return BundleApp(
        name=str(name),
        charm=charm,
        local_path=override.resolve() if override is not None else _local_path(path, charm),
        channel=str(spec["channel"]) if spec.get("channel") else None,
        revision=revision,
        base=str(base) if base else None,
        series=str(series) if series else None,
        trust=bool(spec.get("trust", False)),
        units=_units(path, str(name), spec),
        resources=_text_map(path, str(name), "resources", spec.get("resources")),
        options=_text_map(path, str(name), "options", spec.get("options")),
        constraints=str(spec["constraints"]) if spec.get("constraints") else None,
        storage=_text_map(path, str(name), "storage", spec.get("storage")),
    )


def _relations(path: Path, raw: Any, apps: Mapping[str, BundleApp]) -> tuple[tuple[str, str], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _fail(path, "relations is not a list", "write each relation as a pair [a:x, b:y]")
    pairs = []
    for item in raw:
        if not (
            isinstance(item, list) and len(item) == 2 and all(isinstance(e, str) for e in item)
        ):
            raise _fail(
                path,
                f"relation {item!r} is not a pair",
                "write it as [app:endpoint, app:endpoint]",
            )
        for endpoint in item:
            app = _app_of(endpoint)
            if app not in apps:
                raise _fail(
                    path,
                    f"relation endpoint {endpoint} names no application of the bundle",
                    f"applications: {', '.join(apps)}",
                )
        pairs.append((item[0], item[1]))
    return tuple(pairs)


def parse_bundle(path: Path, text: str, charms: Mapping[str, Path] | None = None) -> BundleSpec:
    """A bundle from its text; ``path`` locates local charms and names the bundle.

    ``charms`` deploys some applications from another local charm (a freshly packed
    ``.charm``, or a source folder on the twin) than the one the bundle names, and every
    application the bundle gives that same charm likewise.
    """
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise _fail(path, f"not YAML{where}", "pass the YAML file `juju deploy` takes") from None
    documents = [d for d in documents if d is not None]
    if len(documents) != 1:
        fix = "merge the overlays into the bundle" if documents else "pass a bundle file"
        raise _fail(path, f"{len(documents)} YAML documents", fix)
    raw = documents[0]
    if not isinstance(raw, Mapping):
        raise _fail(
            path, "not a bundle (no mapping at the top)", "pass the YAML `juju deploy` takes"
        )
    apps_raw = raw.get("applications", raw.get("services"))
    if not isinstance(apps_raw, Mapping) or not apps_raw:
        raise _fail(path, "no applications", "a bundle lists its applications under applications:")
    machine = _machine_problem(raw, apps_raw)
    if machine:
        raise _fail(
            path,
            f"a machine (non-Kubernetes) bundle: {machine}",
            "the harness disrupts Kubernetes pods: use a bundle with bundle: kubernetes",
        )
    if raw.get("saas"):
        raise _fail(
            path, "it consumes offers (saas)", "deploy the offered apps in the bundle itself"
        )
    overrides = dict(charms or {})
    unknown = sorted(set(overrides) - {str(name) for name in apps_raw})
    if unknown:
        raise _fail(path, f"no application {unknown[0]!r}", f"applications: {', '.join(apps_raw)}")
    # Apps the bundle gives the same charm file take the same stand-in charm.
    by_charm = {
        apps_raw[name].get("charm"): charm
        for name, charm in overrides.items()
        if isinstance(apps_raw[name], Mapping)
    }
    for name, spec in apps_raw.items():
        if isinstance(spec, Mapping) and spec.get("charm") in by_charm:
            overrides.setdefault(str(name), by_charm[spec["charm"]])
    apps = {
        str(name): _app(path, str(name), spec, overrides.get(str(name)))
        for name, spec in apps_raw.items()
    }
    return BundleSpec(
        path=path,
        text=text,
        digest=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        name=str(raw["name"]) if raw.get("name") else None,
        apps=tuple(apps.values()),
        relations=_relations(path, raw.get("relations"), apps),
        kubernetes=raw.get("bundle") == KUBERNETES,
    )


def load_bundle(location: Path | str, charms: Mapping[str, Path] | None = None) -> BundleSpec:
    """Read a bundle file; a HarnessError (one line, exit 2) for anything unusable."""
    path = Path(location)
    if not path.exists():
        raise HarnessError(f"no such bundle file: {location}", "pass the YAML `juju deploy` takes")
    if path.is_dir():
        path = path / "bundle.yaml"
        if not path.is_file():
            raise HarnessError(
                f"{location} is a folder without bundle.yaml", "pass the bundle file"
            )
    if not path.is_file():  # a FIFO or a link to /dev/zero would be read forever
        raise HarnessError(f"{path} is not a regular file", "pass the bundle's YAML file")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise _fail(
            path, "not YAML (not UTF-8 text)", "pass the YAML `juju deploy` takes"
        ) from None
    except OSError as exc:
        raise HarnessError(
            f"cannot read {path}: {exc.strerror}", "check its permissions"
        ) from None
    return parse_bundle(path.resolve(), text, charms)
