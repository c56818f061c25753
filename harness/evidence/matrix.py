"""``repro matrix``: one Markdown table from many bundles (one per Juju version in CI).

Rows are disruption x Juju version; cells say which hooks ran, what survived on disk and in
relation data, and how many findings deviated from the catalogue. A run that stopped early
says so in its row. A bundle that cannot be read costs its own row only: it is listed under
the table with the reason, and the rest of the matrix is still built.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.common.counts import counted
from harness.common.errors import HarnessError
from harness.common.observations import ABSENT, FileState, Snapshot
from harness.common.versions import JujuVersion
from harness.evidence import markdown as md
from harness.evidence.bundle import read_bundle
from harness.evidence.model import BUNDLE_FILE, Evidence
from harness.verdict.file_survival import JUDGED_ON as WATCH_JUDGED_ON
from harness.verdict.file_survival import unchanged

NONE_OBSERVED = "(none observed)"


@dataclass(frozen=True)
class MatrixRow:
    disruption: str
    juju: str
    backend: str
    scenario: str
    hooks: str
    files: str
    relations: str
    deviations: int
    known_bugs: int
    incomplete: str | None = None  # why the run stopped early; None for a finished run
    charm_errors: int = 0  # findings whose verdict is charm-error (the charm's own bug)


@dataclass(frozen=True)
class Unreadable:
    """A bundle.json the matrix could not use, and why."""

    path: Path
    reason: str


def find_bundles(folders: Iterable[Path | str]) -> list[Path]:
    """Every bundle.json under each folder (or the file itself), sorted, without repeats."""
    found: set[Path] = set()
    for folder in folders:
        path = Path(folder)
        if path.is_file() and path.name == BUNDLE_FILE:
            found.add(path.resolve())
            continue
        if path.is_file():
            raise HarnessError(
                f"{folder} is a file, not a folder of bundles",
                "pass folders that hold bundle.json, or a bundle.json itself",
            )
        if not path.is_dir():
            raise HarnessError(f"no such folder: {folder}", "pass folders that hold bundle.json")
        here = {p.resolve() for p in path.rglob(BUNDLE_FILE) if p.is_file()}
        if not here:
            raise HarnessError(
                f"no {BUNDLE_FILE} under {folder}", "pass folders written by repro run or pytest"
            )
        found |= here
    return sorted(found)


def juju_of(evidence: Evidence) -> str:
    v = evidence.versions
    return evidence.juju_version or v.juju_agent or v.juju_controller or "unknown"


def disruption_of(evidence: Evidence) -> str:
    if evidence.disruption:
        return evidence.disruption
    from harness.scenario.scenarios import SCENARIOS

    return next((s.disruption for s in SCENARIOS if s.name == evidence.scenario), "unknown")


def _is_sequence_subject(subject: str) -> bool:
    return "/" in subject.split(" ", 1)[0] and " vs " not in subject


def _hooks_cell(evidence: Evidence) -> str:
    sequences: dict[str, str] = {}
    for finding in evidence.findings:
        # One sequence per "unit [source]"; known-bug checks ("LP#… unit [source]") and
        # source agreement ("unit [a vs b]") restate those sequences, so they are left out.
        if finding.check == "hooks" and _is_sequence_subject(finding.subject):
            sequences[finding.subject] = finding.observed
    if not sequences:
        per_unit: dict[str, list[str]] = {}
        for record in evidence.hooks:
            if record.kind == "hook" and record.hook and record.source != "journal":
                per_unit.setdefault(record.unit, []).append(record.hook)
        sequences = {unit: ", ".join(names) for unit, names in per_unit.items()}
    if not sequences:
        return NONE_OBSERVED
    distinct = set(sequences.values())
    if len(distinct) == 1 and len(sequences) > 1:
        return f"{distinct.pop() or '(none)'} ({counted(len(sequences), 'unit')})"
    return "\n".join(f"{unit}: {seq or '(none)'}" for unit, seq in sorted(sequences.items()))


def _files_cell(evidence: Evidence) -> str:
    """Kept/lost/changed per watched path; a path whose survival the verdict could not
    tell (a file the charm wrote again) is named as undetermined, never counted kept."""
    before, after = evidence.before, evidence.after
    if before is None or after is None:
        return "(not observed)"
    now = {(f.unit, f.container, f.path): f for f in after.files}
    present = [f for f in before.files if f.exists]
    if not present:
        return "(no files watched)"
    undetermined = {
        f.subject for f in evidence.findings if f.check == "file" and f.verdict == "undetermined"
    }

    def label(f: FileState) -> str:
        return f"{f.container}:{f.path}"

    def state(f: FileState) -> str:
        new = now.get((f.unit, f.container, f.path))
        if f"{f.unit} {label(f)}" in undetermined:
            return "undetermined"
        if new is None and after.unlisted(f.unit, f.container, f.path) is not None:
            return "undetermined"  # inside a folder the after snapshot could not list
        if new is None or new.digest == ABSENT:
            return "lost"
        return "kept" if unchanged(f, new) else "changed"

    states = [(f, state(f)) for f in present]
    kept = sum(1 for _, s in states if s == "kept")
    lost = sorted({label(f) for f, s in states if s == "lost"})
    unknown = sorted({label(f) for f, s in states if s == "undetermined"})
    changed = sum(1 for _, s in states if s == "changed")
    text = f"kept {kept}/{len(present)}"
    if lost:
        text += f"; lost {', '.join(lost)}"
    if changed:
        text += f"; {changed} changed"
    if unknown:
        text += f"; survival undetermined {', '.join(unknown)}"
    return text


def _layers_cell(evidence: Evidence) -> str:
    """Charm-dir and storage, as the probe's journal showed them (container root: above)."""
    from harness.evidence.report import layer_of

    seen: dict[str, set[str]] = {}
    for finding in evidence.findings:
        layer = layer_of(finding)
        # Watched files are in the files part of the cell already.
        if layer in ("charm-dir", "storage") and finding.detail != WATCH_JUDGED_ON:
            state = "kept" if finding.observed.startswith("survived") else "lost"
            seen.setdefault(layer, set()).add(state)
    parts = [f"{layer} {'/'.join(sorted(states))}" for layer, states in sorted(seen.items())]
    return f"; {', '.join(parts)} (probe journal)" if parts else ""


