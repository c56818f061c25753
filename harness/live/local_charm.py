"""A local charm: whether a charm argument names one, and the absolute path Juju is given.

Both drivers deploy (and jubilant refreshes) a local charm by its absolute path.
"""

from __future__ import annotations

import os


def absolute_path(path: str) -> str:
    """``path`` made absolute against the working directory.

    Pure string work (no filesystem access): libjuju wants an absolute local path, and
    jubilant reads a charm as a local file only when it starts with "/" or ".".
    """
    return os.path.normpath(os.path.join(os.getcwd(), path))


def is_local_charm(charm: str) -> bool:
    return charm.endswith(".charm") or charm.startswith((".", "/")) or os.path.exists(charm)
