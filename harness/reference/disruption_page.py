"""One page per disruption: each branch's hook timelines per version range, what survives,
the known bugs, the live runs, and every source the catalogue cites for it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.catalogue import Expectation, KnownBug
from harness.reference.fragments import (
    NOT_OBSERVED,
    confidence_html,
    evidence_href,
    hooks_html,
    source_html,
    status_html,
)
from harness.reference.html import Html, join, link, page, tag
from harness.reference.model import Branch, DisruptionView, Group
from harness.reference.picture import describe, render
from harness.reference.seeds import SEEDS
from harness.reference.sequence import (
    SURVIVAL_ORDER,
    details,
    hook_text,
    may_also_run,
    survival,
    timing,
)
from harness.reference.spans import Span


@dataclass(frozen=True)
class Rendered:
    html: Html
    pictures: dict[str, str]  # site path -> SVG


def picture_path(view: DisruptionView, branch: Branch, group: Group) -> str:
    return f"img/{view.name}-{branch.name}-{group.span.anchor}.svg"


def _group(view: DisruptionView, branch: Branch, group: Group, level: str) -> Rendered:
    first = group.ranges[0].entry
    said = (view.summary, branch.ranges[0].entry.summary, "")  # already on the page
    hooks = group.hooks
    title = f"{view.name} ({branch.name}), Juju {group.span.label}: hooks from the catalogue"
    pictures: dict[str, str] = {}
    figure = None
    if hooks:
        path = picture_path(view, branch, group)
        pictures[path] = render(first, hooks, title)
        figure = tag(
            "figure",
            tag(
                "div",
                tag(
                    "img",
                    src=path,
                    alt=f"Timeline of the hooks: {describe(hooks)}",
                    width="900",
                ),
                class_="scroll",
            ),
            tag(
                "figcaption",
                f"The hooks of {view.name} on Juju {group.span.label}, left to right in the "
                "order Juju runs them (from the catalogue; spacing is not time).",
            ),
        )
    maybe = may_also_run(first)
    background = tuple(dict.fromkeys(h for r in group.ranges for h in r.entry.background))
    notes = tuple(dict.fromkeys(r.entry.notes for r in group.ranges if r.entry.notes))
    anchor = f"{branch.name}-{group.span.anchor}"
    html = join(
        [
            tag(level, f"Juju {group.span.label}", id=anchor),
            tag("p", first.summary) if first.summary not in said else None,
            figure,
            tag("p", "In order: ", hooks_html(hooks)),
            tag("p", "May also run: ", ", ".join(maybe)) if maybe else None,
            tag("p", "At any time, for other reasons: ", ", ".join(map(hook_text, background)))
            if background
            else None,
            _ranges_table(group, anchor),
            tag("ul", *(tag("li", note) for note in notes)) if notes else None,
        ],
        "\n",
    )
    return Rendered(html, pictures)


def _ranges_table(group: Group, anchor: str) -> Html:
    """A row per version range; neighbours that read the same are one row."""
    merged: list[tuple[Span, tuple[Html, ...]]] = []
    for item in group.ranges:
        cells = (
            tag("td", timing(item.entry)),
            tag("td", item.entry.confidence, confidence_html(item.entry)),
            tag("td", status_html(item.observed)),
        )
        if merged and merged[-1][1] == cells:
            merged[-1] = (merged[-1][0].joined(item.span), cells)
        else:
            merged.append((item.span, cells))
    rows = [
        tag("tr", tag("th", f"Juju {span.label}", scope="row"), *cells) for span, cells in merged
    ]
    ident = f"ranges-{anchor}"
    return tag(
        "div",
        tag(
            "table",
            tag("caption", "Timing, confidence and live runs per version range", id=ident),
            tag(
                "thead",
                tag(
                    "tr",
                    *(
                        tag("th", text, scope="col")
                        for text in ("Versions", "Timing", "Confidence", "Live evidence")
                    ),
                ),
            ),
            tag("tbody", *rows),
        ),
        class_="scroll",
        role="region",
        aria_labelledby=ident,
        tabindex="0",
    )


def _survival_table(branch: Branch) -> Html:
    """Rows: what a reader asks about; columns: neighbouring ranges that say the same."""
    columns: list[tuple[Span, Expectation]] = []
    for item in branch.ranges:
        key = (survival(item.entry), details(item.entry))
        if columns and (survival(columns[-1][1]), details(columns[-1][1])) == key:
            columns[-1] = (columns[-1][0].joined(item.span), columns[-1][1])
        else:
            columns.append((item.span, item.entry))
    first = survival(columns[0][1])
    if first.new_unit:
        return tag("p", first.short())
    names = list(SURVIVAL_ORDER) + [what for what, _ in details(columns[0][1])]
    names += [w for _, e in columns for w, _ in details(e) if w not in names]

    def state(entry: Expectation, what: str) -> str:
        found = dict(survival(entry).states) | dict(details(entry))
        return found.get(what, "not stated")

    ident = f"survival-{branch.name}"
    return tag(
        "div",
        tag(
            "table",
            tag("caption", f"What survives ({branch.name})", id=ident),
            tag(
                "thead",
                tag(
                    "tr",
                    tag("th", "After the disruption", scope="col"),
                    *(tag("th", f"Juju {span.label}", scope="col") for span, _ in columns),
                ),
            ),
            tag(
                "tbody",
                *(
                    tag(
                        "tr",
                        tag("th", what, scope="row"),
                        *(tag("td", state(entry, what)) for _, entry in columns),
                    )
                    for what in names
                ),
            ),
        ),
        class_="scroll",
        role="region",
        aria_labelledby=ident,
        tabindex="0",
    )


def _bug(bug: KnownBug) -> Html:
    seed = next((s for s in SEEDS if s.catalogue_id == bug.id), None)
    number = bug.id.removeprefix("LP#")
    if bug.kind == "hooks":
        asked = ", ".join(map(hook_text, bug.reporter_expected)) or "no hook"
        does = ", ".join(map(hook_text, bug.juju_does)) or "no hook"
    else:
        asked = f"relation data {' '.join(bug.reporter_expected)}"
        does = f"relation data {' '.join(bug.juju_does)}"
    fixed = f"Fixed in Juju {bug.fixed_in}." if bug.fixed_in else "Not fixed in Juju."
    return tag(
        "li",
        tag("p", link(f"Juju bug {number}: {bug.title}", bug.url)),
        tag("p", f"The reporter expected: {asked}. Juju does: {does}. {fixed}"),
        tag("p", bug.notes) if bug.notes else None,
        tag("p", link(f"The report and what the catalogue says now (bug {number})", seed.page))
        if seed
        else None,
    )


def _gone(view: DisruptionView) -> Html | None:
    """Where the disruption's kind of charm no longer exists (podspec charms from 4.0)."""
    if view.gone is None:
        return None
    why = link("why", view.gone.sources[0].url) if view.gone.sources else None
    return tag(
        "p",
        f"Not on Juju {view.gone.juju_min} and later: podspec charms are gone there; "
        f"{view.gone.claim}. ",
        why,
        class_="who",
    )


