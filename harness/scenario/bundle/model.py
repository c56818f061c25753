"""A bundle as frozen values: its applications (``BundleApp``) and the file (``BundleSpec``).

Beside them, what every reader of a bundle shares: the app an ``app:endpoint`` names, and
the one-line error that refuses a bundle file before anything is deployed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harness.common.errors import HarnessError, UnknownName, choose_one_of
from harness.lab.ports import AppSpec

KUBERNETES = "kubernetes"


@dataclass(frozen=True)
class BundleApp:
    """One application of the bundle."""

    name: str
    charm: str  # as written in the bundle
    local_path: Path | None = None  # resolved, for a local charm
    channel: str | None = None
    revision: int | None = None
    base: str | None = None
    series: str | None = None
    trust: bool = False
    units: int = 1
    resources: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, str] = field(default_factory=dict)
    constraints: str | None = None
    storage: Mapping[str, str] = field(default_factory=dict)

    @property
    def local(self) -> bool:
        return self.local_path is not None

    @property
    def charmhub_name(self) -> str:
        """The name Charmhub knows: without ``ch:``, the schema Juju assumes when none is
        written (internal/charm/url.go ParseURL)."""
        return self.charm.removeprefix("ch:")

    def app_spec(self) -> AppSpec:
        return AppSpec(
            self.name,
            str(self.local_path) if self.local_path else self.charm,
            channel=None if self.local else self.channel,
            revision=None if self.local else self.revision,
            constraints=self.constraints,
            storage=dict(self.storage),
            trust=self.trust,
            units=self.units,
            config=dict(self.options),
            resources=dict(self.resources),
            base=self.base,
        )


@dataclass(frozen=True)
class BundleSpec:
    """A bundle file: where it is, its exact text and digest, its applications and relations."""

    path: Path
    text: str
    digest: str  # sha256 of the file's bytes
    name: str | None
    apps: tuple[BundleApp, ...]
    relations: tuple[tuple[str, str], ...]
    kubernetes: bool = True  # it says bundle: kubernetes
    # What Juju ignores or does with this bundle that the harness does not, one line each.
    notes: tuple[str, ...] = ()
    overlays: tuple[str, ...] = ()  # the overlay files' names (--overlay), in order

    @property
    def short_digest(self) -> str:
        return self.digest[:12]

    @property
    def label(self) -> str:
        """The bundle's name, else its file's (its folder's, for a plain bundle.yaml)."""
        if self.name:
            return self.name
        return self.path.parent.name if self.path.stem == "bundle" else self.path.stem

    @property
    def app_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.apps)

    @property
    def needs_trust(self) -> bool:
        return any(a.trust for a in self.apps)

    def app(self, name: str) -> BundleApp:
        for app in self.apps:
            if app.name == name:
                return app
        raise UnknownName(
            f"application {name!r} is not in bundle {self.path.name}",
            choose_one_of(name, self.app_names),
        )

    def relations_of(self, app: str) -> tuple[tuple[str, str], ...]:
        return tuple(r for r in self.relations if app in (app_of(r[0]), app_of(r[1])))

    def deploy_command(self) -> str:
        """``juju deploy`` of this file; a bundle with ``trust: true`` apps needs --trust."""
        overlays = "".join(f" --overlay ./{name}" for name in self.overlays)
        trust = " --trust" if self.needs_trust else ""
        return f"juju deploy ./{self.path.name}{trust}{overlays}"


def app_of(endpoint: str) -> str:
    return endpoint.partition(":")[0]


def bundle_error(path: Path, problem: str, fix: str) -> HarnessError:
    return HarnessError(f"bundle {path.name}: {problem}", fix)
