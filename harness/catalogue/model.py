"""The expectation catalogue's values: what Juju is documented (or known) to do.

The data lives in ``catalogue.yaml`` beside this module; ``harness.catalogue.load()`` reads
it into these types. The verdict compares observations with them, and the twin dispatches
the hooks they name: one source of truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from harness.catalogue.hooknames import HookName, Names, parse
from harness.common.versions import JujuVersion

Layer = Literal["container-root", "charm-dir", "storage"]
LAYERS: tuple[Layer, ...] = ("container-root", "charm-dir", "storage")
Confidence = Literal["high", "medium", "low"]
# What an observation must show for the verdict to judge a run against a branch (variant)
# rather than the main branch: a ``stop`` that was terminated or failed, or a second
# rolling update of the same units.
# ``stateless-deployment`` is read from the charm's metadata, not from the run: a podspec
# charm with neither storage nor ``deployment: type: stateful`` runs as a Deployment.
SelectedBy = Literal["stop-not-completed", "second-roll", "stateless-deployment"]
SELECTORS: tuple[SelectedBy, ...] = ("stop-not-completed", "second-roll", "stateless-deployment")
# The kind of charm an entry is about: a sidecar charm (the default), or a podspec charm,
# whose hooks run in an operator pod beside its workload pods (up to Juju 3.6).
CharmKind = Literal["sidecar", "podspec"]
# The signals container-restart can send to PID 1 (OOM: the kernel's OOM killer, a SIGKILL).
Signal = Literal["TERM", "KILL", "OOM"]
SIGNALS: tuple[Signal, ...] = ("TERM", "KILL", "OOM")
MAIN = "main"  # the name of the default branch (variant None) wherever a person reads it
# The oldest Juju the catalogue covers: every main branch and every fact starts here.
SUPPORTED_FROM = "2.9"


@dataclass(frozen=True)
class Source:
    """Where a claim comes from: a Juju docs page, a bug or a PR.

    ``checks`` names the verdict checks the claim backs (``hooks``, ``file``, ``relation``,
    ``pod-identity``, ``timing``); a finding cites the first source that backs its check.
    """

    claim: str
    url: str
    checks: tuple[str, ...] = ()
    # ``low`` (with ``unverified`` saying why) where the claim is inferred rather than read.
    confidence: Confidence | None = None
    unverified: str = ""


@dataclass(frozen=True)
class Gone:
    """From which Juju version a kind of charm (and so its disruptions) no longer exists."""

    juju_min: str
    claim: str
    sources: tuple[Source, ...]

    def covers(self, juju: JujuVersion) -> bool:
        return juju >= JujuVersion.parse(self.juju_min)

    def sentence(self, disruption: str) -> str:
        """One line for a refusal: what is gone, and the first source's address."""
        where = f" ({self.sources[0].url})" if self.sources else ""
        return (
            f"{disruption} needs a podspec charm, and podspec charms are gone from Juju "
            f"{self.juju_min}: {self.claim}{where}"
        )


@dataclass(frozen=True)
class OptionalHook:
    """A hook whose place in the sequence is not fixed, and where it may appear.

    ``hook`` may be a template (``{container}-pebble-ready``). ``where`` is ``anywhere`` or
    comma-separated ``after:<hook>`` / ``before:<hook>`` constraints (after: some
    occurrence of that hook comes earlier; before: none does). ``when`` is ``always``,
    ``leader`` or ``non-leader``. ``required`` makes it a hook that must appear (at a
    place ``where`` allows) rather than one that may.
    """

    hook: str
    where: str
    when: str = "always"
    required: bool = False

    @property
    def name(self) -> HookName:
        return parse(self.hook)

    def constraints(self) -> tuple[tuple[str, HookName], ...]:
        """``(("after", install), ("before", config-changed))``; empty for ``anywhere``."""
        if self.where.strip() == "anywhere":
            return ()
        out: list[tuple[str, HookName]] = []
        for part in self.where.split(","):
            kind, _, anchor = part.strip().partition(":")
            if kind not in ("after", "before") or not anchor:
                raise ValueError(
                    f"where {self.where!r}: use 'anywhere' or 'after:<hook>'/'before:<hook>'"
                )
            out.append((kind, parse(anchor.strip())))
        return tuple(out)

    def applies(self, leader: bool | None) -> bool:
        """Whether it may appear on a unit with this leadership (None: unknown, so yes)."""
        if self.when == "always" or leader is None:
            return True
        return leader if self.when == "leader" else not leader

    def is_required(self, leader: bool | None) -> bool:
        """Required and known to apply (a leader-only hook is not required when unknown)."""
        if not self.required:
            return False
        return self.when == "always" or (leader is not None and self.applies(leader))


