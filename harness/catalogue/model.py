"""The expectation catalogue's values: what Juju is documented (or known) to do.

The data lives in ``catalogue.yaml`` beside this module; ``harness.catalogue.load()`` reads
it into these types. The verdict compares observations with them, and the twin dispatches
the hooks they name: one source of truth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Layer = Literal["container-root", "charm-dir", "storage"]


@dataclass(frozen=True)
class Source:
    """Where a claim comes from: a Juju docs page, a bug or a PR."""

    claim: str
    url: str


@dataclass(frozen=True)
class OptionalHook:
    """A hook that may appear, and where.

    ``hook`` may hold ``{container}`` (one per workload container, e.g.
    ``{container}-pebble-ready``). ``where`` is ``anywhere``, ``after:<hook>`` or
    ``before:<hook>``; ``when`` is ``always``, ``leader`` or ``non-leader``.
    """

    hook: str
    where: str
    when: str = "always"


@dataclass(frozen=True)
class KnownBug:
    """A reported behaviour that Juju does not have (yet): what was asked vs what happens."""

    id: str  # "LP#2021891"
    url: str
    title: str
    reporter_expected: tuple[str, ...]  # the hooks the reporter asked for
    juju_does: tuple[str, ...]  # the hooks Juju runs
    fixed_in: str | None = None


@dataclass(frozen=True)
class Expectation:
    """One unit of the disrupted application under one disruption and Juju version range."""

    disruption: str  # kebab-case, as in harness.disrupt.NAMES, or "deploy" / "integrate"
    juju_min: str  # inclusive, e.g. "2.9"
    juju_max: str | None  # exclusive; None = no upper bound
    hooks: tuple[str, ...]  # required, in order
    optional: tuple[OptionalHook, ...]
    survives: dict[Layer, bool]  # filesystem layer -> survives?
    pod_uid: Literal["new", "same"]
    restart_count: Literal["increments", "resets", "unchanged"]
    relation_data: Literal["kept", "lost"]
    unit_identity: Literal["kept", "new"]
    unit_order: Literal["one", "highest-ordinal-first", "all-at-once"]
    sources: tuple[Source, ...]
    known_bugs: tuple[KnownBug, ...] = ()
    notes: str = ""
