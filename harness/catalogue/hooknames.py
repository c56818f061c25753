"""Juju hook names, and the templates the catalogue writes them with.

A template names a family of hooks by one variable: ``{container}-pebble-ready``,
``{endpoint}-relation-changed``, ``{storage}-storage-attached``. Given the charm's names it
expands to concrete hooks; without them it matches any observed hook of that family, so a
verdict still works when the caller does not know the charm's metadata.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Hooks whose names do not depend on the charm (Juju docs, "Hook" reference, list of hooks).
PLAIN_HOOKS: frozenset[str] = frozenset(
    {
        "install",
        "start",
        "stop",
        "remove",
        "config-changed",
        "upgrade-charm",
        "update-status",
        "leader-elected",
        "leader-settings-changed",
        "leader-deposed",
        "collect-metrics",
        "meter-status-changed",
        "pre-series-upgrade",
        "post-series-upgrade",
        "secret-changed",
        "secret-expired",
        "secret-remove",
        "secret-rotate",
    }
)

# Hook families: the variable a family's prefix names, and the suffixes Juju appends.
FAMILIES: Mapping[str, tuple[str, ...]] = {
    "endpoint": (
        "-relation-created",
        "-relation-joined",
        "-relation-changed",
        "-relation-departed",
        "-relation-broken",
    ),
    "storage": ("-storage-attached", "-storage-detaching"),
    "container": (
        "-pebble-ready",
        "-pebble-custom-notice",
        "-pebble-check-failed",
        "-pebble-check-recovered",
    ),
}

VARIABLES: tuple[str, ...] = tuple(FAMILIES)

_TEMPLATE = re.compile(r"^\{(?P<var>[a-z]+)\}(?P<suffix>-[a-z-]+)$")

# What the template variables stand for, for one unit: variable -> the charm's names.
# A variable that is absent means "unknown": its templates match any name.
Names = Mapping[str, Sequence[str]]


@dataclass(frozen=True)
class HookName:
    """A concrete hook name or a template, parsed."""

    text: str
    variable: str | None = None  # "container", "endpoint", "storage" for a template
    suffix: str = ""  # "-pebble-ready" for "{container}-pebble-ready"

    @property
    def is_template(self) -> bool:
        return self.variable is not None

    def expand(self, names: Names) -> tuple[str, ...]:
        """Concrete names for the given charm names; the template itself when unknown."""
        if self.variable is None:
            return (self.text,)
        if self.variable not in names:
            return (self.text,)
        return tuple(f"{name}{self.suffix}" for name in names[self.variable])

    def match(self, observed: str, names: Names) -> str | None:
        """The variable's value if ``observed`` is one of these hooks, else None.

        A plain name matches itself (value ``""``). A template matches any hook of its
        family whose prefix is one of the known names, or any prefix when none are known.
        """
        if self.variable is None:
            return "" if observed == self.text else None
        if not observed.endswith(self.suffix):
            return None
        value = observed[: -len(self.suffix)]
        if not value:
            return None
        known = names.get(self.variable)
        if known is not None and value not in known:
            return None
        return value


def parse(text: str) -> HookName:
    """Parse a hook name or template; ValueError names what is wrong."""
    if text in PLAIN_HOOKS:
        return HookName(text)
    match = _TEMPLATE.match(text)
    if match:
        variable, suffix = match.group("var"), match.group("suffix")
        if variable not in FAMILIES:
            raise ValueError(f"unknown template variable {{{variable}}} in {text!r}")
        if suffix not in FAMILIES[variable]:
            raise ValueError(f"{text!r} is not a Juju hook ({{{variable}}} takes {suffix!r}?)")
        return HookName(text, variable, suffix)
    raise ValueError(
        f"{text!r} is not a Juju hook name or a {{container}}/{{endpoint}}/{{storage}} template"
    )


def is_valid(text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True
