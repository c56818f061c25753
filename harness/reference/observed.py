"""Live evidence for the reference: which bundles count as Juju observed, and what they say.

Only a finished run of the live backend counts. A bundle from the twin (``simulated``),
from a rehearsal (a run of the live path against stand-in servers: any ``rehearsal`` key
or name in the bundle), a run that stopped part-way or was interrupted, or one whose Juju
version was not recorded is set aside with the reason, and its cell stays "from source,
not yet observed". The newest run of each scenario on each (Juju, MicroK8s) pair is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.common.errors import HarnessError
from harness.common.times import parse_instant
from harness.common.versions import JujuVersion
from harness.evidence.bundle import bundle_file, read_bundle
from harness.evidence.matrix import disruption_of
from harness.evidence.model import BUNDLE_FILE, Evidence

_MICROK8S = re.compile(r"v?(\d+)\.(\d+)")
_REHEARSAL = "rehears"


@dataclass(frozen=True)
class ObservedRun:
    """One finished live run: where it was seen, and how it compares with the catalogue."""

    slug: str  # its name on the site: evidence-<slug>.html
    scenario: str
    disruption: str
    juju: JujuVersion
    juju_text: str  # as recorded: 3.6.12
    microk8s: str | None  # 1.34
    date: str | None  # 2026-12-02
    started: str  # the first step's time, for "newest"
    evidence: Evidence
    folder: Path

    @property
    def says(self) -> str:
        """``Observed on Juju 3.6.12, MicroK8s 1.34 on 2026-12-02``."""
        microk8s = f"MicroK8s {self.microk8s}" if self.microk8s else "MicroK8s (not recorded)"
        date = f"on {self.date}" if self.date else "on a date not recorded"
        return f"Observed on Juju {self.juju_text}, {microk8s} {date}"

    @property
    def deviations(self) -> int:
        return self.evidence.count("deviation")

    @property
    def agreement(self) -> str:
        """``agrees with the catalogue`` or ``2 findings differ from the catalogue``."""
        if self.deviations:
            plural = "s differ" if self.deviations > 1 else " differs"
            return f"{self.deviations} finding{plural} from the catalogue"
        bugs = self.evidence.count("known-bug")
        return "agrees with the catalogue" + (f" ({bugs} known bug)" if bugs else "")


@dataclass(frozen=True)
class SetAside:
    """A bundle that does not count as observed, and why (for the command's output)."""

    path: Path
    reason: str


@dataclass(frozen=True)
class Gathered:
    runs: tuple[ObservedRun, ...]  # newest first within each cell's key
    set_aside: tuple[SetAside, ...]


def bundles_under(folders: Iterable[Path | str]) -> list[Path]:
    """Every bundle.json under each folder (or the file itself); a missing folder is an error.

    A folder with no bundle in it is not: the workflow passes whatever live evidence it
    could download, possibly none.
    """
    found: set[Path] = set()
    for folder in folders:
        path = Path(folder)
        if path.is_file() and path.name == BUNDLE_FILE:
            found.add(path.resolve())
        elif path.is_dir():
            found |= {p.resolve() for p in path.rglob(BUNDLE_FILE) if p.is_file()}
        else:
            what = "is a file, not a folder of bundles" if path.exists() else "does not exist"
            raise HarnessError(
                f"--evidence {folder} {what}", "pass folders that hold live evidence bundles"
            )
    return sorted(found)


def gather(folders: Iterable[Path | str]) -> Gathered:
    """The observed runs in ``folders``, and every bundle set aside with its reason."""
    kept: dict[tuple[str, str, str], ObservedRun] = {}
    set_aside: list[SetAside] = []
    for path in bundles_under(folders):
        try:
            run = observed_run(path)
        except HarnessError as error:
            set_aside.append(SetAside(path, error.problem))
            continue
        key = (run.scenario, run.juju_text, run.microk8s or "")
        current = kept.get(key)
        if current is None or (run.started, run.slug) > (current.started, current.slug):
            kept[key] = run
    runs = sorted(kept.values(), key=lambda r: (r.disruption, r.juju, r.started, r.slug))
    return Gathered(tuple(runs), tuple(set_aside))


def observed_run(path: Path) -> ObservedRun:
    """The run recorded at ``path``; HarnessError saying why when it does not count."""
    evidence = read_bundle(path)
    raw = _raw(path)
    if evidence.simulated or evidence.backend != "live":
        raise HarnessError("simulated (the twin): never evidence of what Juju did")
    if _rehearsal(raw):
        raise HarnessError("a rehearsal: the live path against stand-ins, not Juju")
    if evidence.interrupted or evidence.error is not None:
        raise HarnessError(f"the run did not finish: {evidence.error or 'interrupted'}")
    versions = evidence.versions
    recorded = versions.juju_agent or versions.juju_controller or evidence.juju_version
    if not recorded:
        raise HarnessError("no Juju version recorded")
    try:
        juju = JujuVersion.parse(recorded)
    except ValueError:
        raise HarnessError(f"Juju version {recorded!r} cannot be read") from None
    juju_text = recorded.split("-", 1)[0] if re.match(r"^\d", recorded) else str(juju)
    microk8s = _microk8s(versions.microk8s)
    started = _started(evidence)
    date = started[:10] if parse_instant(started) else None
    disruption = disruption_of(evidence)
    slug = _slug(f"{evidence.scenario}-juju-{juju_text}-microk8s-{microk8s or 'unknown'}")
    return ObservedRun(
        slug=slug,
        scenario=evidence.scenario,
        disruption=disruption,
        juju=juju,
        juju_text=juju_text,
        microk8s=microk8s,
        date=date,
        started=started,
        evidence=evidence,
        folder=path.parent,
    )


def _raw(path: Path) -> Mapping[str, Any]:
    # read_bundle has validated it already: it is a JSON object.
    data = json.loads(bundle_file(path).read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _rehearsal(raw: Mapping[str, Any]) -> bool:
    """Any key naming a rehearsal with a true value, or a name that says rehearsal."""
    for key, value in raw.items():
        if _REHEARSAL in str(key).lower() and value not in (None, False, "", 0):
            return True
    versions = raw.get("versions") or {}
    named = [raw.get("backend"), raw.get("scenario"), versions.get("juju_driver")]
    return any(_REHEARSAL in str(text).lower() for text in named if text)


def _microk8s(text: str | None) -> str | None:
    """``MicroK8s v1.34.2 revision 8200`` -> ``1.34``."""
    match = _MICROK8S.search(text or "")
    return f"{match.group(1)}.{match.group(2)}" if match else None


def _started(evidence: Evidence) -> str:
    if evidence.steps:
        return evidence.steps[0].start
    if evidence.before is not None:
        return evidence.before.taken_at
    return ""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")
