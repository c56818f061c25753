"""python-libjuju's own ways, as the libjuju driver needs them.

Which libjuju is installed, whether a ``Model`` or ``Controller`` connection can really make
calls, the controller link pytest-operator tears down with, and a model config value as text.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any, Protocol


def installed_libjuju() -> str:
    """The installed python-libjuju's version (``juju`` on PyPI)."""
    try:
        return importlib.metadata.version("juju")
    except importlib.metadata.PackageNotFoundError:
        return "0"


def libjuju_major(version: str) -> int:
    """The major of a libjuju ``version`` (0 when it does not start with one)."""
    head = version.split(".", 1)[0]
    return int(head) if head.isdigit() else 0


def connection_open(holder: Any) -> bool:
    """Whether a libjuju ``Model`` or ``Controller`` has a connection that can make calls.

    ``is_connected()`` only says a Connection object exists; after a failed reconnect it
    still does, with ``close_called`` set, and every RPC on it raises. ``Connection.is_open``
    (its Monitor's status) tells the truth.
    """
    try:
        return bool(holder.is_connected() and holder.connection().is_open)
    except Exception:  # no connection at all, or a half-torn one
        return False


class ControllerLink(Protocol):
    """A controller connection someone else tears down with (pytest-operator's)."""

    def is_open(self) -> bool: ...

    async def reconnect(self) -> None: ...

    def keeps_model(self) -> bool:
        """Whether its owner was told to keep the model (pytest-operator's ``--model`` of
        an existing model, ``--keep-models``): then nobody destroys it."""
        ...

    def forget_model(self) -> None:
        """Tell its owner the model is gone, so it does not call the dead connection."""
        ...


def config_text(value: Any) -> str:
    """libjuju's ``get_config`` gives ConfigValue objects; tolerate plain strings too."""
    return str(getattr(value, "value", value) or "")
