"""A page per observed live run: where and when it ran, the hooks each unit ran, its
findings against the catalogue, its timeline (the evidence's own picture) and its files."""

from __future__ import annotations

from dataclasses import dataclass

from harness.evidence.model import BUNDLE_FILE, REPORT_FILE, TIMELINE_FILE
from harness.evidence.svg import render_svg
from harness.reference.fragments import source_label
from harness.reference.html import Html, join, link, page, tag
from harness.reference.index_page import disruption_page
from harness.reference.observed import ObservedRun


@dataclass(frozen=True)
class Rendered:
    html: Html
    files: dict[str, bytes]  # site path -> content


def folder(run: ObservedRun) -> str:
    return f"evidence/{run.slug}"


def _sequences(run: ObservedRun) -> dict[str, list[str]]:
    """Each unit's hooks, from the debug-log (the probe's journal where there is none)."""
    found: dict[tuple[str, str], list[str]] = {}
    for record in run.evidence.hooks:
        if record.kind == "hook" and record.hook:
            outcome = record.outcome or "ok"
            name = record.hook if outcome == "ok" else f"{record.hook} ({outcome})"
            found.setdefault((record.unit, record.source), []).append(name)
    out: dict[str, list[str]] = {}
    for (unit, source), hooks in sorted(found.items()):
        if unit not in out or source == "debug-log":
            out[unit] = hooks
    return out


def evidence_page(run: ObservedRun) -> Rendered:
    evidence = run.evidence
    versions = evidence.versions
    here = folder(run)
    files: dict[str, bytes] = {f"{here}/{TIMELINE_FILE}": render_svg(evidence).encode()}
    for name in (BUNDLE_FILE, REPORT_FILE):
        path = run.folder / name
        if path.is_file():
            files[f"{here}/{name}"] = path.read_bytes()
    sequences = _sequences(run)
    described = "; ".join(f"{unit}: {', '.join(hooks)}" for unit, hooks in sequences.items())
    facts = [
        ("Scenario", evidence.scenario),
        ("Disruption", run.disruption),
        ("Juju controller", versions.juju_controller),
        ("Juju agent", versions.juju_agent),
        ("Juju client", versions.juju_client),
        ("Juju driver", versions.juju_driver),
        ("MicroK8s", versions.microk8s),
        ("Kubernetes", versions.kubernetes),
        ("Judged against", evidence.branch or None),
    ]
    facts += [
        (
            f"Charm {c.app}",
            " ".join(
                part
                for part in (
                    c.charm,
                    c.channel,
                    None if c.revision is None else f"revision {c.revision}",
                )
                if part
            ),
        )
        for c in versions.charms
    ]
    findings = tag(
        "div",
        tag(
            "table",
            tag("caption", "Findings: the run against the catalogue", id="findings"),
            tag(
                "thead",
                tag(
                    "tr",
                    *(
                        tag("th", text, scope="col")
                        for text in ("Check", "Subject", "Expected", "Observed", "Verdict")
                    ),
                ),
            ),
            tag(
                "tbody",
                *(
                    tag(
                        "tr",
                        tag("td", f.check),
                        tag("th", f.subject, scope="row"),
                        tag("td", f.expected),
                        tag("td", f.observed),
                        tag(
                            "td",
                            f.verdict,
                            tag("br"),
                            link(source_label(f.source), f.source) if f.source else None,
                        ),
                    )
                    for f in evidence.findings
                ),
            ),
        ),
        class_="scroll",
        role="region",
        aria_labelledby="findings",
        tabindex="0",
    )
    body = join(
        [
            tag("h1", f"Observed: {evidence.scenario}"),
            tag("p", run.says, f": {run.agreement}.", class_="lede"),
            tag(
                "p",
                "A live run of the harness on a real MicroK8s and Juju. What the catalogue "
                "expects is on the ",
                link(f"{run.disruption} page", disruption_page(run.disruption)),
                ".",
            ),
            tag(
                "dl",
                *(join([tag("dt", name), tag("dd", value)]) for name, value in facts if value),
            ),
            tag("h2", "The hooks each unit ran"),
            tag(
                "ul",
                *(
                    tag("li", tag("strong", unit), ": ", ", ".join(hooks) or "no hook")
                    for unit, hooks in sequences.items()
                ),
            ),
            tag(
                "figure",
                tag(
                    "div",
                    tag(
                        "img",
                        src=f"{here}/{TIMELINE_FILE}",
                        alt=f"Timeline of the observed hooks: {described or 'none'}.",
                    ),
                    class_="scroll",
                ),
                tag("figcaption", "The run's timeline: units as lanes, steps shaded."),
            ),
            tag("h2", "Findings"),
            findings,
            tag("h2", "The run's files"),
            tag(
                "ul",
                *(
                    tag("li", link(text, f"{here}/{name}"))
                    for name, text in (
                        (BUNDLE_FILE, "The evidence bundle (bundle.json)"),
                        (REPORT_FILE, "The report, as pasted into bug reports (report.md)"),
                        (TIMELINE_FILE, "The timeline picture (timeline.svg)"),
                    )
                    if f"{here}/{name}" in files
                ),
            ),
        ],
        "\n",
    )
    return Rendered(
        page(
            f"Observed: {evidence.scenario}",
            body,
            description=f"{evidence.scenario}, a live run: {run.says}.",
        ),
        files,
    )
