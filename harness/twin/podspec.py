"""A SIMULATED podspec application: the podspec probe's real code under ops' Harness, an
operator pod that stays, and a workload StatefulSet (or Deployment) whose pods roll when
the leader's pod spec changes.

What it models is the catalogue's ``pod-spec-set`` entry, read from Juju 2.9 and 3.6
source: every hook runs in the operator pod (``<app>-operator-0``), a spec change re-applies
the workload pods, Kubernetes replaces them one at a time from the highest ordinal, no hook
runs for a new pod ("remote init" only), and units are keyed to pods as the controller's
``updateUnitsFromCloud`` keys them since juju PR 10270 (``UnitKeying``). ops.testing's
Context does not implement pod-spec-set, so the charm runs under ``ops.testing.Harness``,
which records the spec. One unit, the leader, as in the seed. Nothing here is evidence of
what a real Juju does.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness.common.errors import HarnessError

PODSPEC_DIR_ENV = "PODSPEC_PROBE_CHARM_DIR"
# SIMULATED pod timings, in seconds: terminating, absent, pending before Running.
TERMINATING, ABSENT, PENDING = 3.0, 1.0, 2.0


@dataclass(frozen=True)
class Pod:
    name: str
    uid: str
    phase: str  # Pending, Running, Terminating

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "uid": self.uid, "phase": self.phase}


@dataclass(frozen=True)
class Sample:
    """What the unit list and the workload pods were at one moment of the roll."""

    at: float  # seconds since the disruption (simulated)
    units: tuple[str, ...]
    pods: tuple[Pod, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "at": round(self.at, 3),
            "units": list(self.units),
            "pods": [p.to_json() for p in self.pods],
        }


@dataclass
class UnitKeying:
    """Which unit each workload pod is, as Juju 2.9/3.6's unit provisioner decides.

    A StatefulSet pod's provider id is its name, any other pod's its uid
    (caas/kubernetes/provider/k8s.go providerID). An update that reports no pod while the
    scale is above zero is ignored (juju PR 10270: ``ignore_empty``); a unit whose provider
    id left the cloud is destroyed unless it is stateful; a pod no unit holds becomes a new
    unit (apiserver/facades/controller/caasunitprovisioner/provisioner.go).
    """

    app: str
    stateful: bool
    scale: int
    ignore_empty: bool = True
    units: dict[str, str | None] = field(default_factory=dict)  # unit -> provider id
    _next: int = 0

    def update(self, pods: Sequence[Pod]) -> None:
        if self.ignore_empty and self.scale > 0 and not pods:
            return
        seen = {pod.name if self.stateful else pod.uid for pod in pods}
        for unit, provider in list(self.units.items()):
            if provider is not None and provider not in seen and not self.stateful:
                del self.units[unit]
            elif provider is not None and provider not in seen and not pods:
                del self.units[unit]  # before PR 10270: an empty update removed them all
        held = set(self.units.values())
        for provider in sorted(seen - held):
            waiting = next((u for u, p in self.units.items() if p is None), None)
            if waiting is None:
                waiting = f"{self.app}/{self._next}"
                self._next += 1
            self.units[waiting] = provider

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self.units, key=lambda u: int(u.rsplit("/", 1)[1])))


@dataclass
class Workload:
    """The workload pods of one podspec app and the clock of their roll (SIMULATED)."""

    app: str
    stateful: bool
    keying: UnitKeying
    pods: list[Pod] = field(default_factory=list)
    now: float = 0.0
    samples: list[Sample] = field(default_factory=list)
    _uids: int = 0

    def _pod(self, ordinal: int, phase: str) -> Pod:
        self._uids += 1
        name = f"{self.app}-{ordinal}" if self.stateful else f"{self.app}-6d5f7c-{self._uids:05d}"
        return Pod(name, f"simulated-uid-{self._uids:04d}", phase)

    def start(self, replicas: int) -> None:
        self.pods = [self._pod(n, "Running") for n in range(replicas)]
        self.keying.update(self.pods)

    def roll(self, every: float) -> None:
        """Replace every pod, highest ordinal first, one at a time; sample every ``every``."""
        self._sample()
        for index in reversed(range(len(self.pods))):
            old = self.pods[index]
            self._set(index, Pod(old.name, old.uid, "Terminating"))
            self._wait(TERMINATING, every)
            self.pods.pop(index)
            self.keying.update(self.pods)  # one pod fewer: with one unit, zero pods
            self._wait(ABSENT, every)
            new = self._pod(index, "Pending")
            self.pods.insert(index, new)
            self.keying.update(self.pods)
            self._wait(PENDING, every)
            self._set(index, Pod(new.name, new.uid, "Running"))
        self._wait(every, every)

    def _set(self, index: int, pod: Pod) -> None:
        self.pods[index] = pod
        self.keying.update(self.pods)

    def _wait(self, seconds: float, every: float) -> None:
        end = self.now + seconds
        while self.now + every <= end + 1e-9:
            self.now += every
            self._sample()
        self.now = end

    def _sample(self) -> None:
        self.samples.append(Sample(self.now, self.keying.names, tuple(self.pods)))


def podspec_probe_dir() -> Path:
    """The podspec probe's source: $PODSPEC_PROBE_CHARM_DIR, the checkout, or the package."""
    here = Path(__file__).resolve().parents[2]
    candidates = [
        Path(os.environ[PODSPEC_DIR_ENV]) if os.environ.get(PODSPEC_DIR_ENV) else None,
        here / "charms" / "podspec-probe",
        Path.cwd() / "charms" / "podspec-probe",
        Path(__file__).resolve().parents[1] / "podspec_probe_charm",
    ]
    for candidate in candidates:
        if candidate is not None and (candidate / "src" / "charm.py").is_file():
            return candidate
    raise HarnessError(
        "the podspec probe's source was not found",
        f"run from a checkout, or set {PODSPEC_DIR_ENV} to charms/podspec-probe",
    )


