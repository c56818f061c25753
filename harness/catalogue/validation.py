"""The catalogue's rules, and CatalogueError: what a broken (or malformed) catalogue raises.

``validate`` runs once the whole file is read: every disruption of ``names.NAMES`` and of
``names.PREDICT_ONLY`` and every lifecycle entry is catalogued, and nothing else; each
branch has contiguous version ranges (the main branch's from 2.9 on), the last one open.
``check_spans`` holds a fact's ranges to the same rule as they are read.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.catalogue.catalogue import Catalogue
from harness.catalogue.facts import Span
from harness.catalogue.model import MAIN, SUPPORTED_FROM, Expectation
from harness.catalogue.names import LIFECYCLE, NAMES, PODSPEC, PREDICT_ONLY
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion


class CatalogueError(HarnessError):
    """The catalogue file is malformed or breaks a rule; says which entry and why."""


def check_spans(spans: Sequence[Span], here: str) -> None:
    """A fact's ranges: contiguous from 2.9, the last one open."""
    expected = JujuVersion.parse(SUPPORTED_FROM)
    ordered = sorted(spans, key=lambda span: JujuVersion.parse(span.juju_min))
    for index, span in enumerate(ordered):
        if JujuVersion.parse(span.juju_min) != expected:
            raise CatalogueError(
                f"catalogue {here}: the range from {span.juju_min} should start at {expected}",
                "make the ranges contiguous from 2.9",
            )
        if span.juju_max is None:
            if index != len(ordered) - 1:
                raise CatalogueError(f"catalogue {here}: an open range is not the last")
            return
        expected = JujuVersion.parse(span.juju_max)
    raise CatalogueError(f"catalogue {here}: the last range must be open (no juju_max)")


def validate(catalogue: Catalogue, where: str) -> None:
    """The rules of the whole catalogue; CatalogueError names the first one it breaks.

    Its disruptions are ``NAMES``, ``PREDICT_ONLY`` (catalogued, not yet runnable),
    ``PODSPEC`` and ``LIFECYCLE``, no more and no fewer; each has a main branch; each
    branch's version ranges are contiguous; each known bug names one of them. A podspec
    disruption's entries are about podspec charms (``charm: podspec``) and end where
    podspec charms are gone (``Catalogue.gone``); no other entry is about them.
    """
    every = (*NAMES, *PREDICT_ONLY, *PODSPEC, *LIFECYCLE)
    names = set(every)
    for entry in catalogue.entries:
        if entry.disruption not in names:
            raise CatalogueError(
                f"catalogue {where}: unknown disruption {entry.disruption!r}",
                f"use one of: {', '.join(every)}",
            )
        if (entry.charm == "podspec") != (entry.disruption in PODSPEC):
            raise CatalogueError(
                f"catalogue {where}: {entry.label} is about a {entry.charm} charm",
                f"podspec charms' disruptions ({', '.join(PODSPEC)}) go in the podspec "
                "section, and only they",
            )
    for required in every:
        if required not in catalogue.disruptions():
            raise CatalogueError(f"catalogue {where}: no entry for {required}")
    for disruption in catalogue.disruptions():
        if None not in catalogue.variants(disruption):
            raise CatalogueError(f"catalogue {where}: {disruption} has no main branch")
        for variant in catalogue.variants(disruption):
            _check_ranges(
                [
                    e
                    for e in catalogue.entries
                    if e.disruption == disruption and e.variant == variant
                ],
                where,
                from_first=variant is not None,
                gone_from=catalogue.gone[disruption].juju_min
                if disruption in catalogue.gone
                else None,
            )
            if variant == MAIN:
                raise CatalogueError(
                    f"catalogue {where}: {disruption} names a variant {MAIN!r}",
                    "leave variant out for the main branch",
                )
    for bug in catalogue.known_bugs:
        if bug.disruption not in names:
            raise CatalogueError(f"catalogue {where}: {bug.id} names unknown {bug.disruption!r}")


def _check_ranges(
    entries: list[Expectation],
    where: str,
    *,
    from_first: bool = False,
    gone_from: str | None = None,
) -> None:
    """Sorted by lower bound, each range must start where the previous one ended.

    The main branch starts at 2.9; a branch (``from_first``) may start later, where the
    behaviour it describes first exists, and is contiguous from there. The last range is
    open, or ends exactly where the disruption's kind of charm is gone (``gone_from``).
    """
    ordered = sorted(entries, key=lambda e: JujuVersion.parse(e.juju_min))
    expected_low = JujuVersion.parse(SUPPORTED_FROM)
    if from_first and ordered:
        expected_low = JujuVersion.parse(ordered[0].juju_min)
    for index, entry in enumerate(ordered):
        low = JujuVersion.parse(entry.juju_min)
        if low != expected_low:
            problem = "overlaps the previous range" if low < expected_low else "leaves a gap"
            raise CatalogueError(
                f"catalogue {where}: {entry.label} {problem} (expected it to start at "
                f"{expected_low})",
                "make the ranges of one disruption contiguous from 2.9",
            )
        if entry.juju_max is None:
            if index != len(ordered) - 1:
                raise CatalogueError(
                    f"catalogue {where}: {entry.label} is unbounded but not the last range"
                )
            if gone_from is not None:
                raise CatalogueError(
                    f"catalogue {where}: {entry.label} is unbounded, but its kind of charm "
                    f"is gone from Juju {gone_from}",
                    f"end the last range at juju_max: {gone_from!r}",
                )
            return
        expected_low = JujuVersion.parse(entry.juju_max)
        if gone_from is not None and index == len(ordered) - 1:
            if expected_low != JujuVersion.parse(gone_from):
                raise CatalogueError(
                    f"catalogue {where}: {entry.label} ends, but not where its kind of charm "
                    f"is gone ({gone_from})",
                    f"end the last range at juju_max: {gone_from!r}",
                )
            return
    raise CatalogueError(
        f"catalogue {where}: {ordered[-1].label} ends; the last range must be unbounded",
        "set juju_max: null on the newest range",
    )