@dataclass(frozen=True)
class KnownBug:
    """A reported behaviour that Juju does not have (yet): what was asked vs what happens.

    ``kind`` says what the two tuples hold: hook names (``hooks``) or one word
    (``relation-data``: ``kept``/``lost``). One bug filed against two disruptions is two
    values with the same ``id`` and different ``disruption``.
    """

    id: str  # "LP#2021891"
    url: str
    title: str
    reporter_expected: tuple[str, ...]  # the hooks the reporter asked for
    juju_does: tuple[str, ...]  # the hooks Juju runs
    fixed_in: str | None = None
    disruption: str = ""
    kind: Literal["hooks", "relation-data"] = "hooks"
    notes: str = ""
    quote: str = ""  # the report's own words: what was expected, or the cause

    def is_fixed_in(self, juju: JujuVersion) -> bool:
        return self.fixed_in is not None and juju >= JujuVersion.parse(self.fixed_in)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "url": self.url,
            "title": self.title,
            "disruption": self.disruption,
            "kind": self.kind,
            "reporter_expected": list(self.reporter_expected),
            "juju_does": list(self.juju_does),
            "fixed_in": self.fixed_in,
            "quote": self.quote,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class Expectation:
    """One unit of the disrupted application under one disruption and Juju version range.

    ``hooks`` are required in this order (other hooks may come between them); templates
    are allowed. ``optional`` holds hooks placed by constraints, some of them required.
    ``background`` hooks may appear anywhere for reasons outside the disruption (timers,
    remote units writing their databags). ``scope`` is ``container`` when only the target
    container restarts: container-root loss and restart counts then concern that one.
    ``new_units`` is the expectation for units the disruption creates (scale-down-up).
    """

    disruption: str  # kebab-case: one of names.NAMES, or of names.LIFECYCLE
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
    variant: str | None = None  # e.g. "charm" for a restart of the charm container
    confidence: Confidence = "medium"
    background: tuple[str, ...] = ()
    scope: Literal["pod", "container"] = "pod"
    app_relation_data: Literal["kept", "lost"] = "kept"
    termination_grace_seconds: int | None = None
    new_units: Expectation | None = None
    summary: str = ""
    # How long ``stop`` can run once the pod (or charm container) is told to terminate:
    # the grace period, or less where Pebble's kill-delay cuts it short. None: no ``stop``.
    stop_budget_seconds: int | None = None
    container: Literal["charm", "workload"] | None = None  # container-restart only
    signals: tuple[Signal, ...] = ()  # container-restart only: the signals it is for
    selected_by: SelectedBy | None = None  # branches only: what observation picks it
    pebble_state: Literal["kept", "lost"] | None = None  # Pebble's state dir, when it matters
    unit_name: Literal["kept", "reused", "new"] = "kept"  # the unit's name afterwards
    charm: CharmKind = "sidecar"  # podspec: hooks run in the operator pod (up to Juju 3.6)

    @property
    def branch(self) -> str:
        """The branch's name for people: the variant, or ``main``."""
        return self.variant or MAIN

    @property
    def label(self) -> str:
        """``pod-delete (Juju 2.9 to 3.3)``, for messages."""
        name = self.disruption if self.variant is None else f"{self.disruption}/{self.variant}"
        upper = f"to {self.juju_max}" if self.juju_max else "and later"
        return f"{name} (Juju {self.juju_min} {upper})"

    def covers(self, juju: JujuVersion) -> bool:
        if juju < JujuVersion.parse(self.juju_min):
            return False
        return self.juju_max is None or juju < JujuVersion.parse(self.juju_max)

    def source_for(self, check: str) -> str:
        """The URL backing a check: the first source that names it, else the first."""
        for source in self.sources:
            if check in source.checks:
                return source.url
        return self.sources[0].url if self.sources else ""

    def ordered_hooks(
        self,
        containers: Sequence[str] | None = None,
        endpoints: Sequence[str] | None = None,
        storages: Sequence[str] | None = None,
    ) -> tuple[str, ...]:
        """The strictly ordered required hooks, templates expanded for the names given."""
        names = _names(containers, endpoints, storages)
        return tuple(name for hook in self.hooks for name in parse(hook).expand(names))

    def required_hooks(
        self,
        containers: Sequence[str] | None = None,
        endpoints: Sequence[str] | None = None,
        storages: Sequence[str] | None = None,
        *,
        leader: bool | None = None,
    ) -> tuple[str, ...]:
        """Every hook that must run, in one order the expectation allows.

        The ordered hooks, with the required placed hooks (such as
        ``{container}-pebble-ready``) inserted at the latest place their constraints
        allow. Templates stay templates for variables whose names are not given.
        """
        chosen = [hook for hook in self.optional if hook.is_required(leader)]
        return self._place(chosen, _names(containers, endpoints, storages))

    def expected_sequence(
        self,
        containers: Sequence[str] | None = None,
        endpoints: Sequence[str] | None = None,
        storages: Sequence[str] | None = None,
        *,
        leader: bool | None = None,
        include_optional: bool = False,
    ) -> tuple[str, ...]:
        """A concrete sequence a unit may run: what the twin dispatches.

        The required hooks plus the leadership hooks for the given ``leader`` (e.g.
        ``leader-settings-changed`` on a non-leader), and with ``include_optional`` every
        other optional hook that always applies.
        """
        chosen = [
            hook
            for hook in self.optional
            if hook.is_required(leader)
            or (leader is not None and hook.when != "always" and hook.applies(leader))
            or (include_optional and hook.when == "always")
        ]
        # One occurrence per hook name: a required and an optional entry may share it.
        unique: list[OptionalHook] = []
        for hook in chosen:
            if all(hook.hook != other.hook for other in unique):
                unique.append(hook)
        return self._place(unique, _names(containers, endpoints, storages))

    def _place(self, placed: Sequence[OptionalHook], names: Names) -> tuple[str, ...]:
        sequence = [name for hook in self.hooks for name in parse(hook).expand(names)]
        for hook in placed:
            constraints = hook.constraints()
            for concrete in hook.name.expand(names):
                low, high = 0, len(sequence)
                for kind, anchor in constraints:
                    hits = [i for i, seen in enumerate(sequence) if _same(anchor, seen, names)]
                    if kind == "after" and hits:
                        low = max(low, hits[0] + 1)
                    if kind == "before" and hits:
                        high = min(high, hits[0])
                sequence.insert(max(low, high), concrete)
        return tuple(sequence)

    def to_json(
        self,
        containers: Sequence[str] | None = None,
        endpoints: Sequence[str] | None = None,
        storages: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """What ``repro predict --format json`` prints.

        ``hooks`` is :meth:`required_hooks` (the ordered required hook names); the
        survival expectations are ``survives`` (per layer), ``pod_uid``,
        ``restart_count``, ``relation_data``, ``unit_identity``; then ``sources`` and
        ``known_bugs``, and the rest of the entry.
        """
        return {
            "disruption": self.disruption,
            "variant": self.variant,
            "branch": self.branch,
            "selected_by": self.selected_by,
            "container": self.container,
            "signals": list(self.signals),
            "juju": {"min": self.juju_min, "max": self.juju_max},
            "summary": self.summary,
            "hooks": list(self.required_hooks(containers, endpoints, storages)),
            "hooks_leader": list(
                self.required_hooks(containers, endpoints, storages, leader=True)
            ),
            "hooks_non_leader": list(
                self.required_hooks(containers, endpoints, storages, leader=False)
            ),
            "ordered_hooks": list(self.ordered_hooks(containers, endpoints, storages)),
            "optional": [
                {"hook": h.hook, "where": h.where, "when": h.when, "required": h.required}
                for h in self.optional
            ],
            "background": list(self.background),
            "survives": {
                layer: self.survives[layer] for layer in LAYERS if layer in self.survives
            },
            "pod_uid": self.pod_uid,
            "restart_count": self.restart_count,
            "relation_data": self.relation_data,
            "app_relation_data": self.app_relation_data,
            "unit_identity": self.unit_identity,
            "unit_order": self.unit_order,
            "scope": self.scope,
            "termination_grace_seconds": self.termination_grace_seconds,
            "stop_budget_seconds": self.stop_budget_seconds,
            "pebble_state": self.pebble_state,
            "unit_name": self.unit_name,
            "charm": self.charm,
            "confidence": self.confidence,
            "notes": self.notes,
            "sources": [
                {"claim": s.claim, "url": s.url}
                | ({"confidence": s.confidence} if s.confidence else {})
                | ({"unverified": s.unverified} if s.unverified else {})
                for s in self.sources
            ],
            "known_bugs": [bug.to_json() for bug in self.known_bugs],
            "new_units": None
            if self.new_units is None
            else self.new_units.to_json(containers, endpoints, storages),
        }


def _names(
    containers: Sequence[str] | None,
    endpoints: Sequence[str] | None,
    storages: Sequence[str] | None,
) -> dict[str, Sequence[str]]:
    names: dict[str, Sequence[str]] = {}
    for variable, given in (
        ("container", containers),
        ("endpoint", endpoints),
        ("storage", storages),
    ):
        if given is not None:
            names[variable] = tuple(given)
    return names


def _same(anchor: HookName, seen: str, names: Names) -> bool:
    """Whether ``seen`` (a concrete name or an unexpanded template) is ``anchor``."""
    return seen == anchor.text or anchor.match(seen, names) is not None


__all__ = [
    "LAYERS",
    "MAIN",
    "SELECTORS",
    "SIGNALS",
    "SUPPORTED_FROM",
    "CharmKind",
    "Confidence",
    "Expectation",
    "Gone",
    "KnownBug",
    "Layer",
    "OptionalHook",
    "SelectedBy",
    "Signal",
    "Source",
]
