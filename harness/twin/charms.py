"""The charms the twin can run: a charm class, its metadata, and what it needs around a hook.

Metadata is read once per charm (not per hook): a full ``charmcraft.yaml`` dict, which
``ops.testing.Context`` splits into metadata, config and actions itself.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import ops
import yaml

from harness.common.errors import HarnessError
from harness.twin.charm_modules import CharmModules
from harness.twin.image import Image
from harness.twin.workload import ExecHandlers

# Wraps one hook run of one unit: the twin passes the unit's context and gets back a
# context manager that sets up whatever that charm needs (patched clients, time).
AroundHook = Callable[["HookEnv"], AbstractContextManager[None]]


@dataclass(frozen=True)
class HookEnv:
    """What a charm-specific wrapper may need to know about the hook it wraps."""

    app: str
    unit: str
    now: str  # ISO 8601 UTC, from the twin's clock
    trusted: bool
    patch_template: Callable[[str, Mapping[str, str]], None]  # (statefulset, annotations)


@dataclass(frozen=True)
class CharmSource:
    """A charm the twin deploys: its class and its charmcraft.yaml (as a dict).

    ``images`` gives each container's image (default: a Linux image's usual
    directories); ``exec_handlers`` the workload's behaviour per container and command
    prefix (see ``harness.twin.workload``). A ``simulated_stand_in`` is a charm written
    for the twin in place of one it cannot run; everything about it says so.
    """

    name: str
    charm_type: type[ops.CharmBase]
    meta: Mapping[str, Any]
    around_hook: AroundHook | None = None
    simulated_stand_in: bool = False
    # Where things live in the charm container (the probe reads PROBE_ROOTFS for it).
    env: Mapping[str, str] = field(default_factory=dict)
    images: Mapping[str, Image] = field(default_factory=dict)
    exec_handlers: ExecHandlers = field(default_factory=dict)
    # The charm's source folder: what Juju unpacks into each new pod's charm directory.
    directory: Path | None = None
    # Its own modules (src/, lib/), switched in around each hook (``charm_modules``).
    modules: CharmModules | None = field(default=None, compare=False, repr=False)

    @property
    def containers(self) -> tuple[str, ...]:
        return tuple(self.meta.get("containers") or {})

    @property
    def storages(self) -> tuple[str, ...]:
        return tuple(self.meta.get("storage") or {})

    def storage_mounts(self, container: str) -> tuple[tuple[str, str], ...]:
        """(storage, location) pairs mounted into a workload container."""
        spec = (self.meta.get("containers") or {}).get(container) or {}
        return tuple(
            (str(m["storage"]), str(m["location"]))
            for m in spec.get("mounts") or ()
            if "storage" in m and "location" in m
        )

    def endpoint(self, name: str) -> tuple[str, str] | None:
        """(role, interface) of an endpoint: role is provides, requires or peers."""
        for role in ("provides", "requires", "peers"):
            spec = (self.meta.get(role) or {}).get(name)
            if spec is not None:
                return role, str(spec["interface"])
        return None

    @property
    def peers(self) -> tuple[tuple[str, str], ...]:
        return tuple((n, str(s["interface"])) for n, s in (self.meta.get("peers") or {}).items())

    def config_value(self, key: str, text: str) -> str | int | float | bool:
        """A config value given as text (as the ports take it) in the option's type."""
        options = (self.meta.get("config") or {}).get("options") or {}
        if key not in options:
            known = ", ".join(sorted(options)) or "none"
            raise HarnessError(f"{self.name} has no config option {key!r}", f"use one of: {known}")
        kind = options[key].get("type", "string")
        try:
            if kind == "int":
                return int(text)
            if kind == "float":
                return float(text)
            if kind == "boolean":
                if text.lower() not in ("true", "false"):
                    raise ValueError(text)
                return text.lower() == "true"
        except ValueError:
            raise HarnessError(
                f"config {key}={text!r} is not a {kind}", f"give {key} a {kind} value"
            ) from None
        return text


PROBE_DIR_ENV = "PROBE_CHARM_DIR"


def repo_root() -> Path:
    """The checkout this package lives in (charms/probe sits beside harness/)."""
    return Path(__file__).resolve().parents[2]


def packaged_probe_dir() -> Path:
    """The probe's source as installed with the package (setup.py ships it)."""
    return Path(__file__).resolve().parents[1] / "probe_charm"


