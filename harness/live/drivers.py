"""Which Juju driver the live backend uses: python-libjuju or jubilant.

Two drivers sit behind the same ``JujuPort``:

- ``libjuju``: python-libjuju's ``Model`` (pytest-operator's ``ops_test``) plus the ``juju``
  CLI. libjuju's major must match the controller's and its last line is 3.6, so it covers
  Juju 2.9 and 3.x.
- ``jubilant``: jubilant's ``Juju``, a typed wrapper of the ``juju`` CLI (sync, so called off
  the event loop). It covers Juju 3.x and 4.x; it needs ``juju integrate`` (3.0+).

``auto`` picks from the controller's version (``juju show-controller`` agent-version, else
the client's ``juju version``): jubilant from 4.0 on, libjuju below it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from typing import Literal

from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion

Driver = Literal["libjuju", "jubilant"]
DRIVER_CHOICES = ("auto", "libjuju", "jubilant")

# Inclusive major ranges each driver supports, for messages and the README table.
COVERS: dict[Driver, str] = {"libjuju": "2.9 and 3.x", "jubilant": "3.x and 4.x"}


def choose_driver(requested: str, juju: JujuVersion | str | None) -> Driver:
    """The driver for a controller of version ``juju`` (None: unknown), or a HarnessError.

    An explicit ``libjuju`` or ``jubilant`` is honoured unless that driver cannot talk to
    this Juju; ``auto`` never fails.
    """
    if requested not in DRIVER_CHOICES:
        raise HarnessError(
            f"unknown Juju driver {requested!r}", f"choose one of: {', '.join(DRIVER_CHOICES)}"
        )
    version = _version(juju)
    major = version.major if version is not None else None
    if requested == "auto":
        return "jubilant" if major is not None and major >= 4 else "libjuju"
    if requested == "libjuju" and major is not None and major >= 4:
        raise HarnessError(
            f"python-libjuju cannot drive Juju {version}: it covers {COVERS['libjuju']}",
            "use --juju-driver jubilant (or auto)",
        )
    if requested == "jubilant" and major is not None and major < 3:
        raise HarnessError(
            f"jubilant cannot drive Juju {version}: it covers {COVERS['jubilant']}",
            "use --juju-driver libjuju (or auto)",
        )
    return "libjuju" if requested == "libjuju" else "jubilant"


def _version(juju: JujuVersion | str | None) -> JujuVersion | None:
    if juju is None or isinstance(juju, JujuVersion):
        return juju
    try:
        return JujuVersion.parse(juju)
    except ValueError:
        return None


def _juju_output(args: Sequence[str], binary: str, timeout: float) -> str | None:
    """stdout of ``juju <args>``, or None when juju is missing, fails or hangs."""
    if shutil.which(binary) is None:
        return None
    try:
        done = subprocess.run(
            [binary, *args], capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def controller_models(
    controller: str | None = None, binary: str = "juju", timeout: float = 20.0
) -> tuple[str, ...] | None:
    """Short names of the models on ``controller`` (the current one if None), or None when
    ``juju models`` is missing, fails or hangs."""
    args = ["models", "--format", "json", *(["--controller", controller] if controller else [])]
    out = _juju_output(args, binary, timeout)
    try:
        listed = json.loads(out) if out is not None else None
    except ValueError:
        return None
    models = listed.get("models") if isinstance(listed, dict) else None
    if not isinstance(models, list):
        return None  # not the shape juju prints: unknown, not "no models"
    return tuple(
        str(model.get("short-name") or model.get("name", "")).rsplit("/", 1)[-1]
        for model in models
        if isinstance(model, dict)
    )


def client_version(binary: str = "juju", timeout: float = 20.0) -> str | None:
    """``juju version`` (client only: it needs no controller), e.g. ``4.0.1-ubuntu-amd64``."""
    out = _juju_output(["version"], binary, timeout)
    return out.strip() or None if out is not None else None


def controller_version(binary: str = "juju", timeout: float = 20.0) -> str | None:
    """The current controller's agent-version from ``juju show-controller``, if it answers."""
    out = _juju_output(["show-controller", "--format", "json"], binary, timeout)
    try:
        shown = json.loads(out or "{}")
    except ValueError:
        return None
    for details in shown.values() if isinstance(shown, dict) else ():
        agent = (details or {}).get("details", {}).get("agent-version")
        if agent:
            return str(agent)
    return None
