"""Each charm's own modules, kept apart from every other charm's in the one twin process.

Juju runs each charm in its own process, with ``src/`` and ``lib/`` first on its path and
its own dependencies (the charm's venv) after them; the
twin runs every charm of a model in one Python process, so two charms' sibling modules
with the same name (``database``, ``charm``, ``literals``, ``events``, ``charms.<lib>`` at
different versions) would otherwise replace each other in ``sys.modules`` for the whole
process: discourse-k8s's ``src/database.py`` broke every hook of the probe observer.

``CharmModules.active()`` wraps everything one charm's code does (loading it, each hook):
its folders go first on ``sys.path``, modules of another charm with a name its folders
hold step aside, its own come back, and afterwards what stepped aside is put back. A
module the charm imports lazily inside a hook is found in its own folders and kept in its
table. A charm's own dependencies (``site``: the site-packages of a virtual environment
built for the Python the twin runs on, ``--charm-venv``) come after its folders and win
over repro's own installation, except for what the twin and the charm must share (ops
and ops.testing, PyYAML: ``SHARED``). Without one, modules from repro's site-packages
(ops, cosl, pydantic...) are shared, as they are one installation.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterable, Iterator
from importlib.machinery import PathFinder
from pathlib import Path
from types import ModuleType
from typing import Any

# What the twin drives the charm with: one copy for both sides, whatever the charm pins.
# Not opentelemetry: ops holds its own references to the copy it imported, and a charm's
# ops[tracing] brings an opentelemetry-sdk that needs the opentelemetry-api of its own venv
# (alertmanager-k8s: sdk 1.42 failed on repro's api 1.45 in every hook).
SHARED = frozenset({"ops", "scenario", "yaml", "websocket", "harness", "pytest", "pluggy"})


# Taken before any charm's dependency can take it away (see ``CharmModules.active``).
_STDLIB_FIND_DISTRIBUTIONS = vars(PathFinder)["find_distributions"]


def _top_level_names(folder: Path) -> set[str]:
    names = set()
    for entry in folder.iterdir():
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_dir():
            names.add(entry.name)
        elif entry.suffix == ".py":
            names.add(entry.stem)
    return names


class CharmModules:
    """The modules one charm imported from its own folders, and the switch to them."""

    def __init__(self, folders: Iterable[Path], site: Iterable[Path] = ()) -> None:
        self.folders = tuple(f.resolve() for f in (*folders, *site) if f.is_dir())
        own = {n for f in self.folders for n in _top_level_names(f)}
        self.names = frozenset(own - SHARED if site else own)
        self.modules: dict[str, ModuleType] = {}
        # Finders its modules put on sys.meta_path (the importlib_metadata backport adds
        # one when imported): theirs, there only while its code runs, like its modules.
        self.finders: list[Any] = []

    def _named(self, name: str) -> bool:
        return name.partition(".")[0] in self.names

    def _from_here(self, module: ModuleType) -> bool:
        file = getattr(module, "__file__", None)
        if not file:
            return False
        path = Path(file).resolve()
        return any(path.is_relative_to(folder) for folder in self.folders)

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """This charm's modules are the ones its imports find, until the block ends."""
        saved_path = list(sys.path)
        sys.path[:0] = [str(f) for f in self.folders]
        aside: dict[str, ModuleType] = {}
        kept: set[str] = set()  # ours, and already imported by the process before
        for name in [n for n in sys.modules if self._named(n)]:
            module = sys.modules[name]
            ours = self.modules.get(name)
            if ours is module or (ours is None and self._from_here(module)):
                kept.add(name)
                continue
            aside[name] = sys.modules.pop(name)
        sys.modules.update(self.modules)
        saved_finders = list(sys.meta_path)
        sys.meta_path.extend(self.finders)
        importlib.invalidate_caches()
        try:
            yield
        finally:
            self.finders = [f for f in sys.meta_path if f not in saved_finders]
            sys.meta_path[:] = saved_finders
            # The backport also deletes the stdlib's PathFinder.find_distributions
            # (disable_stdlib_finder): repro's own importlib.metadata needs it back.
            if "find_distributions" not in vars(PathFinder):
                PathFinder.find_distributions = _STDLIB_FIND_DISTRIBUTIONS  # type: ignore[method-assign]
            for name in [n for n in sys.modules if self._named(n)]:
                self.modules[name] = sys.modules[name]
                if name not in kept:  # the process goes on without this charm's modules
                    del sys.modules[name]
            sys.modules.update(aside)
            sys.path[:] = saved_path