def disruption_page(view: DisruptionView) -> Rendered:
    pictures: dict[str, str] = {}
    main, *others = view.branches
    parts: list[Html | None] = [
        tag("h1", view.name),
        tag("p", view.summary, class_="lede"),
        _gone(view),
        tag(
            "p",
            "On this page: ",
            join(
                [
                    link("hooks by version", "#hooks"),
                    link("what survives", "#survives"),
                    link("branches", "#branches") if others else None,
                    link("known bugs", "#bugs") if view.known_bugs else None,
                    link("live evidence", "#evidence"),
                    link("sources", "#sources"),
                ],
                " · ",
            ),
        ),
        tag("h2", "Hooks, version by version", id="hooks"),
        tag(
            "p",
            "The main branch: what happens unless one of the branches below applies. "
            "Each picture shows the leader and a non-leader unit when they differ.",
        ),
    ]
    for group in main.groups:
        rendered = _group(view, main, group, "h3")
        parts.append(rendered.html)
        pictures |= rendered.pictures
    parts += [tag("h2", "What survives", id="survives"), _survival_table(main)]
    if others:
        parts.append(tag("h2", "Branches", id="branches"))
    for branch in others:
        parts += [
            tag("h3", f"Branch: {branch.name}", id=f"branch-{branch.name}"),
            tag("p", f"Applies {branch.selected}."),
            tag("p", branch.ranges[0].entry.summary) if branch.ranges[0].entry.summary else None,
        ]
        for group in branch.groups:
            rendered = _group(view, branch, group, "h4")
            parts.append(rendered.html)
            pictures |= rendered.pictures
        parts.append(_survival_table(branch))
    if view.known_bugs:
        parts += [
            tag("h2", "Known bugs", id="bugs"),
            tag("ul", *(_bug(bug) for bug in view.known_bugs)),
        ]
    parts += [tag("h2", "Live evidence", id="evidence"), _evidence(view)]
    parts += [
        tag("h2", "Sources", id="sources"),
        tag(
            "p",
            "Every claim the catalogue makes about this disruption, where it was read, and "
            "the branches and versions it backs.",
        ),
        tag(
            "ol",
            *(
                tag(
                    "li",
                    source_html(citation.source),
                    tag("p", "Backs: ", _backs(citation.backs), class_="survives"),
                    id=f"source-{number}",
                )
                for number, citation in enumerate(view.citations, 1)
            ),
            class_="source-list",
        ),
    ]
    return Rendered(
        page(
            view.name,
            join(parts, "\n"),
            description=f"What Juju does to a Kubernetes unit on {view.name}, per version.",
        ),
        pictures,
    )


def _backs(backs: Sequence[tuple[str, tuple[Span, ...]]]) -> str:
    return "; ".join(
        f"{branch}, Juju {', '.join(span.label for span in spans)}" for branch, spans in backs
    )


def _evidence(view: DisruptionView) -> Html:
    if not view.observed:
        return tag(
            "p",
            f"No live run of {view.name} has been folded in: everything above is {NOT_OBSERVED}.",
        )
    return tag(
        "ul",
        *(
            tag("li", link(run.says, evidence_href(run)), f": {run.agreement}")
            for run in view.observed
        ),
    )
