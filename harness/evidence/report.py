"""The report a person pastes into a bug tracker: report.md for GitHub, report.txt for Launchpad.

One screen of summary first (scenario, backend, versions, verdict counts), then the detail:
expected vs observed hooks, what changed in files and relation data (with counts of what did
not), pod identity, steps with durations, and the exact commands to reproduce. It is built
once as blocks (``harness.evidence.document``) and rendered as Markdown (``render_report``)
or as plain text (``render_text``: Launchpad shows Markdown as it was typed).
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
)
from harness.evidence.charm_errors import charm_errors_section
from harness.evidence.document import (
    Banner,
    Block,
    Bullets,
    Code,
    CodeBlock,
    Folded,
    Heading,
    Inline,
    Link,
    Strong,
    para,
    table,
    to_markdown,
    to_text,
)
from harness.evidence.model import REPORT_FILE, TEXT_REPORT_FILE, Evidence
from harness.evidence.steps_section import steps_section
from harness.evidence.user_bundle import bundle_blocks, bundle_file_blocks
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

SIMULATED_BANNER = Banner(
    (
        Strong("SIMULATED"),
        ": produced by the twin backend (an in-process simulation through ops.testing), not "
        "by a real Juju controller. It shows what the catalogue predicts; it is not "
        "regression evidence.",
    )
)


def where_to_paste(text: bool) -> Block:
    """Which rendering goes where: Markdown to GitHub, plain text to Launchpad."""
    if text:
        return para(
            "Plain text for Launchpad, which shows Markdown as typed: paste this as it is. "
            f"For GitHub, paste {REPORT_FILE} from the same folder (tables, folded sections)."
        )
    return Banner(
        (
            "For GitHub, paste this file as it is. For Launchpad, which shows Markdown as "
            "typed, paste ",
            Code(TEXT_REPORT_FILE),
            " from the same folder (or the output of ",
            Code("repro report FOLDER --format text"),
            ").",
        )
    )


def _or_unknown(value: object) -> str:
    return "unknown" if value is None else str(value)


def title(evidence: Evidence) -> str:
    """What was reproduced, saying the disruption once: with the applications it was applied
    to and the user's bundle, when the evidence records them.

    ``pod-delete of my-db, bundle my-bundle (sha256 4e77a3f2c551)`` for a disruption on a
    bundle; ``lp2021891-pod-delete (pod-delete of mysql-router-k8s, probe)`` for a named
    scenario.
    """
    e = evidence
    prefix = "SIMULATED reproduction" if e.simulated else "Reproduction"
    what = e.disruption or e.scenario
    apps = e.disrupted or ((e.bundle.app,) if e.bundle is not None else ())
    if apps:
        what += " of " + ", ".join(apps)
    if e.bundle is not None:
        what += f", bundle {e.bundle.name} (sha256 {e.bundle.digest[:12]})"
    if e.scenario == e.disruption or e.disruption is None:
        return f"{prefix}: {what}"
    return f"{prefix}: {e.scenario} ({what})"


def verdict_counts(evidence: Evidence) -> str:
    text = (
        f"{evidence.count('match')} match, {evidence.count('deviation')} deviation, "
        f"{evidence.count('known-bug')} known-bug"
    )
    undetermined = evidence.count("undetermined")
    text += f", {undetermined} undetermined" if undetermined else ""
    charm = evidence.count("charm-error")
    return text + (f", {charm} charm-error" if charm else "")


def _summary(e: Evidence) -> list[Block]:
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
    return [table(("", ""), rows)]


def _attention(e: Evidence) -> list[Block]:
    notable = [f for f in e.findings if f.verdict in ("deviation", "known-bug")]
    blocks: list[Block] = []
    if notable:
        items: list[tuple[Inline, ...]] = []
        for f in notable:
            item: tuple[Inline, ...] = (
                Strong(f.verdict),
                f" {f.check} ",
                Code(f.subject),
                f": expected {f.expected}; observed {f.observed} (",
                Link("source", f.source),
                ")",
            )
            items.append(item + ((f". {_shorten(f.detail)}",) if f.detail else ()))
        blocks += [Heading("Deviations and known bugs"), Bullets(tuple(items))]
    return blocks + _undetermined(e)


def _undetermined(e: Evidence) -> list[Block]:
    """What the run could not tell, neither a match nor a deviation, each with its reason
    and said once (two catalogue sources can judge the same databag alike)."""
    unknown = [f for f in e.findings if f.verdict == "undetermined"]
    files = [f for f in unknown if f.check == "file"]
    others = [f for f in unknown if f.check != "file"]
    blocks: list[Block] = []
    if others:
        blocks += [Heading("Undetermined"), Bullets(_reasoned(others))]
    if files:
        blocks += [
            Heading("Survival undetermined"),
            Bullets(_reasoned(files)),
            para(
                "Judged on existence, content, size, mtime, ctime and inode, with times "
                "compared against the container's own clock. A file the charm writes again "
                "after the disruption cannot show whether its layer kept it. To test the "
                "layer, let the harness write a file it owns: ",
                Code("--mark APP:CONTAINER:PATH"),
                ".",
            ),
        ]
    return blocks


def _reasoned(findings: Sequence[Finding]) -> tuple[tuple[Inline, ...], ...]:
    items: dict[tuple[Inline, ...], None] = {}
    for f in findings:
        item: tuple[Inline, ...] = (
            f"{f.check} ",
            Code(f.subject),
            f": expected {f.expected}; observed {f.observed}",
        )
        items[item + ((f". Why: {_shorten(f.detail)}",) if f.detail else ())] = None
    return tuple(items)


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


def _hooks_section(e: Evidence) -> list[Block]:
    blocks: list[Block] = [Heading("Hooks: expected vs observed")]
    hook_findings = [f for f in e.findings if f.check == "hooks"]
    if hook_findings:
        blocks.append(
            table(
                ("Unit", "Expected", "Observed", "Verdict"),
                ((f.subject, f.expected, f.observed, f.verdict) for f in hook_findings),
            )
        )
    if e.expected_hooks:
        blocks.append(para("Catalogue (required, in order): ", Code(", ".join(e.expected_hooks))))
    observed = _observed_sequences(e.hooks)
    if observed:
        blocks += [
            para("Observed in the disruption window, per unit and source:"),
            table(
                ("Unit", "Source", "Sequence"),
                ((u, source, ", ".join(seq)) for (u, source), seq in sorted(observed.items())),
            ),
        ]
    elif not hook_findings:
        blocks.append(para("No hooks were observed in the disruption window."))
    blocks += [para(f"Note: {note}") for note in _collection_notes(e)]
    return blocks


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


def _layers_section(e: Evidence) -> list[Block]:
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
    header = ("Layer", "Unit", "Expected", "Observed", "Verdict", "Judged on")
    return [Heading("Survival by filesystem layer"), table(header, rows)]


def _files_section(before: Snapshot, after: Snapshot) -> list[Block]:
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
    blocks: list[Block] = [Heading("Files")]
    if rows:
        blocks.append(table(("Unit", "Container", "Path", "Before", "After"), rows))
    blocks.append(para(f"Paths: {len(rows)} changed, {same} unchanged."))
    if any(f.ctime is not None for f in (*before.files, *after.files)):
        blocks.append(
            para(
                "Unchanged means the same content, size, mtime, ctime and inode; times are "
                "the container's own clock (bundle.json has each file's metadata)."
            )
        )
    return blocks


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


def _relations_section(before: Snapshot, after: Snapshot) -> list[Block]:
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
    blocks: list[Block] = [Heading("Relation data")]
    if rows:
        blocks.append(table(("Databag", "Key", "Before", "After"), rows))
    changed = len({r[0] for r in rows})
    return [*blocks, para(f"Databags: {changed} changed, {unchanged} unchanged.")]


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


def _pods_section(before: Snapshot, after: Snapshot) -> list[Block]:
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
    heading = Heading("Pod identity")
    if not rows:
        return [heading, para("No pods were observed.")]
    header = ("Unit", "UID before", "UID after", "", "Restarts before", "Restarts after")
    return [heading, table(header, rows)]


def _findings_section(findings: Sequence[Finding]) -> list[Block]:
    if not findings:
        return []
    header = ("Check", "Subject", "Expected", "Observed", "Verdict", "Source", "Detail")
    rows = (
        (f.check, f.subject, f.expected, f.observed, f.verdict, f.source, f.detail)
        for f in findings
    )
    return [Folded("All findings", (table(header, rows),))]


def _reproduce_section(e: Evidence) -> list[Block]:
    blocks: list[Block] = [Heading("Reproduce")]
    if e.bundle is not None and e.commands:
        blocks.append(
            para(
                "The ",
                Code("repro run"),
                " line names its paths from the folder that holds ",
                Code(e.bundle.file),
                " (the file is below): run it there.",
            )
        )
    if e.commands:
        blocks.append(CodeBlock(e.commands))
    else:
        blocks.append(para("No commands were recorded."))
    if e.bundle is not None:
        blocks += bundle_file_blocks(e.bundle)
    return blocks


def report_blocks(evidence: Evidence, *, text: bool = False) -> list[Block]:
    """The whole report; ``text`` for the plain-text rendering (its header says so)."""
    e = evidence
    blocks: list[Block] = [Heading(title(e), level=1)]
    if e.simulated:
        blocks.append(SIMULATED_BANNER)
    blocks.append(where_to_paste(text))
    if e.error:
        blocks.append(para(Strong("The run stopped early:"), f" {e.error}"))
    blocks += _summary(e)
    blocks += charm_errors_section(e)
    blocks += _attention(e)
    blocks += _hooks_section(e)
    blocks += _layers_section(e)
    if e.before and e.after:
        blocks += _files_section(e.before, e.after)
        blocks += _relations_section(e.before, e.after)
        blocks += _pods_section(e.before, e.after)
    else:
        missing = "before" if e.before is None else "after"
        blocks.append(
            para(f"No file, relation or pod diff: the {missing} snapshot was not taken.")
        )
    blocks += steps_section(e)
    if e.bundle is not None:
        blocks += bundle_blocks(e.bundle)
    blocks += _reproduce_section(e)
    blocks += _findings_section(e.findings)
    return blocks


def render_report(evidence: Evidence) -> str:
    """report.md: Markdown for GitHub."""
    return to_markdown(report_blocks(evidence))


def render_text(evidence: Evidence) -> str:
    """report.txt: plain text for Launchpad (SIMULATED where the twin produced it)."""
    return to_text(report_blocks(evidence, text=True))
