"""A bundle's relations: pairs of ``app:endpoint``, checked against its applications.

A bare app is kept as written: Juju completes it from the charms' metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.scenario.bundle.model import BundleApp, app_of, bundle_error

_ONE_FIX = "drop it: Juju refuses such a bundle"


def read_relations(
    path: Path, raw: Any, apps: Mapping[str, BundleApp]
) -> tuple[tuple[str, str], ...]:
    """The relations as pairs, each end naming an app of ``apps``, none twice or to itself."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise bundle_error(
            path, "relations is not a list", "write each relation as a pair [a:x, b:y]"
        )
    pairs: list[tuple[str, str]] = []
    for item in raw:
        if not (
            isinstance(item, list) and len(item) == 2 and all(isinstance(e, str) for e in item)
        ):
            raise bundle_error(
                path,
                f"relation {item!r} is not a pair",
                "write it as [app:endpoint, app:endpoint]",
            )
        for endpoint in item:
            app = app_of(endpoint)
            if app not in apps:
                raise bundle_error(
                    path,
                    f"relation endpoint {endpoint} names no application of the bundle",
                    f"applications: {', '.join(apps)}",
                )
        # internal/charm/bundledata.go verifyRelations refuses these two.
        if app_of(item[0]) == app_of(item[1]):
            raise bundle_error(
                path, f"relation {item!r} relates an application to itself", _ONE_FIX
            )
        if any({item[0], item[1]} == set(pair) for pair in pairs):
            raise bundle_error(path, f"relation {item!r} is defined more than once", _ONE_FIX)
        pairs.append((item[0], item[1]))
    return tuple(pairs)
