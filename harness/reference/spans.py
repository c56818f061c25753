"""Juju version ranges as the reference shows them: ``[low, high)``, read and named.

The catalogue bounds every range by the first version it holds for and the first it no
longer does (``juju_min`` inclusive, ``juju_max`` exclusive). A reader cannot know which
patch release comes before 2.9.32, so a range is named by both bounds: "2.9.4 to before
2.9.32", "4.0 and later".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.catalogue import Expectation
from harness.common.versions import JujuVersion


def short(version: JujuVersion) -> str:
    """``3.3`` rather than ``3.3.0``, as the catalogue writes its bounds."""
    text = str(version)
    return text.removesuffix(".0")


@dataclass(frozen=True, order=True)
class Span:
    """The Juju versions from ``low`` up to, not including, ``high`` (None: no end)."""

    low: JujuVersion
    high: JujuVersion | None = None

    @classmethod
    def of(cls, entry: Expectation) -> Span:
        high = None if entry.juju_max is None else JujuVersion.parse(entry.juju_max)
        return cls(JujuVersion.parse(entry.juju_min), high)

    def covers(self, version: JujuVersion) -> bool:
        return self.low <= version and (self.high is None or version < self.high)

    def joined(self, later: Span) -> Span:
        """This span and the one that starts where it ends, as one."""
        return Span(self.low, later.high)

    @property
    def label(self) -> str:
        """``2.9.4 to before 2.9.32`` or ``4.0 and later``."""
        if self.high is None:
            return f"{short(self.low)} and later"
        return f"{short(self.low)} to before {short(self.high)}"

    @property
    def anchor(self) -> str:
        """An HTML id: ``juju-2-9-4``."""
        return "juju-" + re.sub(r"[^0-9]+", "-", short(self.low))


def spans_between(bounds: tuple[JujuVersion, ...]) -> tuple[Span, ...]:
    """The ranges ``bounds`` cut the versions into, the last one open."""
    ordered = sorted(set(bounds))
    return tuple(
        Span(low, ordered[index + 1] if index + 1 < len(ordered) else None)
        for index, low in enumerate(ordered)
    )
