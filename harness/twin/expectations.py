"""Which catalogue entry the twin follows for a disruption, on its Juju version.

The branch chosen for the lab (``make_lab(variants=...)``), else for ``container-restart``
the one the restarted container gives (SIGTERM), else the main one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from harness.catalogue.model import Expectation
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion


def twin_version(text: str) -> JujuVersion:
    """The Juju version a test asked the twin to simulate; one line when it is not one."""
    try:
        return JujuVersion.parse(text)
    except ValueError:
        raise HarnessError(
            f"not a Juju version: {text!r}",
            "give juju_version= a version such as 3.6 or 2.9.43",
        ) from None


class ExpectationSource(Protocol):
    """``harness.catalogue.load().expect``, or a stand-in for tests."""

    def __call__(
        self,
        disruption: str,
        juju: JujuVersion,
        *,
        variant: str | None = None,
        container: str | None = None,
        signal: str | None = None,
    ) -> Expectation: ...


class Expectations:
    """The catalogue entries of one twin: its Juju version and the branches chosen for it."""

    def __init__(
        self,
        source: ExpectationSource,
        version: JujuVersion,
        variants: Mapping[str, str] | None = None,
    ) -> None:
        self._source = source
        self.version = version
        # disruption -> catalogued branch to follow instead of the main one
        self.variants = dict(variants or {})

    def expect(self, name: str, *, container: str | None = None) -> Expectation:
        """The catalogue entry for ``name``: the branch chosen with ``variants``, else for
        ``container-restart`` the one the container gives (SIGTERM), else the main one."""
        variant = self.variants.get(name)
        if container is not None and variant is None:
            return self._source(name, self.version, container=container)
        return self._source(name, self.version, variant=variant)

    def branch(self, name: str, variant: str) -> Expectation:
        """The catalogue entry for ``name``'s branch ``variant``, whatever the lab chose."""
        return self._source(name, self.version, variant=variant)
