"""report.md: what a person pastes into Launchpad or GitHub.

One screen of summary first (scenario, backend, versions, verdict counts), then the detail:
expected vs observed hooks, what changed in files and relation data (with counts of what did
not), pod identity, steps with durations, and the exact commands to reproduce.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from harness.common.findings import Finding
from harness.common.observations import (
    ABSENT,
    UNLISTED,
    Databag,
    FileState,
    HookRecord,
    PodIdentity,
    Snapshot,
    Step,
)
from harness.common.times import duration, format_duration, parse_instant
from harness.evidence import markdown as md
from harness.evidence.model import Evidence
from harness.verdict.file_survival import changes, unchanged

DETAIL_CHARS = 200

# Versions.model_config_from, for a reader: whose settings shaped the hooks.
CONFIG_FROM = {
    "juju-defaults": "Juju's defaults: the harness made this model and set them, "
    "so a CI bootstrap's model-defaults did not apply",
    "inherited": "the controller's model-defaults: the harness made this model and kept "
    "them (--inherit-model-config)",
    "existing-model": "the model's own: the harness used a model it did not make",
    "juju-defaults-except-user": "Juju's defaults, except the keys the user's own model "
    "config (pytest-operator --model-config) set: the harness made this model and kept those",
}

SIMULATED_BANNER = (
    "> **SIMULATED**: produced by the twin backend (an in-process simulation through "
    "ops.testing), not by a real Juju controller. It shows what the catalogue predicts; "
    "it is not regression evidence."
)


def _cell(text: object) -> str:
    """Table-safe Markdown: HTML and pipes escaped, line breaks kept visible."""
    return md.cell(text)


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _or_unknown(value: object) -> str:
    return "unknown" if value is None else str(value)


def title(evidence: Evidence) -> str:
    prefix = "SIMULATED reproduction" if evidence.simulated else "Reproduction"
    what = f" ({evidence.disruption})" if evidence.disruption else ""
    return f"{prefix}: {evidence.scenario}{what}"


def verdict_counts(evidence: Evidence) -> str:
    text = (
        f"{evidence.count('match')} match, {evidence.count('deviation')} deviation, "
        f"{evidence.count('known-bug')} known-bug"
    )
    undetermined = evidence.count("undetermined")
    return text + (f", {undetermined} undetermined" if undetermined else "")


def _summary(e: Evidence) -> list[str]:
    v = e.versions
    charms = ", ".join(
        f"{c.app} ({c.charm}, {c.channel or 'no channel'}, "
        f"{'revision ' + str(c.revision) if c.revision is not None else 'revision unknown'})"
        for c in sorted(v.charms, key=lambda c: c.app)
    )
    backend = f"{e.backend} (SIMULATED)" if e.simulated else e.backend
    if v.juju_driver:
        backend += f", Juju driver {v.juju_driver}"
    juju = (
        f"client {_or_unknown(v.juju_client)}, controller {_or_unknown(v.juju_controller)}, "
        f"agent {_or_unknown(v.juju_agent)}"
    )
    if e.juju_version:
        juju += f"; judged against the catalogue for {e.juju_version}"
        if e.juju_notes:
            juju += f" ({'; '.join(e.juju_notes)})"
    disruption = e.disruption or "unknown"
    if e.disruption_detail:
        disruption += f" ({e.disruption_detail})"
    rows: list[tuple[str, str]] = [
        ("Scenario", e.scenario),
        ("Disruption", disruption),
        ("Backend", backend),
        ("Juju", juju),
        ("MicroK8s", _or_unknown(v.microk8s)),
        ("Kubernetes", _or_unknown(v.kubernetes)),
        ("Charms", charms or "unknown"),
    ]
    if v.model_config:
        # Retried failed hooks, or not, change the hook sequence a disruption produces.
        rows.append(("Model config", "; ".join(f"{k}={val}" for k, val in v.model_config)))
    if v.model_config_from:
        origin = v.model_config_from
        rows.append(("Model config from", CONFIG_FROM.get(origin, origin)))
    rows.append(("Verdicts", verdict_counts(e)))
    if e.branch:
        rows.insert(4, ("Catalogue branch", e.branch))
    if e.bundle is not None:
        observer = "probe observer deployed" if e.bundle.probe else "no probe observer"
        rows.insert(1, ("Bundle", f"{e.bundle.name} (sha256 {e.bundle.digest[:12]}), {observer}"))
    if e.error:
        rows.append(("Stopped early", e.error))
    return _table(("", ""), rows)


def _attention(e: Evidence) -> list[str]:
    notable = [f for f in e.findings if f.verdict in ("deviation", "known-bug")]
    lines: list[str] = []
    if notable:
        lines += ["", "## Deviations and known bugs", ""]
    for f in notable:
        lines.append(
            f"- **{md.text(f.verdict)}** {md.text(f.check)} {md.code(f.subject)}: expected "
            f"{md.text(f.expected)}; observed {md.text(f.observed)} "
            f"({md.link('source', f.source)})"
            + (f". {md.text(_shorten(f.detail))}" if f.detail else "")
        )
    return lines + _undetermined(e)


def _undetermined(e: Evidence) -> list[str]:
    """Files whose survival the run could not tell: neither kept nor a deviation."""
    unknown = [f for f in e.findings if f.verdict == "undetermined"]
    if not unknown:
        return []
    lines = ["", "## Survival undetermined", ""]
    for f in unknown:
        lines.append(
            f"- {md.text(f.check)} {md.code(f.subject)}: expected {md.text(f.expected)}; "
            f"observed {md.text(f.observed)}"
        )
    lines += [
        "",
        "Judged on existence, content, size, mtime, ctime and inode, with times compared "
        "against the container's own clock. A file the charm writes again after the "
        "disruption cannot show whether its layer kept it. To test the layer, let the "
        f"harness write a file it owns: {md.code('--mark APP:CONTAINER:PATH')}.",
    ]
    return lines


def _shorten(text: str, limit: int = DETAIL_CHARS) -> str:
    """Keep the summary short; the full text is in the findings table at the end."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _observed_sequences(hooks: Sequence[HookRecord]) -> dict[tuple[str, str], list[str]]:
    sequences: dict[tuple[str, str], list[str]] = {}
    for record in hooks:
        if record.kind == "hook" and record.hook:
            label = (
                record.hook
                if record.outcome in (None, "ok")
                else f"{record.hook} ({record.outcome})"
            )
        else:
            label = f"[{record.kind}]"
        sequences.setdefault((record.unit, record.source), []).append(label)
    return sequences