def _relations_cell(before: Snapshot | None, after: Snapshot | None) -> str:
    if before is None or after is None:
        return "(not observed)"
    if not before.relations:
        return "(no relations)"
    now = {(*b.key, b.scope): dict(b.data) for b in after.relations}
    kept = lost = changed = 0
    for bag in before.relations:
        data = now.get((*bag.key, bag.scope))
        if data is None:
            lost += 1
        elif data == dict(bag.data):
            kept += 1
        else:
            changed += 1
    text = f"kept {kept}/{len(before.relations)}"
    if changed:
        text += f"; {changed} changed"
    if lost:
        text += f"; {lost} lost"
    return text


def row_of(evidence: Evidence) -> MatrixRow:
    incomplete = None
    if not evidence.complete:
        incomplete = evidence.error or "interrupted"
    return MatrixRow(
        disruption=disruption_of(evidence),
        juju=juju_of(evidence),
        backend=_backend(evidence),
        scenario=evidence.scenario,
        hooks=_hooks_cell(evidence),
        files=_files_cell(evidence) + _layers_cell(evidence),
        relations=_relations_cell(evidence.before, evidence.after),
        deviations=evidence.count("deviation"),
        known_bugs=evidence.count("known-bug"),
        incomplete=incomplete,
        charm_errors=evidence.count("charm-error"),
    )


def _backend(evidence: Evidence) -> str:
    if evidence.simulated:
        return "twin (SIMULATED)"
    driver = evidence.versions.juju_driver
    return f"{evidence.backend} ({driver})" if driver else evidence.backend


