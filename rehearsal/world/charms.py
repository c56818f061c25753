"""Charms as files: the metadata of a packed ``.charm`` (a zip), and the probe packed as one.

``charmcraft pack`` cannot run here (it needs LXD or a Ubuntu host with snaps), so the
rehearsal packs the probe's source the way a ``.charm`` lays it out: ``metadata.yaml``,
``actions.yaml`` and ``config.yaml`` split from ``charmcraft.yaml`` (as charmcraft does for
a charm that declares them there), ``manifest.yaml``, ``dispatch`` and ``src/``. There is
no ``venv/``: the world runs the probe's source through the twin, never the zip.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import yaml

ACTIONS_AND_CONFIG = ("actions", "config")
DISPATCH = '#!/bin/sh\nJUJU_DISPATCH_PATH="hooks/${0##*/}" PYTHONPATH=lib:venv ./src/charm.py\n'


def charm_metadata(path: Path) -> dict[str, Any]:
    """The metadata of a packed charm (``metadata.yaml``, else ``charmcraft.yaml``) or of a
    charm's directory."""
    if path.is_dir():
        for name in ("metadata.yaml", "charmcraft.yaml"):
            if (path / name).is_file():
                return dict(yaml.safe_load((path / name).read_text()) or {})
        raise ValueError(f"{path} holds no metadata.yaml or charmcraft.yaml")
    with zipfile.ZipFile(path) as packed:
        names = packed.namelist()
        for name in ("metadata.yaml", "charmcraft.yaml"):
            if name in names:
                return dict(yaml.safe_load(packed.read(name)) or {})
    raise ValueError(f"{path} holds no metadata.yaml")


def pack(source: Path, target: Path) -> Path:
    """``source`` (a charm's folder with charmcraft.yaml and src/) as a .charm at ``target``."""
    project = dict(yaml.safe_load((source / "charmcraft.yaml").read_text()))
    metadata = {
        k: v
        for k, v in project.items()
        if k not in (*ACTIONS_AND_CONFIG, "parts", "platforms", "base", "type", "bases")
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as packed:
        packed.writestr("metadata.yaml", yaml.safe_dump(metadata, sort_keys=False))
        for key in ACTIONS_AND_CONFIG:
            if key in project:
                packed.writestr(f"{key}.yaml", yaml.safe_dump(project[key], sort_keys=False))
        packed.writestr(
            "manifest.yaml",
            yaml.safe_dump(
                {
                    "charmcraft-version": "rehearsal (not charmcraft)",
                    "bases": [{"name": "ubuntu", "channel": "22.04", "architectures": ["amd64"]}],
                }
            ),
        )
        info = zipfile.ZipInfo("dispatch")
        info.external_attr = 0o755 << 16
        packed.writestr(info, DISPATCH)
        for file in sorted((source / "src").rglob("*.py")):
            packed.write(file, str(file.relative_to(source)))
    return target
