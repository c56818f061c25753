"""Which Juju version the catalogue judges a version as, and what a reader must know.

    >>> from harness.catalogue import load
    >>> judged = judged_juju("2.9", load())
    >>> str(judged.version)
    '2.9.43'
    >>> str(judged_juju("2.9.0", load()).version), judged_juju("3.6", load()).notes
    ('2.9.0', ())
    >>> str(judged_juju("3.3", load()).version), judged_juju("3.3", load()).notes
    ('3.3.0', ())

A bare track (``2.9``) means what a person installs from it: its newest release, as the
snap channel ``2.9/stable`` gives it. The catalogue judges a track's releases alike from
its last boundary inside that track on (for 2.9: 2.9.43), so the track is judged as that
release, and a note says so. A track with no boundary inside it (3.6) is judged alike from
its first release, so nothing needs saying. A version in a Juju series past those the
catalogue's ranges name (``9.9``) is judged by its newest range: an extrapolation, said
wherever the judgement is shown. A version older than the catalogue covers is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.catalogue.catalogue import Catalogue
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion

_TRACK = re.compile(r"v?\d+\.\d+")


@dataclass(frozen=True)
class JudgedJuju:
    """The version the catalogue is consulted for, and what to say about it: the track it
    was taken from, and whether the catalogue only extrapolates to it."""

    version: JujuVersion
    track: str | None = None
    extrapolation: str | None = None

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(note for note in (self.track, self.extrapolation) if note)


def judged_juju(given: str, catalogue: Catalogue) -> JudgedJuju:
    """``given`` (``2.9``, ``2.9.43``, ``3.0-beta4``) as the catalogue judges it."""
    version = JujuVersion.parse(given)
    lowest = catalogue.boundaries()[0]
    if version < lowest:
        raise HarnessError(
            f"the catalogue cannot judge Juju {given}: it covers Juju "
            f"{lowest.major}.{lowest.minor} and later",
            f"pass --juju {lowest.major}.{lowest.minor} or newer",
        )
    track = None
    if _TRACK.fullmatch(given.strip()):
        same = (version.major, version.minor)
        # Past its .0 release: a boundary at a pre-release (3.3-beta1) comes before all of
        # the track's releases, so the track is judged alike from its first release on.
        inside = [b for b in catalogue.boundaries() if (b.major, b.minor) == same and b > version]
        if inside:
            version = max(inside)
            name = f"{version.major}.{version.minor}"
            track = (
                f"Juju {name} is a track: taken as its newest release (what the snap channel "
                f"{name}/stable installs), judged as {version}: the catalogue judges every "
                f"{name} release from {version} on alike"
            )
    return JudgedJuju(version, track, extrapolated(version, catalogue, given))


def extrapolated(version: JujuVersion, catalogue: Catalogue, given: str = "") -> str | None:
    """The note for a version past every version the catalogue's ranges name."""
    return catalogue.extrapolation(version, given or None)