def _series(juju: str) -> str:
    """``4.0.1`` -> ``4.0``: one column per Juju series."""
    try:
        v = JujuVersion.parse(juju)
    except ValueError:
        return juju
    return f"{v.major}.{v.minor}"


def _by_series(rows: Sequence[MatrixRow]) -> list[str]:
    """Disruption rows x one column per Juju series (2.9, 3.6, 4.0, ...), hooks in each cell."""
    series = sorted({_series(r.juju) for r in rows}, key=_version_key)
    cells: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        outcome = "INCOMPLETE" if r.incomplete is not None else counted(r.deviations, "deviation")
        if r.charm_errors:
            outcome += f", {counted(r.charm_errors, 'charm error')}"
        cells.setdefault((r.disruption, _series(r.juju)), []).append(
            f"{r.backend}: {r.hooks} ({outcome})"
        )
    lines = [
        "## By Juju series",
        "",
        "| Disruption | " + " | ".join(f"Juju {s}" for s in series) + " |",
        "|---|" + "---|" * len(series),
    ]
    for disruption in sorted({r.disruption for r in rows}):
        # One line per run: the cell turns line breaks into <br> (a literal one is escaped).
        found = ["\n".join(cells.get((disruption, s), ["(not run)"])) for s in series]
        lines.append("| " + " | ".join(_cell(c) for c in (disruption, *found)) + " |")
    return lines


def _version_key(text: str) -> tuple[bool, JujuVersion, str]:
    """Juju's own order (a pre-release before its release); what is no version goes last."""
    try:
        return (False, JujuVersion.parse(text), text)
    except ValueError:
        return (True, JujuVersion(0, 0), text)


def _cell(text: object) -> str:
    return md.cell(text)


def render_matrix(evidences: Sequence[Evidence], unreadable: Sequence[Unreadable] = ()) -> str:
    rows = sorted(
        (row_of(e) for e in evidences),
        key=lambda r: (r.disruption, _version_key(r.juju), r.backend, r.scenario),
    )
    lines = ["# Lifecycle matrix", ""]
    lines.append(
        f"{counted(len(rows), 'run')}. Hooks are those observed in the disruption window."
    )
    if any(r.backend.startswith("twin") for r in rows):
        lines.append("Rows marked SIMULATED come from the twin: predictions, not evidence.")
    lines += [
        "",
        "| Disruption | Juju | Backend | Scenario | Hooks observed | Files | Relation data "
        "| Deviations | Known bugs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        hooks, deviations = r.hooks, str(r.deviations)
        if r.charm_errors:
            deviations += f" ({r.charm_errors} charm errors)"
        if r.incomplete is not None:
            # Not "(none observed) / 0": the run never got to observe, or not to the end.
            hooks = f"INCOMPLETE run ({r.incomplete})"
            if r.hooks != NONE_OBSERVED:
                hooks += f"; observed so far: {r.hooks}"
            deviations = f"{r.deviations} (incomplete)"
        cells = (
            r.disruption,
            r.juju,
            r.backend,
            r.scenario,
            hooks,
            r.files,
            r.relations,
            deviations,
            r.known_bugs,
        )
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if rows:
        lines += ["", *_by_series(rows)]
    if unreadable:
        lines += ["", f"{counted(len(unreadable), 'unreadable bundle')}, not in the table:", ""]
        lines += [f"- {md.code(u.path)}: {md.text(u.reason)}" for u in unreadable]
    return "\n".join(lines) + "\n"


def read_bundles(paths: Iterable[Path]) -> tuple[list[Evidence], list[Unreadable]]:
    """Every readable bundle, and the unreadable ones with the reason."""
    good: list[Evidence] = []
    bad: list[Unreadable] = []
    for path in paths:
        try:
            good.append(read_bundle(path))
        except HarnessError as exc:
            bad.append(Unreadable(path, exc.problem))
    return good, bad


def matrix_of_folders(folders: Iterable[Path | str]) -> str:
    good, bad = read_bundles(find_bundles(folders))
    return render_matrix(good, bad)