def _hooks_section(e: Evidence) -> list[str]:
    lines = ["", "## Hooks: expected vs observed", ""]
    hook_findings = [f for f in e.findings if f.check == "hooks"]
    if hook_findings:
        lines += _table(
            ("Unit", "Expected", "Observed", "Verdict"),
            ((f.subject, f.expected, f.observed, f.verdict) for f in hook_findings),
        )
    if e.expected_hooks:
        lines += ["", f"Catalogue (required, in order): {md.code(', '.join(e.expected_hooks))}"]
    observed = _observed_sequences(e.hooks)
    if observed:
        lines += ["", "Observed in the disruption window, per unit and source:", ""]
        lines += _table(
            ("Unit", "Source", "Sequence"),
            ((unit, source, ", ".join(seq)) for (unit, source), seq in sorted(observed.items())),
        )
    elif not hook_findings:
        lines.append("No hooks were observed in the disruption window.")
    for note in _collection_notes(e):
        lines += ["", f"Note: {md.text(note)}"]
    return lines


def _collection_notes(e: Evidence) -> list[str]:
    """What the hook collection said beyond its counts (a source that was unavailable)."""
    for step in e.steps:
        if step.name == "collect hooks":
            return step.detail.split("; ")[1:]
    return []


LAYERS = ("container-root", "charm-dir", "storage")


def layer_of(finding: Finding) -> str | None:
    """The filesystem layer a ``file`` finding judged (its expectation names it)."""
    if finding.check != "file":
        return None
    return next((layer for layer in LAYERS if f"({layer}" in finding.expected), None)


