"""Juju version numbers and the versions block of the evidence."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import total_ordering

# juju/version version.go: NumberRegex, `(\d{1,9})\.(\d{1,9})(?:\.|-([a-z]+))(\d{1,9})
# (\.\d{1,9})?`, and a binary version adds `-<series>-<arch>`. One thing more is accepted,
# as people type it: `3.6` (a snap track), read as 3.6.0. Anything else after the number
# (``3.6-RC1``, ``3.6.0-rc1``, ``3.6.beta1``) is refused, as Juju refuses it.
_NUMBER = r"(\d{1,9})\.(\d{1,9})(?:(?:\.|-([a-z]+))(\d{1,9})(?:\.(\d{1,9}))?)?"
_VERSION = re.compile(rf"^{_NUMBER}(?:-[^-\s]+-[^-\s]+)?(?:\s|$)")
_WHOLE_NUMBER = re.compile(rf"v?{_NUMBER}")


@total_ordering
@dataclass(frozen=True)
class JujuVersion:
    """A Juju version such as ``3.6``, ``2.9.43``, ``3.0-beta4`` or ``2.9.43.1``.

    Compared as juju/version ``Number.Compare`` compares: major, minor, then the tag (a
    release, no tag, above every pre-release of its major.minor; tags lexically: alpha <
    beta < rc), then patch, then build. So ``3.6-beta2 < 3.6-rc1 < 3.6.0 < 3.6.0.1``.
    """

    major: int
    minor: int
    patch: int = 0
    tag: str = ""  # "beta" in 3.0-beta4; "" for a release
    build: int = 0

    @classmethod
    def parse(cls, text: str) -> JujuVersion:
        """The version at the start of ``text`` (``juju version`` prints
        ``3.6.1-genericlinux-amd64``), in Juju's own grammar."""
        match = _VERSION.match(text.strip().removeprefix("v"))
        if not match:
            raise ValueError(f"not a Juju version: {text!r} (expected e.g. 3.6 or 2.9.43)")
        major, minor, tag, patch, build = match.groups()
        return cls(int(major), int(minor), int(patch or 0), tag or "", int(build or 0))

    @classmethod
    def parse_number(cls, text: str) -> JujuVersion:
        """``text`` as a version number and nothing more (no ``-series-arch``, no trailing
        text): what a person types as ``--juju``."""
        if not _WHOLE_NUMBER.fullmatch(text.strip()):
            raise ValueError(f"not a Juju version: {text!r} (expected e.g. 3.6 or 2.9.43)")
        return cls.parse(text)

    def _key(self) -> tuple[int, int, bool, str, int, int]:
        return (self.major, self.minor, not self.tag, self.tag, self.patch, self.build)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, JujuVersion):
            return NotImplemented
        return self._key() < other._key()

    @property
    def prerelease(self) -> bool:
        return bool(self.tag)

    def __str__(self) -> str:
        if self.tag:
            text = f"{self.major}.{self.minor}-{self.tag}{self.patch}"
        else:
            text = f"{self.major}.{self.minor}.{self.patch}"
        return f"{text}.{self.build}" if self.build else text


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
