"""What the harness needs from a charm's metadata: containers, their mounts, storage, endpoints,
and which config options hold a secret.

Read from the places a charm's metadata can be before anything is deployed:

- a packed ``.charm`` (a zip: ``metadata.yaml``, or ``charmcraft.yaml`` in the unified format;
  its options in ``config.yaml``, or ``charmcraft.yaml``'s ``config``);
- a charm's source directory (the same files);
- Charmhub, for a charm given by name: the public info endpoint that ``juju info`` and
  charmcraft use, ``GET /v2/charms/info/<name>?channel=...&fields=default-release.revision.
  metadata-yaml`` (juju ``charmhub/transport/info.go``; the charmhub.io site asks for the
  same field, and for ``config-yaml`` on a charm's configuration page). ``default-release``
  is the release on the channel asked for.

An option of ``type: secret`` (Juju 3.1+, charmcraft's ``config.options``) takes a user
secret's URI: the evidence never shows its value (``harness.common.redact``).

Only the live backend asks Charmhub; tests hand in a fetcher. Nothing past this module sees
raw YAML.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from harness.common.errors import EnvironmentUnavailable, HarnessError

CHARMHUB_URL = "https://api.charmhub.io"
# The charm container is always there; Juju mounts the charm-data EmptyDir at /var/lib/juju.
CHARM_CONTAINER = "charm"
CHARM_DATA = "/var/lib/juju"

Role = str  # "provides" | "requires" | "peers"


@dataclass(frozen=True)
class Container:
    name: str
    mounts: tuple[tuple[str, str], ...] = ()  # (storage, location)


IMPLIED = "implied by "
"""How the ``source`` of metadata the harness invented from a bundle begins."""


@dataclass(frozen=True)
class CharmMeta:
    """One charm's metadata, as far as the harness uses it. ``source`` says where it was read."""

    name: str
    containers: tuple[Container, ...] = ()
    storage: Mapping[str, str] = field(default_factory=dict)  # name -> type
    endpoints: Mapping[str, tuple[Role, str]] = field(default_factory=dict)  # -> (role, iface)
    source: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    secret_options: frozenset[str] = frozenset()  # config options of type: secret

    @property
    def sidecar(self) -> bool:
        """A sidecar charm declares containers; a podspec or machine charm does not."""
        return bool(self.containers)

    @property
    def implied(self) -> bool:
        """Whether the harness invented it from the bundle (no charm metadata was at hand)."""
        return self.source.startswith(IMPLIED)

    @property
    def container_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.containers)

    def container(self, name: str) -> Container | None:
        return next((c for c in self.containers if c.name == name), None)

    def endpoint(self, name: str) -> tuple[Role, str] | None:
        return self.endpoints.get(name)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], source: str) -> CharmMeta:
        """From ``metadata.yaml`` or a unified ``charmcraft.yaml`` (same keys)."""
        if not isinstance(raw, Mapping) or not raw.get("name"):
            raise HarnessError(f"{source} has no charm name", "point at a charm's metadata")
        containers = []
        for name, spec in sorted((raw.get("containers") or {}).items()):
            mounts = tuple(
                (str(m["storage"]), str(m["location"]))
                for m in (spec or {}).get("mounts") or ()
                if isinstance(m, Mapping) and "storage" in m and "location" in m
            )
            containers.append(Container(str(name), mounts))
        endpoints: dict[str, tuple[Role, str]] = {}
        for role in ("provides", "requires", "peers"):
            for name, spec in (raw.get(role) or {}).items():
                endpoints[str(name)] = (role, str((spec or {}).get("interface", "")))
        storage = {
            str(name): str((spec or {}).get("type", "filesystem"))
            for name, spec in (raw.get("storage") or {}).items()
        }
        return cls(
            name=str(raw["name"]),
            containers=tuple(containers),
            storage=storage,
            endpoints=endpoints,
            source=source,
            raw=dict(raw),
            secret_options=secret_options(raw.get("config")),
        )

    def with_config(self, config: object) -> CharmMeta:
        """With the secret options of a ``config.yaml`` read beside the metadata."""
        return replace(self, secret_options=self.secret_options | secret_options(config))


def secret_options(config: object) -> frozenset[str]:
    """The options of ``type: secret`` in a charm's config (``{options: {name: {type}}}``)."""
    options = config.get("options") if isinstance(config, Mapping) else None
    if not isinstance(options, Mapping):
        return frozenset()
    return frozenset(
        str(name)
        for name, spec in options.items()
        if isinstance(spec, Mapping) and spec.get("type") == "secret"
    )


