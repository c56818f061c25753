"""The keys Juju itself writes into a unit's relation databag, per Juju version.

A unit entering a relation's scope gets its address keys from Juju before its charm runs.
The twin writes the same ones for the version it simulates (``written``), and the verdict
does not count Juju's keys (``owned``) as the charm's data: Juju writes them again for a
new unit.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.catalogue.model import Source
from harness.common.versions import JujuVersion

INGRESS = "ingress-address"
EGRESS = "egress-subnets"
PRIVATE = "private-address"


@dataclass(frozen=True)
class UnitKeys:
    """What Juju writes into every unit databag on ``[juju_min, juju_max)``.

    ``written``: the keys every unit gets on entering scope. ``owned``: the keys only Juju
    writes (``written`` and any it writes in some relations only).
    """

    juju_min: str
    juju_max: str | None
    written: frozenset[str]
    owned: frozenset[str]
    source: Source

    def covers(self, juju: JujuVersion) -> bool:
        if juju < JujuVersion.parse(self.juju_min):
            return False
        return self.juju_max is None or juju < JujuVersion.parse(self.juju_max)

    def data(self, address: str) -> dict[str, str]:
        """The databag Juju writes for a unit whose ingress address is ``address``.

        On Kubernetes that is the application's service address (the same for all its
        units), not the pod's: real show-unit output on 2.9.32, 3.1.2 and 4.0.5
        (tests/data/samples) has 10.152.183.x there and the pod's 10.1.x as the unit's
        ``address``. Egress defaults to that address as a /32.
        """
        every = {EGRESS: f"{address}/32", INGRESS: address, PRIVATE: address}
        return {key: value for key, value in every.items() if key in self.written}


SPANS: tuple[UnitKeys, ...] = (
    UnitKeys(
        "2.9",
        "4.0",
        frozenset({EGRESS, INGRESS, PRIVATE}),
        frozenset({EGRESS, INGRESS, PRIVATE}),
        Source(
            claim=(
                "EnterScope (2.9 and 3.6 branches) writes private-address and "
                "ingress-address (the relation's first ingress address) and egress-subnets "
                "(relation or model egress, else that address as a /32); seen on Kubernetes "
                "in show-unit on 2.9.32 and 3.1.2."
            ),
            url="https://github.com/juju/juju/blob/3.6/apiserver/facades/agent/uniter/uniter.go",
            checks=("relation",),
            confidence="high",
        ),
    ),
    UnitKeys(
        "4.0",
        None,
        frozenset({INGRESS}),
        # A hook's settings lose both keys before they are saved, so only Juju writes them
        # (juju domain/unitstate/service/commithook.go, a 2026 revision); egress-subnets
        # comes from a cross-model relation's --via subnets (juju
        # domain/unitstate/state/relationnetwork.go at f7e44fb8dc3c).
        frozenset({INGRESS, EGRESS}),
        Source(
            claim=(
                "Juju 4.0 no longer maintains private-address in relation data; show-unit "
                "on 4.0.5 has ingress-address alone in every unit databag."
            ),
            url=(
                "https://github.com/juju/juju/blob/main/docs/howto/"
                "upgrade-your-juju-deployment-from-36-to-40.md"
            ),
            checks=("relation",),
            confidence="medium",
            unverified=(
                "Juju 4.0's EnterScope was not read at a 4.0 release tag. That egress-subnets "
                "is absent rests on the 4.0.5 show-unit (juju issue 22539) and on "
                "juju domain/unitstate/state/relationnetwork.go at f7e44fb8dc3c (2026), "
                "which takes it only from a cross-model relation's --via subnets; whether a "
                "later 4.0.x writes it for an ordinary relation is not checked."
            ),
        ),
    ),
)


def unit_keys(juju: JujuVersion) -> UnitKeys:
    """The keys for ``juju``; before 2.9 (not supported) those of 2.9."""
    return next((span for span in SPANS if span.covers(juju)), SPANS[0])