def _charm_class(source: Path) -> type[Any]:
    src = str(source / "src")
    if src not in sys.path:
        sys.path.insert(0, src)  # its helpers have names of their own (podspec_*)
    name = "harness_twin_podspec_probe_charm"
    spec = importlib.util.spec_from_file_location(name, source / "src" / "charm.py")
    if spec is None or spec.loader is None:
        raise HarnessError(f"cannot load {source / 'src' / 'charm.py'}", "check the checkout")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # the Harness finds the charm's directory through it
    spec.loader.exec_module(module)
    found: type[Any] = module.PodspecProbeCharm
    return found


@dataclass
class PodspecApp:
    """The podspec probe, one unit (the leader), related to the sidecar probe's probe/0."""

    source: Path
    charm_dir: Path
    harness: Any = None
    relation_id: int = 0
    stateful: bool = True

    @classmethod
    def deploy(cls, source: Path, charm_dir: Path, image: str) -> PodspecApp:
        from ops.testing import Harness

        meta_text = (source / "metadata.yaml").read_text(encoding="utf-8")
        project = yaml.safe_load((source / "charmcraft.yaml").read_text(encoding="utf-8"))
        meta = yaml.safe_load(meta_text)
        deployment = (meta.get("deployment") or {}).get("type")
        stateful = deployment == "stateful" or bool(meta.get("storage"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PendingDeprecationWarning)  # Harness: see above
            harness = Harness(
                _charm_class(source),
                meta=meta_text,
                actions=yaml.safe_dump(project.get("actions") or {}),
                config=yaml.safe_dump(project.get("config") or {}),
            )
        charm_dir.mkdir(parents=True, exist_ok=True)
        harness.framework.charm_dir = charm_dir
        harness.add_oci_resource("workload-image", {"registrypath": image})
        harness.set_leader(True)
        harness.begin_with_initial_hooks()
        app = cls(source, charm_dir, harness, stateful=stateful)
        app.relation_id = harness.add_relation("probe-requirer", "probe")
        harness.add_relation_unit(app.relation_id, "probe/0")
        return app

    @property
    def name(self) -> str:
        return str(self.harness.model.app.name)

    @property
    def unit(self) -> str:
        return str(self.harness.model.unit.name)

    def spec(self) -> Mapping[str, Any] | None:
        found = self.harness.get_pod_spec()
        return None if found is None else found[0]

    def set_remote(self, owner: str, data: Mapping[str, str]) -> None:
        """What the sidecar probe writes (its set-databag action), in the twin."""
        self.harness.update_relation_data(self.relation_id, owner, dict(data))

    def config(self, key: str, value: str) -> None:
        self.harness.update_config({key: value})

    def databags(self) -> dict[str, dict[str, str]]:
        """Every databag of the relation, both sides, by owner."""
        owners = (self.unit, self.name, "probe/0", "probe")
        return {o: dict(self.harness.get_relation_data(self.relation_id, o)) for o in owners}

    def journal(self) -> list[dict[str, Any]]:
        # The charm's own reader, on sys.path since the charm was loaded.
        reader = importlib.import_module("podspec_journal")
        found: list[dict[str, Any]] = reader.read(self.charm_dir / reader.JOURNAL_FILE)
        return found

    def close(self) -> None:
        self.harness.cleanup()


def samples_json(samples: Sequence[Sample]) -> Iterator[dict[str, Any]]:
    return (s.to_json() for s in samples)
