"""Whether the live extra is installed: ``pip install 'juju-lifecycle-harness[live]'``.

The core install (the twin, the catalogue, the evidence) leaves out what only a live run
needs. A live run asked for without it stops in one line saying what to install, before
anything imports those packages; ``auto`` falls back to the twin and says why.
"""

from __future__ import annotations

import importlib.util

from harness.common.errors import EnvironmentUnavailable

# module -> the distribution that provides it (the live extra in pyproject.toml)
LIVE_MODULES = {
    "juju": "juju",
    "jubilant": "jubilant",
    "kubernetes": "kubernetes",
    "pytest_operator": "pytest-operator",
}
INSTALL = "pip install 'juju-lifecycle-harness[live]'"


def missing() -> tuple[str, ...]:
    """The live extra's distributions that are not installed."""
    return tuple(
        dist for module, dist in LIVE_MODULES.items() if importlib.util.find_spec(module) is None
    )


def require_live() -> None:
    """One line, before a live run imports anything of the live stack, when it is missing."""
    absent = missing()
    if absent:
        raise EnvironmentUnavailable(
            f"the live backend needs the harness's live extra (not installed: "
            f"{', '.join(absent)})",
            f"{INSTALL} (from a checkout: pip install '.[live]'), or pass --backend twin",
        )
