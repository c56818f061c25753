"""Charms of a user's bundle on the twin: the real code when its source is given, else a stand-in.

- ``real_source(app, directory)``: the charm class from ``src/charm.py`` and its metadata
  (a unified ``charmcraft.yaml``, or ``metadata.yaml`` with ``config.yaml`` and
  ``actions.yaml``), run through ops.testing like the probe.
- ``stand_in_source(...)``: a generic SIMULATED stand-in for a charm whose code the twin
  does not have. It declares the charm's containers, storage and endpoints (from its
  metadata when known, else from the bundle's relations and the paths watched on it), and
  does nothing in any hook: the twin still records every hook it dispatches and keeps the
  databags on its simulated controller; the stand-in writes no file and no databag.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import ops
import yaml

from harness.common.errors import HarnessError
from harness.scenario.bundle.model import BundleSpec
from harness.scenario.charm_meta import CharmMeta
from harness.twin.charm_modules import CharmModules
from harness.twin.charms import CharmSource

STAND_IN = "SIMULATED generic stand-in"


class GenericStandIn(ops.CharmBase):
    """Runs every hook and changes nothing but its own status, which says what it is."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.collect_unit_status, self._status)

    def _status(self, event: ops.CollectStatusEvent) -> None:
        event.add_status(ops.ActiveStatus(f"{STAND_IN} for {self.meta.name}"))


def stand_in_source(app: str, bundle: BundleSpec, meta: CharmMeta) -> CharmSource:
    """A generic stand-in declaring ``meta`` (the charm's, or what the bundle implies)."""
    raw = dict(meta.raw)
    raw.pop("actions", None)  # the stand-in implements none of them
    options = dict((raw.get("config") or {}).get("options") or {})
    for key in bundle.app(app).options:
        options.setdefault(key, {"type": "string"})
    raw["config"] = {"options": options}
    return CharmSource(str(raw["name"]), GenericStandIn, raw, simulated_stand_in=True)


def _charm_meta_dict(directory: Path) -> dict[str, Any]:
    charmcraft = directory / "charmcraft.yaml"
    metadata = directory / "metadata.yaml"
    if metadata.is_file():
        raw: dict[str, Any] = yaml.safe_load(metadata.read_text()) or {}
        for key, file in (("config", "config.yaml"), ("actions", "actions.yaml")):
            if (directory / file).is_file():
                raw[key] = yaml.safe_load((directory / file).read_text()) or {}
        return raw
    if charmcraft.is_file():
        return dict(yaml.safe_load(charmcraft.read_text()) or {})
    raise HarnessError(
        f"{directory} has no metadata.yaml or charmcraft.yaml", "pass the charm's source folder"
    )


def _charm_class(module: Any, path: Path) -> type[ops.CharmBase]:
    defined = [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, ops.CharmBase)
        and value.__module__ == module.__name__
    ]
    # ops.main(X) names the class; a module may define helpers that subclass CharmBase too.
    text = path.read_text()
    named = [c for c in defined if f"main({c.__name__}" in text.replace("ops.main.main", "main")]
    chosen = named or defined
    if len(chosen) != 1:
        found = ", ".join(c.__name__ for c in defined) or "none"
        raise HarnessError(
            f"cannot tell which charm class {path} runs (found: {found})",
            "end charm.py with ops.main(YourCharm)",
        )
    return chosen[0]


def real_source(app: str, directory: Path, site: Path | None = None) -> CharmSource:
    """The charm at ``directory`` (src/charm.py and its metadata), for the twin to run;
    ``site``: the site-packages of its own dependencies (``--charm-venv``)."""
    root = directory.resolve()
    charm_py = root / "src" / "charm.py"
    if not charm_py.is_file():
        raise HarnessError(
            f"--charm-source {app}={directory}: no src/charm.py there",
            "pass the charm's source folder (the one with src/charm.py)",
        )
    raw = _charm_meta_dict(root)
    # charm.py imports its siblings and charm libs: src/ then lib/, as under Juju; kept
    # apart from every other charm's modules (``harness.twin.charm_modules``).
    modules = CharmModules((root / "src", root / "lib"), () if site is None else (site,))
    name = f"harness_twin_charm_{app.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(name, charm_py)
    if spec is None or spec.loader is None:
        raise HarnessError(f"cannot load {charm_py}", "check the charm's source")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with modules.active():
            spec.loader.exec_module(module)
    except ImportError as exc:
        raise HarnessError(
            f"{app}'s charm cannot import {exc.name or exc}"
            + (f" from its venv {site} ({exc})" if site else ""),
            f"install the charm's dependencies into a virtual environment for this Python "
            f"({sys.executable}) and pass --charm-venv {app}=VENV",
        ) from exc
    return CharmSource(
        str(raw.get("name", app)),
        _charm_class(module, charm_py),
        raw,
        directory=root,
        modules=modules,
    )


def bundle_charms(
    bundle: BundleSpec,
    metas: Mapping[str, CharmMeta],
    sources: Mapping[str, Path],
    charm_refs: Mapping[str, str],
    sites: Mapping[str, Path] | None = None,
) -> tuple[dict[str, CharmSource], dict[str, str]]:
    """The twin's charms for the bundle (keyed as the deploy names them) and what runs each.

    ``charm_refs`` maps each app to the charm reference its AppSpec deploys; ``sites`` an
    app to the site-packages of its own dependencies.
    """
    from harness.evidence.user_bundle import REAL, STAND_IN

    charms: dict[str, CharmSource] = {}
    ran_by: dict[str, str] = {}
    for app, directory in sources.items():
        site = (sites or {}).get(app)
        charms[charm_refs[app]] = real_source(app, directory, site)
        deps = f"its dependencies from {site}" if site else "repro's own dependencies"
        ran_by[app] = f"{REAL} ({directory.resolve().name}, {deps}, SIMULATED Juju around it)"
    for app in bundle.app_names:
        ref = charm_refs[app]
        if app in ran_by:
            continue
        if ref in charms:  # the bundle gives it the same charm as an app before it
            ran_by[app] = next(ran_by[a] for a in ran_by if charm_refs[a] == ref)
            continue
        meta = metas[app]
        charms[ref] = stand_in_source(app, bundle, meta)
        ran_by[app] = f"{STAND_IN}; metadata: {meta.source}"
    return charms, {app: ran_by[app] for app in bundle.app_names}
