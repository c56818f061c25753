"""The Catalogue value: every expectation, looked up by disruption, branch and Juju version.

``Catalogue.expect`` gives one branch: a variant, or for container-restart the one its
container and signal pick (``variant_for``, with ``normal_signal``); ``branches``,
``variants``, ``disruptions`` and ``boundaries`` say what there is. ``harness.catalogue.reading``
builds it from the YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from harness.catalogue.model import (
    MAIN,
    SIGNALS,
    SUPPORTED_FROM,
    Expectation,
    Gone,
    KnownBug,
    Signal,
)
from harness.common.errors import UnknownName, unknown
from harness.common.versions import JujuVersion

# The charm container's name in every sidecar pod (the agent's container).
CHARM_CONTAINER = "charm"


class NotOnThisJuju(UnknownName):
    """The disruption's kind of charm is gone on that Juju (podspec charms on 4.0)."""


@dataclass(frozen=True)
class Catalogue:
    """Every expectation, per disruption (and variant) and Juju version range."""

    entries: tuple[Expectation, ...]
    known_bugs: tuple[KnownBug, ...]
    background: tuple[str, ...]
    path: str
    fact_boundaries: tuple[JujuVersion, ...] = ()
    # Disruptions whose kind of charm Juju removed, and from which version (podspec on 4.0).
    gone: Mapping[str, Gone] = field(default_factory=dict)

    def disruptions(self) -> tuple[str, ...]:
        """Disruption names in catalogue order (lifecycle entries included)."""
        seen: list[str] = []
        for entry in self.entries:
            if entry.disruption not in seen:
                seen.append(entry.disruption)
        return tuple(seen)

    def variants(self, disruption: str) -> tuple[str | None, ...]:
        """The variants (branches) of one disruption; ``None`` is the main branch."""
        seen: list[str | None] = []
        for entry in self.entries:
            if entry.disruption == disruption and entry.variant not in seen:
                seen.append(entry.variant)
        return tuple(seen)

    def expect(
        self,
        disruption: str,
        juju: JujuVersion | str,
        *,
        variant: str | None = None,
        container: str | None = None,
        signal: str | None = None,
    ) -> Expectation:
        """The expectation for a disruption on a Juju version; UnknownName if none.

        ``variant`` names a branch (``None`` or ``"main"``: the main branch). For
        ``container-restart``, ``container`` (``charm``, or any workload container's name)
        and ``signal`` (``TERM``, ``KILL``, ``OOM``; ``SIG`` prefix allowed) pick the
        branch instead; giving both them and a different ``variant`` is an error.
        """
        self._known(disruption)
        version = _version(juju)
        self._check_not_gone(disruption, version)
        picked = self.variant_for(disruption, container=container, signal=signal)
        wanted = None if variant in (None, MAIN) else variant
        if picked is not None or container is not None:
            if wanted is not None and wanted != picked:
                raise UnknownName(
                    f"{disruption}: variant {variant!r} contradicts container {container!r}"
                    f" and signal {signal!r} (they give {picked or MAIN!r})",
                    "give either the variant or the container and signal",
                )
            wanted = picked
        if wanted not in self.variants(disruption):
            named = ", ".join(v for v in self.variants(disruption) if v is not None)
            raise UnknownName(
                f"{disruption} has no variant {variant!r}",
                f"leave it out or choose one of: {named}" if named else "leave it out",
            )
        for entry in self.entries:
            same = entry.disruption == disruption and entry.variant == wanted
            if same and entry.covers(version):
                return entry
        first = min(
            (e for e in self.entries if e.disruption == disruption and e.variant == wanted),
            key=lambda e: JujuVersion.parse(e.juju_min),
        )
        if wanted is not None:
            raise UnknownName(
                f"{disruption} has no {wanted} branch on Juju {juju}",
                f"it exists from Juju {first.juju_min}",
            )
        raise UnknownName(
            f"no catalogue entry for {disruption} on Juju {juju}",
            f"the catalogue covers Juju {SUPPORTED_FROM} and later",
        )

    def variant_for(
        self, disruption: str, *, container: str | None = None, signal: str | None = None
    ) -> str | None:
        """The variant a container-restart of ``container`` by ``signal`` is catalogued as.

        ``None`` (the main branch: a workload container) unless the charm container is
        named; its branch then depends on the signal (TERM when not given).
        """
        sig = normal_signal(signal)
        if container is None:
            if sig is not None:
                raise UnknownName(
                    f"{disruption}: a signal needs a container",
                    "give --container too (container= in Python)",
                )
            return None
        for entry in self.entries:
            if entry.disruption != disruption or entry.container is None:
                continue
            kind = "charm" if container == CHARM_CONTAINER else "workload"
            if entry.container == kind and (sig or "TERM") in entry.signals:
                return entry.variant
        by = f" and signal {signal!r}" if signal else ""
        raise UnknownName(
            f"{disruption} has no branch for container {container!r}{by}",
            "--container and --signal apply to container-restart and container-kill only "
            "(container= and signal= in Python)",
        )

    def branches(self, disruption: str, juju: JujuVersion | str) -> tuple[Expectation, ...]:
        """Every branch of a disruption on one version, the main branch first."""
        self._known(disruption)
        version = _version(juju)
        self._check_not_gone(disruption, version)
        found = [
            entry
            for entry in self.entries
            if entry.disruption == disruption and entry.covers(version)
        ]
        return tuple(sorted(found, key=lambda e: e.variant is not None))

    def extrapolation(self, juju: JujuVersion, text: str | None = None) -> str | None:
        """A sentence when ``juju`` is past every version the entries name (then judged by
        the newest range, which nobody read for it), else None. ``text``: how it was given.

        4.0.5 is within the 4.0 an entry names; 4.1 and 5.0 are past it.
        """
        named = [JujuVersion.parse(e.juju_min) for e in self.entries]
        named += [JujuVersion.parse(e.juju_max) for e in self.entries if e.juju_max]
        newest = max(named)
        if (juju.major, juju.minor) <= (newest.major, newest.minor):
            return None
        shown = text or str(juju)
        if juju.major > newest.major:
            series = ", ".join(f"{major}.x" for major in sorted({v.major for v in named}))
            names = f"name Juju {series} only"
        else:
            names = f"name Juju up to {newest.major}.{newest.minor}"
        return (
            f"the catalogue's ranges {names}; Juju {shown} is judged by its newest range "
            f"({newest.major}.{newest.minor} and later): an extrapolation"
        )

    def boundaries(self) -> tuple[JujuVersion, ...]:
        """Every version where some entry or fact changes, ascending (2.9 first)."""
        found = {JujuVersion.parse(e.juju_min) for e in self.entries}
        found |= {JujuVersion.parse(e.juju_max) for e in self.entries if e.juju_max}
        return tuple(sorted(found | set(self.fact_boundaries)))

    def bugs(self, bug_id: str) -> tuple[KnownBug, ...]:
        """Every claim of one known bug (one per disruption it was filed against)."""
        return tuple(bug for bug in self.known_bugs if bug.id == bug_id)

    def gone_on(self, disruption: str, juju: JujuVersion | str) -> Gone | None:
        """Why ``disruption`` does not exist on ``juju`` (its kind of charm is gone), or None."""
        gone = self.gone.get(disruption)
        return gone if gone is not None and gone.covers(_version(juju)) else None

    def _check_not_gone(self, disruption: str, version: JujuVersion) -> None:
        gone = self.gone_on(disruption, version)
        if gone is not None:
            raise NotOnThisJuju(
                gone.sentence(disruption),
                f"run it on a Juju before {gone.juju_min}: 2.9 or 3.6",
            )

    def _known(self, disruption: str) -> None:
        if disruption not in self.disruptions():
            raise unknown("disruption", disruption, self.disruptions())


def normal_signal(signal: str | None) -> Signal | None:
    """``SIGKILL``/``kill``/``9`` -> ``KILL``; UnknownName for a signal not catalogued."""
    if signal is None:
        return None
    text = signal.strip().upper().removeprefix("SIG")
    text = {"15": "TERM", "9": "KILL"}.get(text, text)
    if text not in SIGNALS:
        raise UnknownName(f"unknown signal {signal!r}", f"use one of: {', '.join(SIGNALS)}")
    return text  # type: ignore[return-value]  # checked against SIGNALS above


def _version(juju: JujuVersion | str) -> JujuVersion:
    if isinstance(juju, JujuVersion):
        return juju
    try:
        return JujuVersion.parse(juju)
    except ValueError as err:
        raise UnknownName(str(err), "give a version such as 3.6 or 2.9.43") from None
