"""The notes on a bundle that the plan and the report print, one line each.

What Juju would ignore (keys it does not know), do that the harness does not (offers,
expose, placement), or read differently from one version to the next (series, services).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.scenario.bundle.model import BundleApp

# An application's keys `juju deploy` knows; any other is noted as ignored.
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
# What `juju deploy` does with these keys and the harness, deploying app by app, does not.
_NOT_APPLIED = {
    "offers": "makes no offers",
    "expose": "exposes nothing",
    "exposed-endpoints": "exposes nothing",
    "to": "places no pods (node selectors)",
    "placement": "places no pods (node selectors)",
    "devices": "requests no devices",
    "bindings": "binds no endpoints to spaces",
}


def top_notes(raw: Mapping[str, Any], default_base: str | None) -> tuple[str, ...]:
    """What the bundle's top-level keys mean on one Juju and not another."""
    notes = []
    if "services" in raw:
        # juju/charm's legacyBundleData read it (2.x); internal/charm/bundledata.go at
        # 4.0-beta5 has no such key.
        notes.append("services: the old name of applications; Juju 4.0 reads only applications")
    if raw.get("series") and not raw.get("default-base"):
        notes.append(
            f"series {raw['series']}: apps without a base of their own deployed with --base "
            f"{default_base}, as Juju 3.6 does (Juju 4.0 has no series key: write default-base:)"
        )
    return tuple(notes)


def app_notes(apps_raw: Mapping[str, Any], apps: Mapping[str, BundleApp]) -> tuple[str, ...]:
    """What Juju ignores, or does and the harness does not, in the apps' own keys."""
    notes = []
    ignored: dict[str, list[str]] = {}
    for name, spec in apps_raw.items():
        for key in sorted(set(spec) - _APP_KEYS):
            ignored.setdefault(str(key), []).append(str(name))
    for key, names in ignored.items():
        # cmd/juju/application/deployer/bundle.go: "These fields ... will be ignored
        # during deployment" (printed on --dry-run only); the strict decode in
        # internal/charm/bundledatasrc.go keeps it as a warning, not an error.
        notes.append(f"{key} (in {_few(names)}): not a bundle key; `juju deploy` ignores it")
    for name, spec in apps_raw.items():
        app = apps[str(name)]
        if app.series and not spec.get("base"):
            notes.append(
                f"{name}: series {app.series} deployed with --base {app.base}, as Juju 3.6 "
                "does (Juju 4.0 has no series key: write base:)"
            )
        for key, what in _NOT_APPLIED.items():
            if spec.get(key):
                notes.append(f"{name}: {key} not applied (the harness {what})")
    return tuple(notes)


def _few(names: list[str]) -> str:
    return (
        ", ".join(names)
        if len(names) <= 3
        else f"{', '.join(names[:3])} and {len(names) - 3} more"
    )
