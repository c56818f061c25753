"""Juju version numbers and the versions block of the evidence."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import total_ordering

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:[.-](?:[a-z]+)?(\d+))?(?:\.(\d+))?")


@total_ordering
@dataclass(frozen=True)
class JujuVersion:
    """A Juju version such as ``3.6``, ``2.9.43`` or ``3.0-beta4``; compares numerically."""

    major: int
    minor: int
    patch: int = 0

    @classmethod
    def parse(cls, text: str) -> JujuVersion:
        match = _VERSION.match(text.strip().lstrip("v"))
        if not match:
            raise ValueError(f"not a Juju version: {text!r} (expected e.g. 3.6 or 2.9.43)")
        major, minor, patch = match.group(1), match.group(2), match.group(3)
        return cls(int(major), int(minor), int(patch) if patch else 0)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, JujuVersion):
            return NotImplemented
        return (self.major, self.minor, self.patch) < (other.major, other.minor, other.patch)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


@dataclass(frozen=True)
class CharmVersion:
    """What was deployed for one application."""

    app: str
    charm: str
    channel: str | None
    revision: int | None


@dataclass(frozen=True)
class Versions:
    """Everything that decides behaviour; ``None`` where it could not be learned."""

    juju_client: str | None = None
    juju_controller: str | None = None
    juju_agent: str | None = None
    microk8s: str | None = None
    kubernetes: str | None = None
    charms: tuple[CharmVersion, ...] = field(default_factory=tuple)
    juju_driver: str | None = None  # live: "libjuju" or "jubilant"; None on the twin
    # The model's settings that change which hooks run and what is logged of them
    # (automatically-retry-hooks, update-status-hook-interval, logging-config), each as
    # (key, "value (source)"); empty where they were not read (the twin).
    model_config: tuple[tuple[str, str], ...] = ()
    # Where those settings came from (live): "juju-defaults" (a model the harness made, set
    # to Juju's defaults), "inherited" (a model it made that kept the controller's
    # model-defaults: --inherit-model-config), "existing-model" (a model it did not make) or
    # "juju-defaults-except-user" (made, Juju's defaults except keys the user's config set).
    model_config_from: str | None = None
