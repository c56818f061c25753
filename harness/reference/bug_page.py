"""A page per seed bug: what was reported (quoted verbatim from the thread) and what the
catalogue says now, version by version, with its live evidence."""

from __future__ import annotations

from harness.catalogue import Catalogue
from harness.reference.fragments import hooks_html, status_html
from harness.reference.html import Html, join, link, page, tag
from harness.reference.index_page import disruption_page, matrix_html
from harness.reference.model import Matrix
from harness.reference.seeds import SeedBug
from harness.reference.sequence import hook_text, sequence, survival


def _quote(seed: SeedBug, speaker: str, text: str) -> Html:
    return tag(
        "figure",
        tag("blockquote", text, cite=seed.url),
        tag("figcaption", f"{speaker}, in the bug's thread"),
    )


def bug_page(seed: SeedBug, catalogue: Catalogue, matrix: Matrix) -> Html:
    claims = catalogue.bugs(seed.catalogue_id)
    disruptions = [claim.disruption for claim in claims]
    parts: list[Html | None] = [
        tag("h1", f"Juju bug {seed.number}: {seed.title}"),
        tag(
            "p",
            "The report on Launchpad: ",
            link(f"Juju bug {seed.number}", seed.url),
            ". Quoted below as its thread has it; then what the harness's catalogue says "
            "about it now.",
            class_="lede",
        ),
        tag("h2", "What was reported", id="reported"),
        *(_quote(seed, quote.speaker, quote.text) for quote in seed.quotes),
        tag("h2", "What the catalogue says now", id="now"),
    ]
    if claims:
        first = claims[0]
        status = (
            f"Fixed in Juju {first.fixed_in}: every version the catalogue covers (2.9 and "
            "later) is expected to behave as the reporter asked."
            if first.fixed_in
            else "Not fixed: the catalogue records no Juju version that behaves as the "
            "reporter expected."
        )
        parts += [tag("p", status), tag("p", first.notes) if first.notes else None]
        if first.quote:
            parts.append(tag("p", "The catalogue records the report's point as: ", first.quote))
    for claim in claims:
        if claim.kind == "hooks":
            asked = tag("code", " → ".join(map(hook_text, claim.reporter_expected)))
            does = tag("code", " → ".join(map(hook_text, claim.juju_does)))
        else:
            asked = tag("span", f"relation data {' '.join(claim.reporter_expected)}")
            does = tag("span", f"relation data {' '.join(claim.juju_does)}")
        parts += [
            tag("h3", link(claim.disruption, disruption_page(claim.disruption))),
            tag("p", "The reporter expected ", asked, "; Juju does ", does, "."),
        ]
        for version in seed.reported_on:
            entry = catalogue.expect(claim.disruption, version)
            parts += [
                tag(
                    "p",
                    f"On Juju {version}, as reported, the catalogue expects: ",
                    hooks_html(sequence(entry)),
                ),
                tag("p", survival(entry).short(), class_="survives"),
            ]
    rows = [row for row in matrix.rows if row.disruption in disruptions]
    if rows:
        parts += [
            tag("h2", "On every Juju version", id="versions"),
            matrix_html(
                matrix,
                rows,
                caption=f"Hooks and survival for the disruptions of bug {seed.number}",
            ),
            tag("h2", "Live evidence", id="evidence"),
            tag(
                "ul",
                *(
                    tag(
                        "li",
                        f"{row.disruption}, Juju {cell.span.label}: ",
                        status_html(cell.observed),
                    )
                    for row in rows
                    for cell in row.cells
                ),
            ),
        ]
    return page(
        f"Juju bug {seed.number}",
        join(parts, "\n"),
        description=f"Juju bug {seed.number}, {seed.title}: the report and the catalogue now.",
        here=seed.page,
    )
