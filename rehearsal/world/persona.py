"""The Juju a world plays: 2.9, 3.6 or 4.0, and what differs between them on the wire.

Every difference the world imitates is read from Juju's Go source (juju/juju; the fork
``wallyworld/juju`` at tag ``juju-2.9.31``, branch ``3.6`` and ``main`` at 4.0-beta5, as
listed in the rehearsal research notes) or from python-libjuju's own tables; each is cited
where it is used (``juju_cli.py``, ``juju_api.py``, ``logstore.py``). The version numbers
are the newest each line had when python-libjuju 2.9.49.1 and 3.6.1.3 were cut.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.common.versions import JujuVersion


@dataclass(frozen=True)
class Persona:
    series: str  # "2.9", "3.6", "4.0"
    version: str  # the controller's agent-version
    client: (
        str  # `juju version`: version.Binary, <number>-<os>-<arch> (cmd/juju/commands/version.go)
    )
    go: str
    # terminationGracePeriodSeconds of a unit pod: 300 s before 3.3, 30 s since (juju PR
    # 15313's era; the catalogue's facts: DESIGN.md "Pod template changes roll pods").
    grace_seconds: int
    # Facades the controller registers (apiserver/**/register.go at the cited ref), by name.
    facades: dict[str, tuple[int, ...]]

    @property
    def major(self) -> int:
        return int(self.series.split(".")[0])

    @property
    def juju_version(self) -> JujuVersion:
        return JujuVersion.parse(self.version)

    @property
    def stored_in_mongo(self) -> bool:
        """2.9 and 3.6 keep logs in MongoDB, ordered by the agent's time; 4.0 in a file, in
        arrival order (research notes on debug-log ordering: state/logs.go@juju-2.9.31 and
        @3.6; internal/logtailer/tailer.go@main)."""
        return self.major < 4


# apiserver/allfacades.go and the facades' register.go at juju-2.9.31 (2.9) and 3.6;
# python-libjuju picks the newest version both sides know (juju/client/connection.py
# _build_facades; 2.9.49.1's client_facades, 3.6.1.3's facade_versions.py).
_FACADES_29: dict[str, tuple[int, ...]] = {
    "Action": (2, 3, 4, 5, 6, 7),
    "Admin": (3,),
    "AllWatcher": (1, 2),
    "Application": tuple(range(1, 14)),
    "CharmHub": (1,),
    "Charms": (2, 3, 4),
    "Client": (1, 2, 3, 4, 5),
    "Cloud": tuple(range(1, 8)),
    "Controller": tuple(range(3, 12)),
    "ModelConfig": (1, 2),
    "ModelManager": tuple(range(2, 10)),
    "Pinger": (1,),
    "Resources": (1, 2),
    "UserManager": (1, 2),
}
_FACADES_36: dict[str, tuple[int, ...]] = {
    "Action": (7,),
    "Admin": (3,),
    "AllWatcher": (3,),
    "Application": (15, 16, 17, 18, 19, 20),
    "Charms": (5, 6, 7),
    "Client": (6, 7, 8),
    "Cloud": (7,),
    "Controller": (11, 12),
    "ModelConfig": (3,),
    "ModelManager": (9, 10),
    "Pinger": (1,),
    "Resources": (3,),
    "UserManager": (3,),
}

PERSONAS: dict[str, Persona] = {
    "2.9": Persona(
        "2.9",
        "2.9.49",
        "2.9.49-ubuntu-amd64",
        "go1.21.13",
        300,
        _FACADES_29,
    ),
    "3.6": Persona(
        "3.6",
        "3.6.1",
        "3.6.1-genericlinux-amd64",
        "go1.23.4",
        30,
        _FACADES_36,
    ),
    # python-libjuju has no 4.x (its major must match the controller's): the jubilant driver
    # alone talks to a 4.0 world, so its API serves no facades.
    "4.0": Persona(
        "4.0",
        "4.0.1",
        "4.0.1-genericlinux-amd64",
        "go1.24.6",
        30,
        {},
    ),
}


def persona(series: str) -> Persona:
    if series not in PERSONAS:
        raise SystemExit(f"no such Juju for a world: {series!r} (choose {', '.join(PERSONAS)})")
    return PERSONAS[series]
