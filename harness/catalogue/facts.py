"""Facts that hold for every disruption on a Juju version range, applied on load.

The catalogue's ``juju_facts`` section holds what changed across Juju releases for all
units alike: the pod's ``terminationGracePeriodSeconds``, how long ``stop`` may run before
the charm container is killed, and whether Juju still has ``leader-settings-changed``.
``checked_in_source`` says whether the entries' claims were read for that Juju at all: where
it is false (Juju 4.0 on), an entry is carried over from the last version read and says so
(confidence low, with the fact's reason).
``background`` hooks may carry a version range too (replayed Pebble notices from 3.4).
``apply`` splits each entry's range at every boundary of these facts and fills them in,
so a version range in ``Catalogue.entries`` has one value for each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from harness.catalogue.model import Expectation, OptionalHook, Source
from harness.common.versions import JujuVersion

FACTS: tuple[str, ...] = (
    "termination_grace_seconds",
    "stop_budget_seconds",
    "leader_settings_changed",
    "checked_in_source",
)
# Facts whose value is true/false rather than whole seconds.
BOOLEAN_FACTS = frozenset({"leader_settings_changed", "checked_in_source"})
LEADER_SETTINGS_CHANGED = "leader-settings-changed"
# Background hooks a Pebble in a workload container gives (notices, checks).
PEBBLE_HOOKS = "{container}-pebble-"


@dataclass(frozen=True)
class Span:
    """One value of one fact (or one background hook) on ``[juju_min, juju_max)``."""

    juju_min: str
    juju_max: str | None
    value: Any
    source: Source | None = None

    def covers(self, juju: JujuVersion) -> bool:
        if juju < JujuVersion.parse(self.juju_min):
            return False
        return self.juju_max is None or juju < JujuVersion.parse(self.juju_max)


@dataclass(frozen=True)
class Facts:
    """Every fact's spans, and the background hooks with theirs."""

    spans: Mapping[str, tuple[Span, ...]]
    background: tuple[Span, ...]  # value: the hook name

    def boundaries(self) -> tuple[JujuVersion, ...]:
        """Every version where some fact or background hook changes, ascending."""
        found: set[JujuVersion] = set()
        for span in (*(s for spans in self.spans.values() for s in spans), *self.background):
            found.add(JujuVersion.parse(span.juju_min))
            if span.juju_max is not None:
                found.add(JujuVersion.parse(span.juju_max))
        return tuple(sorted(found))

    def at(self, fact: str, juju: JujuVersion) -> Span | None:
        return next((span for span in self.spans.get(fact, ()) if span.covers(juju)), None)

    def background_at(self, juju: JujuVersion, *, pebble: bool = True) -> tuple[Span, ...]:
        """The background hooks on ``juju``; without ``pebble``, none of Pebble's (a podspec
        charm's workload pods run no Pebble that Juju talks to)."""
        return tuple(
            span
            for span in self.background
            if span.covers(juju) and (pebble or not str(span.value).startswith(PEBBLE_HOOKS))
        )


def apply(entries: Sequence[Expectation], facts: Facts) -> list[Expectation]:
    """Each entry split at the facts' boundaries, with the facts' values filled in."""
    cuts = facts.boundaries()
    out: list[Expectation] = []
    for entry in entries:
        low = JujuVersion.parse(entry.juju_min)
        high = None if entry.juju_max is None else JujuVersion.parse(entry.juju_max)
        inner = [cut for cut in cuts if cut > low and (high is None or cut < high)]
        bounds = [low, *inner]
        uppers: list[JujuVersion | None] = [*inner, high]
        for start, end in zip(bounds, uppers, strict=False):
            piece = replace(
                entry,
                juju_min=entry.juju_min if start == low else _text(start),
                juju_max=entry.juju_max if end is None or end == high else _text(end),
            )
            out.append(_filled(piece, start, facts))
    return out


def _filled(entry: Expectation, juju: JujuVersion, facts: Facts) -> Expectation:
    sources = list(entry.sources)
    grace = entry.termination_grace_seconds
    # The grace period and the stop time are a sidecar pod's (its charm container runs
    # the agent); a podspec unit's agent is in the operator pod, which its disruptions keep.
    sidecar = entry.charm == "sidecar"
    span = facts.at("termination_grace_seconds", juju)
    if grace is None and span is not None and entry.scope == "pod" and sidecar:
        grace = int(span.value)
        sources += [span.source] if span.source else []
    budget = entry.stop_budget_seconds
    span = facts.at("stop_budget_seconds", juju)
    if (
        budget is None
        and span is not None
        and _runs_stop(entry)
        and entry.scope == "pod"
        and sidecar
    ):
        budget = int(span.value)
        sources += [span.source] if span.source else []
    hooks, optional = entry.hooks, entry.optional
    span = facts.at("leader_settings_changed", juju)
    if span is not None and span.value is False:
        hooks = tuple(h for h in hooks if h != LEADER_SETTINGS_CHANGED)
        optional = tuple(h for h in optional if h.hook != LEADER_SETTINGS_CHANGED)
        sources += [span.source] if span.source else []
    confidence = entry.confidence
    span = facts.at("checked_in_source", juju)
    if span is not None and span.value is False:
        confidence = "low"
        sources += [span.source] if span.source else []
    background = facts.background_at(juju, pebble=sidecar)
    return replace(
        entry,
        confidence=confidence,
        termination_grace_seconds=grace,
        stop_budget_seconds=budget,
        hooks=hooks,
        optional=optional,
        # A hook with several sources (check-failed: two) is listed once.
        background=(*entry.background, *dict.fromkeys(str(span.value) for span in background)),
        sources=(*sources, *(span.source for span in background if span.source)),
    )


def _runs_stop(entry: Expectation) -> bool:
    placed: tuple[OptionalHook, ...] = entry.optional
    return "stop" in entry.hooks or any(h.hook == "stop" for h in placed)


def _text(version: JujuVersion) -> str:
    """``3.3`` rather than ``3.3.0``, as the catalogue writes its bounds."""
    text = str(version)
    return text[:-2] if text.endswith(".0") else text