def _config(text: str) -> object:
    """A config.yaml's content; one that is not YAML declares nothing here (Juju refuses it
    when the charm is deployed, with its own message)."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _parse(text: str, source: str) -> CharmMeta:
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise HarnessError(f"{source} is not YAML{where}", "fix the charm's metadata") from None
    return CharmMeta.from_dict(raw if isinstance(raw, Mapping) else {}, source)


def read_charm_file(path: Path) -> CharmMeta:
    """A packed ``.charm``: its metadata.yaml (charmcraft writes it), else charmcraft.yaml."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            config = None
            if "config.yaml" in names:
                config = _config(archive.read("config.yaml").decode("utf-8", "replace"))
            for member in ("metadata.yaml", "charmcraft.yaml"):
                if member in names:
                    text = archive.read(member).decode("utf-8")
                    return _parse(text, f"{path.name}:{member}").with_config(config)
    except (zipfile.BadZipFile, OSError) as exc:
        raise HarnessError(
            f"{path} is not a packed charm ({exc})", "pass a .charm built by charmcraft pack"
        ) from None
    raise HarnessError(
        f"{path} has no metadata.yaml or charmcraft.yaml", "pass a .charm built by charmcraft"
    )


def read_charm_dir(path: Path) -> CharmMeta:
    """A charm's source directory: metadata.yaml, else a unified charmcraft.yaml."""
    for name in ("metadata.yaml", "charmcraft.yaml"):
        file = path / name
        if file.is_file():
            meta = _parse(file.read_text(encoding="utf-8"), f"{path.name}/{name}")
            if name == "metadata.yaml" or meta.raw.get("containers") or meta.endpoints:
                return meta.with_config(_dir_config(path))
    raise HarnessError(
        f"{path} has no metadata.yaml or charmcraft.yaml with the charm's metadata",
        "pass the charm's source directory (the one with src/charm.py)",
    )


def _dir_config(path: Path) -> dict[str, Any]:
    """The options of a charm's source directory: its config.yaml's and those of its
    charmcraft.yaml's ``config`` (charmcraft refuses a key in both)."""
    options: dict[str, Any] = {}
    for name, part in (("config.yaml", None), ("charmcraft.yaml", "config")):
        file = path / name
        if not file.is_file():
            continue
        found = _config(file.read_text(encoding="utf-8", errors="replace"))
        if part is not None:
            found = found.get(part) if isinstance(found, Mapping) else None
        listed = found.get("options") if isinstance(found, Mapping) else None
        if isinstance(listed, Mapping):
            options.update(listed)
    return {"options": options}


def read_local(path: Path) -> CharmMeta:
    if path.is_dir():
        return read_charm_dir(path)
    return read_charm_file(path)


# --- Charmhub --------------------------------------------------------------------------

Fetch = Callable[[str], bytes]  # URL -> response body


def _urlopen(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "juju-lifecycle-harness"})
    with urllib.request.urlopen(request, timeout=30) as response:
        body: bytes = response.read()
        return body


def charmhub_info_url(name: str, channel: str | None = None) -> str:
    fields = ("metadata-yaml", "config-yaml", "revision")
    query = {"fields": ",".join(f"default-release.revision.{field}" for field in fields)}
    if channel:
        query["channel"] = channel
    return (
        f"{CHARMHUB_URL}/v2/charms/info/{urllib.parse.quote(name)}?{urllib.parse.urlencode(query)}"
    )


def read_charmhub(name: str, channel: str | None = None, fetch: Fetch | None = None) -> CharmMeta:
    """The metadata of ``name`` on ``channel`` as Charmhub serves it."""
    url = charmhub_info_url(name, channel)
    try:
        body = (fetch or _urlopen)(url)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise HarnessError(
                f"Charmhub has no charm {name!r}" + (f" on channel {channel}" if channel else ""),
                "check the charm name and channel in the bundle",
            ) from None
        raise EnvironmentUnavailable(
            f"Charmhub answered {exc.code} for {name}", "retry, or pass --charm-source"
        ) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise EnvironmentUnavailable(
            f"cannot reach Charmhub for {name}'s metadata ({reason})",
            f"pass --charm-source {name}=DIR with the charm's source, or use a local .charm",
        ) from None
    try:
        data = json.loads(body)
        revision = data["default-release"]["revision"]
        text = revision["metadata-yaml"]
    except (ValueError, KeyError, TypeError):
        raise HarnessError(
            f"Charmhub's answer for {name} has no metadata", "pass --charm-source APP=DIR"
        ) from None
    where = f"charmhub:{name}" + (f"@{channel}" if channel else "")
    config = revision.get("config-yaml") if isinstance(revision, Mapping) else None
    return _parse(str(text), where).with_config(_config(config) if config else None)


def is_under(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or inside it (POSIX paths, no symlinks resolved)."""
    p, r = PurePosixPath(path), PurePosixPath(root)
    return p == r or r in p.parents