def _layers_section(e: Evidence) -> list[str]:
    """All three places a file can live, with the verdict and what each was judged on."""
    rows = []
    for layer in LAYERS:
        judged = [f for f in e.findings if layer_of(f) == layer]
        if not judged:
            rows.append((layer, "-", "-", "not judged in this run", "-", "-"))
        for f in judged:
            basis = (
                f.detail
                if f.detail.startswith("judged on")
                else (f"judged on a watched file in the container's root filesystem: {f.subject}")
            )
            unit = f.subject.split(" ", 1)[0]
            rows.append((layer, unit, f.expected, f.observed, f.verdict, basis))
    lines = ["", "## Survival by filesystem layer", ""]
    return lines + _table(("Layer", "Unit", "Expected", "Observed", "Verdict", "Judged on"), rows)


def _files_section(before: Snapshot, after: Snapshot) -> list[str]:
    def index(files: Iterable[FileState]) -> dict[tuple[str, str, str], FileState]:
        return {(f.unit, f.container, f.path): f for f in files}

    old, new = index(before.files), index(after.files)
    rows = []
    same = 0
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        listed = UNLISTED not in (a and a.digest, b and b.digest)
        if a is not None and b is not None and listed and unchanged(a, b):
            same += 1
            continue
        after_text = _state_text(b, after, key)
        if a is not None and b is not None and a.digest == b.digest and b.reason is None:
            # Same content, other metadata: written again (see harness.verdict.file_survival).
            after_text += " (same content; " + ", ".join(changes(a, b)) + ")"
        rows.append((*key, _state_text(a, before, key), after_text))
    lines = ["", "## Files", ""]
    if rows:
        lines += _table(("Unit", "Container", "Path", "Before", "After"), rows)
        lines.append("")
    lines.append(f"Paths: {len(rows)} changed, {same} unchanged.")
    if any(f.ctime is not None for f in (*before.files, *after.files)):
        lines.append(
            "Unchanged means the same content, size, mtime, ctime and inode; times are the "
            "container's own clock (bundle.json has each file's metadata)."
        )
    return lines


def _state_text(state: FileState | None, snapshot: Snapshot, key: tuple[str, str, str]) -> str:
    """The digest as a person reads it; a path that could not be listed says why."""
    if state is None:
        why = snapshot.unlisted(*key)  # inside a folder that could not be listed
        return ABSENT if why is None else f"{UNLISTED} ({why})"
    if state.reason is not None:
        return f"{_short_digest(state.digest)} ({state.reason})"
    return _short_digest(state.digest)


def _short_digest(digest: str) -> str:
    return digest[:15] if digest.startswith("sha256:") else digest


def _bag_label(bag: Databag) -> str:
    where = f"{bag.endpoint}:{bag.relation_id} {bag.scope} {bag.owner}"
    return f"{where} (seen by {bag.seen_by}, {bag.source})"


def _relations_section(before: Snapshot, after: Snapshot) -> list[str]:
    def index(bags: Iterable[Databag]) -> dict[tuple[str, ...], Databag]:
        return {(*b.key, b.scope): b for b in bags}

    old, new = index(before.relations), index(after.relations)
    rows: list[tuple[str, str, str, str]] = []
    unchanged = 0
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if a is None or b is None:
            present = a or b
            assert present is not None
            state = "databag gone" if b is None else "databag new"
            rows.append((_bag_label(present), "*", state if a else "", state if b else ""))
            continue
        diff = _data_diff(a.data, b.data)
        if not diff:
            unchanged += 1
        rows += [(_bag_label(a), k, va, vb) for k, va, vb in diff]
    lines = ["", "## Relation data", ""]
    if rows:
        lines += _table(("Databag", "Key", "Before", "After"), rows)
        lines.append("")
    changed = len({r[0] for r in rows})
    lines.append(f"Databags: {changed} changed, {unchanged} unchanged.")
    return lines


def _data_diff(before: Mapping[str, str], after: Mapping[str, str]) -> list[tuple[str, str, str]]:
    return [
        (k, before.get(k, "(absent)"), after.get(k, "(absent)"))
        for k in sorted(before.keys() | after.keys())
        if before.get(k) != after.get(k)
    ]


