"""A local charm: whether a charm argument names one, the absolute path Juju is given, and a
copy a snap ``juju`` can read.

Both drivers deploy (and jubilant refreshes) a local charm by its absolute path. The
strictly confined ``juju`` snap (3.x, 4.x) cannot read /tmp, where pytest-operator builds a
charm (``OpsTest.build_charm``: ``ops_test.tmp_path / "charms"``, under pytest's basetemp):
jubilant copies a local charm into ``~/snap/juju/common`` first (``Juju._deploy_tempdir``,
jubilant 1.6 to 1.14), and ``for_juju`` does the same for the ``juju`` the libjuju driver
runs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path


def absolute_path(path: str) -> str:
    """``path`` made absolute against the working directory.

    Pure string work (no filesystem access): libjuju wants an absolute local path, and
    jubilant reads a charm as a local file only when it starts with "/" or ".".
    """
    return os.path.normpath(os.path.join(os.getcwd(), path))


def is_local_charm(charm: str) -> bool:
    return charm.endswith(".charm") or charm.startswith((".", "/")) or os.path.exists(charm)


def is_snap(binary: str) -> bool:
    """Whether ``binary`` is the juju snap, as jubilant tells (``/snap/`` on its path)."""
    return "/snap/" in (shutil.which(binary) or binary)


@contextlib.contextmanager
def for_juju(
    binary: str, path: str | None, resources: Mapping[str, str] | None = None
) -> Iterator[tuple[str | None, dict[str, str]]]:
    """``path`` and ``resources`` as the ``juju`` at ``binary`` can read them.

    A snap ``juju`` gets a copy of the local charm and of each resource that is a local file
    (an image reference is left as it is) in a folder under ``~/snap/juju/common``, removed
    once the block ends; any other ``juju`` gets them as they are.
    """
    given = dict(resources or {})
    files = {name: value for name, value in given.items() if os.path.isfile(value)}
    if not is_snap(binary) or (path is None and not files):
        yield path, given
        return
    common = Path.home() / "snap" / "juju" / "common"
    common.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=common, prefix="repro-") as folder:
        copied: str | None = None
        if path is not None:
            target = Path(folder) / Path(path).name
            if os.path.isdir(path):
                shutil.copytree(path, target)
            else:
                shutil.copy(path, target)
            copied = str(target)
        for name, value in files.items():
            target = Path(folder) / f"{name}{Path(value).suffix}"
            shutil.copy(value, target)
            given[name] = str(target)
        yield copied, given
