"""The charm directory Juju unpacks for a unit, and the working directory of its hooks.

Juju runs every hook with its working directory and ``JUJU_CHARM_DIR`` at the unit's
charm directory (``/var/lib/juju/agents/unit-<app>-<n>/charm``), which holds the charm's
files as the charm was packed: ``src/``, ``lib/``, templates, anything the charm ships.
Charms read them relative to either (pgbouncer-k8s opens ``src/dependency.json`` in
``__init__``; the COS libs read rules and dashboards under ``charm_dir``). The directory
lives on the pod's ``charm-data`` volume: a new pod unpacks the same charm again, without
what the charm wrote there before (the catalogue's ``survives.charm-dir``).

The twin unpacks a charm from its source folder: what ``charmcraft pack`` leaves out of a
charm (version control, virtual environments, caches, tests) is left out here too.
ops.testing writes the charm's metadata files itself for each hook, from the metadata
the twin read, so those three are not copied.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

NOT_PACKED = frozenset(
    {
        ".git",
        ".github",
        ".tox",
        ".venv",
        "venv",
        "build",
        "tests",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "node_modules",
    }
)
WRITTEN_BY_OPS_TESTING = frozenset({"metadata.yaml", "config.yaml", "actions.yaml"})

# What charmcraft packs as the charm's entry point (charmcraft/const.py DISPATCH_CONTENT at
# charmcraft 4.4.0-17-g15966e95, with its default entrypoint src/charm.py). Juju runs it for
# every hook; ops reads its presence as "Juju dispatches", and without it ops before 3
# links hooks/<event> to hooks/install itself (a symlink loop on the twin's charm directory).
DISPATCH = """#!/bin/sh

JUJU_DISPATCH_PATH="${JUJU_DISPATCH_PATH:-$0}" PYTHONPATH=lib:venv \\
  exec ./src/charm.py
"""


def add_dispatch(charm_dir: Path) -> None:
    """The ``dispatch`` file of a packed charm, where the charm's folder has none."""
    dispatch = charm_dir / "dispatch"
    if not dispatch.exists():
        dispatch.write_text(DISPATCH, encoding="utf-8")
        dispatch.chmod(0o755)


def unpack(source: Path, charm_dir: Path) -> None:
    """The charm's files from its source folder into a fresh charm directory."""
    root = source.resolve()

    def ignored(folder: str, names: list[str]) -> set[str]:
        top = Path(folder).resolve() == root
        return {
            name
            for name in names
            if name in NOT_PACKED
            or name.endswith((".charm", ".pyc"))
            or (top and name in WRITTEN_BY_OPS_TESTING)
        }

    shutil.copytree(root, charm_dir, ignore=ignored, symlinks=True, dirs_exist_ok=True)


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    """A hook's working directory: the charm directory, as Juju runs hooks."""
    saved = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(saved)