def default_probe_dir() -> Path:
    """Where the probe's source is: $PROBE_CHARM_DIR, the checkout, ./charms/probe, the package.

    A checkout (an editable install) has charms/probe beside harness/; tox installs a wheel
    and runs from the checkout; outside any checkout an installed wheel (a plain `pip
    install .`) carries its own copy as harness/probe_charm, so `repro run` works from any
    directory.
    """
    candidates = [
        Path(os.environ[PROBE_DIR_ENV]) if os.environ.get(PROBE_DIR_ENV) else None,
        repo_root() / "charms" / "probe",
        Path.cwd() / "charms" / "probe",
        packaged_probe_dir(),
    ]
    for candidate in candidates:
        if candidate is not None and (candidate / "src" / "charm.py").is_file():
            return candidate
    return repo_root() / "charms" / "probe"


@cache
def probe_source(probe_dir: Path | None = None) -> CharmSource:
    """The REAL probe charm: its class from src/charm.py and its charmcraft.yaml."""
    root = (probe_dir or default_probe_dir()).resolve()
    charmcraft = root / "charmcraft.yaml"
    if not (root / "src" / "charm.py").is_file() or not charmcraft.is_file():
        raise HarnessError(
            f"the probe charm is not at {root}",
            "reinstall the harness (pip install .), or point at charms/probe of a checkout: "
            f"repro --probe-charm DIR, ${PROBE_DIR_ENV}, or make_lab(probe_dir=...)",
        )
    modules = CharmModules((root / "src", root / "lib"))
    with modules.active():  # charm.py imports its sibling modules by name
        module = _load_module(root / "src" / "charm.py")
        around = _probe_around_hook(module)
    charm_type = getattr(module, "ProbeCharm", None)
    if charm_type is None or not issubclass(charm_type, ops.CharmBase):
        raise HarnessError(f"{root}/src/charm.py has no ProbeCharm", "check the probe charm")
    meta = yaml.safe_load(charmcraft.read_text())
    return CharmSource(
        "probe", charm_type, meta, around_hook=around, directory=root, modules=modules
    )


def _load_module(path: Path) -> Any:
    """The probe's charm.py as a module: ``charm`` when that is already this file, else
    under its own name, so a charm author's own ``charm`` module is never taken for it."""
    loaded = sys.modules.get("charm")
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == path:
        return loaded
    spec = importlib.util.spec_from_file_location("harness_twin_probe_charm", path)
    if spec is None or spec.loader is None:
        raise HarnessError(f"cannot load {path}", "check the probe charm's source")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _probe_around_hook(charm_module: Any) -> AroundHook:
    """Give the probe the twin's clock and a Kubernetes client that reaches the twin.

    The probe patches its own StatefulSet through ``template_patch.make_client()``; a real
    client cannot reach a simulated cluster, so the twin hands it an object with the same
    ``patch`` that applies the patch to the twin (or answers 403 when the application is
    not trusted, as Kubernetes would).
    """
    template_patch: Any = importlib.import_module("template_patch")

    @contextmanager
    def around(env: HookEnv) -> Iterator[None]:
        saved_now = getattr(charm_module, "_now", None)
        saved_client = template_patch.make_client
        charm_module._now = lambda: env.now
        template_patch.make_client = lambda: TwinClient(env)
        try:
            yield
        finally:
            if saved_now is not None:
                charm_module._now = saved_now
            template_patch.make_client = saved_client

    return around


class TwinClient:
    """The one ``lightkube.Client`` call the probe makes, against the twin."""

    def __init__(self, env: HookEnv) -> None:
        self._env = env

    def patch(self, res: Any, name: str, obj: Any, *, namespace: str | None = None) -> None:
        from lightkube.core import generic_client
        from lightkube.core.exceptions import ApiError

        if not self._env.trusted:
            # The answer a real API server sends, as lightkube receives it (over httpx up to
            # lightkube 0.22, httpx2 from 1.0): ApiError reads code and reason from its body.
            http: Any = vars(generic_client)["httpx"]  # the module lightkube itself uses
            request = http.Request("PATCH", f"https://kubernetes.default.svc/{name}")
            body = {
                "kind": "Status",
                "status": "Failure",
                "reason": "Forbidden",
                "code": 403,
                "message": f"(simulated) statefulsets.apps {name!r} is forbidden: "
                "application not trusted",
            }
            raise ApiError(
                request=request, response=http.Response(403, json=body, request=request)
            )
        annotations = obj["spec"]["template"]["metadata"]["annotations"]
        self._env.patch_template(name, {str(k): str(v) for k, v in annotations.items()})