def _restarts(pod: PodIdentity | None) -> str:
    if pod is None:
        return "(no pod)"
    return " ".join(
        f"{c.name}={c.restart_count}" for c in sorted(pod.containers, key=lambda c: c.name)
    )


def _pods_section(before: Snapshot, after: Snapshot) -> list[str]:
    units = sorted({p.unit for p in before.pods} | {p.unit for p in after.pods})
    rows = []
    for unit in units:
        a, b = before.pod(unit), after.pod(unit)
        same = "same pod" if a and b and a.uid == b.uid else "new pod" if a and b else "-"
        rows.append(
            (
                unit,
                a.uid[:8] if a else "(none)",
                b.uid[:8] if b else "(none)",
                same,
                _restarts(a),
                _restarts(b),
            )
        )
    lines = ["", "## Pod identity", ""]
    if rows:
        lines += _table(
            ("Unit", "UID before", "UID after", "", "Restarts before", "Restarts after"), rows
        )
    else:
        lines.append("No pods were observed.")
    return lines


def _steps_section(e: Evidence) -> list[str]:
    lines = ["", "## Steps", ""]
    if not e.steps:
        return [*lines, "No steps were recorded."]
    if e.simulated:
        return lines + _simulated_steps(e)
    return lines + _table(
        ("Step", "Start", "End", "Took", "Detail"),
        (
            (s.name, s.start, s.end, format_duration(duration(s.start, s.end)), s.detail)
            for s in e.steps
        ),
    )


def _simulated_steps(e: Evidence) -> list[str]:
    """The twin's steps on its own clock: offsets from the first step, never dates.

    The twin's clock starts at a fixed, artificial instant so that runs are reproducible;
    its dates mean nothing, its differences are what the simulation modelled.
    """
    origin = parse_instant(e.steps[0].start)

    def offset(moment: str) -> str:
        at = parse_instant(moment)
        if origin is None or at is None:
            return moment
        return "+" + format_duration((at - origin).total_seconds())

    def took(s: Step) -> str:
        return format_duration(duration(s.start, s.end))

    rows = [(s.name, offset(s.start), offset(s.end), took(s), s.detail) for s in e.steps]
    note = (
        "Times are the twin's simulated clock (SIMULATED), counted from the first step; "
        "they say what the simulation modelled, not how long anything took."
    )
    header = ("Step", "Start (simulated)", "End (simulated)", "Took (simulated)", "Detail")
    return [note, "", *_table(header, rows)]


def _findings_section(findings: Sequence[Finding]) -> list[str]:
    if not findings:
        return []
    lines = ["", "<details><summary>All findings</summary>", ""]
    lines += _table(
        ("Check", "Subject", "Expected", "Observed", "Verdict", "Source", "Detail"),
        (
            (f.check, f.subject, f.expected, f.observed, f.verdict, f.source, f.detail)
            for f in findings
        ),
    )
    return [*lines, "", "</details>"]


def render_report(evidence: Evidence) -> str:
    e = evidence
    lines = [f"# {md.text(title(e))}", ""]
    if e.simulated:
        lines += [SIMULATED_BANNER, ""]
    if e.error:
        lines += [f"**The run stopped early:** {md.text(e.error)}", ""]
    lines += _summary(e)
    lines += _attention(e)
    lines += _hooks_section(e)
    lines += _layers_section(e)
    if e.before and e.after:
        lines += _files_section(e.before, e.after)
        lines += _relations_section(e.before, e.after)
        lines += _pods_section(e.before, e.after)
    else:
        missing = "before" if e.before is None else "after"
        lines += ["", f"No file, relation or pod diff: the {missing} snapshot was not taken."]
    lines += _steps_section(e)
    if e.bundle is not None:
        lines += e.bundle.report_lines()
    lines += ["", "## Reproduce", ""]
    if e.commands:
        lines += md.fenced(e.commands)
    else:
        lines.append("No commands were recorded.")
    if e.bundle is not None:
        lines += ["", *e.bundle.reproduce_lines()]
    lines += _findings_section(e.findings)
    return "\n".join(lines) + "\n"
