"""The few ``ops.testing.Context`` attributes whose names changed across ops releases.

ops 2.17 to 2.x (ops-scenario 7.0) keep the unit id and app name private (``_unit_id``,
``_app_name``); later releases make them public (``unit_id``, ``app_name``). The twin
reads and sets them through here so that both work, and reads the charm's metadata
(``_charm_spec``, public but deprecated as ``charm_spec`` in ops-scenario 8) here too.
The Juju version a Context is given goes through ``context_version``.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion

# ops.testing reads a unified charmcraft.yaml's actions and config from ops 3.7
# (ops-scenario 8.7); before, a charm given one has no actions (the probe's __init__ fails).
UNIFIED_CHARMCRAFT_FROM = (3, 7)


def ops_version() -> tuple[int, ...]:
    text = importlib.metadata.version("ops")
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


def check_unified_charmcraft(meta: Any, app: str) -> None:
    """One line, before anything runs, when ``meta`` is a whole charmcraft.yaml (actions or
    config in it) and this ops.testing cannot read those from it."""
    unified = isinstance(meta, dict) and ("actions" in meta or "config" in meta)
    if not unified or ops_version() >= UNIFIED_CHARMCRAFT_FROM:
        return
    floor = ".".join(map(str, UNIFIED_CHARMCRAFT_FROM))
    raise HarnessError(
        f"the twin cannot run {app} with ops {importlib.metadata.version('ops')}: its "
        f"charmcraft.yaml holds its actions and config, which ops.testing reads from ops "
        f"{floor}",
        f"pip install 'ops[testing]>={floor}' here (run_disruption on a Context of your own "
        "works from ops 2.17)",
    )


def context_version(version: JujuVersion | str) -> str:
    """The Juju version as ``ops.testing.Context(juju_version=...)`` takes it.

    ops-scenario's consistency checker reads it as dotted numbers only (``tuple(map(int,
    juju_version.split('.')))``, scenario/_consistency_checker.py in 8.x), so a pre-release
    (``3.2-beta3``) is given as the release it precedes (``3.2.0``): the features a charm
    is checked against are that release's, and the charm sees ``3.2.0`` as its version.
    """
    parsed = JujuVersion.parse(version) if isinstance(version, str) else version
    if parsed.prerelease:
        return f"{parsed.major}.{parsed.minor}.0"
    return str(parsed)


def unit_id(ctx: Any) -> int:
    value = getattr(ctx, "unit_id", getattr(ctx, "_unit_id", 0))
    return 0 if value is None else int(value)


def set_unit_id(ctx: Any, number: int) -> None:
    if hasattr(ctx, "unit_id"):
        ctx.unit_id = number
    else:
        ctx._unit_id = number


def _meta(ctx: Any) -> dict[str, Any]:
    # Private first: ops-scenario 8 deprecates the public name (warning on each read).
    spec = getattr(ctx, "_charm_spec", None) or getattr(ctx, "charm_spec", None)
    meta = getattr(spec, "meta", None) or {}
    return meta if isinstance(meta, dict) else {}


def charm_meta(ctx: Any) -> dict[str, Any]:
    """The charm's metadata as the Context holds it ({} when it holds none)."""
    return _meta(ctx)


def app_name(ctx: Any) -> str:
    name = getattr(ctx, "app_name", None) or getattr(ctx, "_app_name", None)
    if name:
        return str(name)
    return str(_meta(ctx).get("name", "app"))


def declared_containers(ctx: Any) -> tuple[str, ...]:
    """The workload containers the charm's metadata declares, in its order."""
    return tuple(str(name) for name in _meta(ctx).get("containers") or {})
