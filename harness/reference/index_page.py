"""index.html: the overview matrix, how to read it, and where to go next."""

from __future__ import annotations

from collections.abc import Sequence

from harness.reference.fragments import (
    NOT_OBSERVED,
    confidence_html,
    hooks_html,
    status_html,
)
from harness.reference.html import Html, join, link, page, tag
from harness.reference.model import Cell, Matrix, Row
from harness.reference.observed import ObservedRun
from harness.reference.seeds import SEEDS


def disruption_page(name: str) -> str:
    return f"{name}.html"


def column_header(label: str) -> Html:
    return tag("th", "Juju ", label, scope="col")


def _cell(cell: Cell) -> Html:
    if cell.entry is None:
        gone = cell.gone
        return tag(
            "td",
            tag("p", "Not on these versions: podspec charms are gone", class_="who"),
            tag("p", link("why", gone.sources[0].url)) if gone and gone.sources else None,
        )
    return tag(
        "td",
        tag("p", hooks_html(cell.hooks)),
        tag("p", cell.survival.short(), class_="survives"),
        confidence_html(cell.entry),
        status_html(cell.observed),
    )


def _row(row: Row) -> Html:
    header = tag(
        "th",
        link(row.disruption, disruption_page(row.disruption)),
        tag("br"),
        tag("small", row.summary),
        scope="row",
    )
    return tag("tr", header, *(_cell(cell) for cell in row.cells))


def matrix_html(matrix: Matrix, rows: Sequence[Row] | None = None, *, caption: str) -> Html:
    """The table in a scrolling box: a phone scrolls the table, never the page."""
    chosen = matrix.rows if rows is None else rows
    disruptions = [row for row in chosen if not row.lifecycle]
    lifecycle = [row for row in chosen if row.lifecycle]
    width = str(len(matrix.columns) + 1)
    bodies = [tag("tbody", *(_row(row) for row in disruptions))]
    if lifecycle:
        bodies.append(
            tag(
                "tbody",
                tag(
                    "tr",
                    tag(
                        "th",
                        "For comparison: how a unit comes to be and joins a relation",
                        scope="rowgroup",
                        colspan=width,
                    ),
                ),
                *(_row(row) for row in lifecycle),
            )
        )
    ident = "matrix-caption" if rows is None else "matrix-caption-part"
    table = tag(
        "table",
        tag("caption", caption, id=ident),
        tag(
            "thead",
            tag(
                "tr",
                tag("th", "Disruption", scope="col"),
                *(column_header(span.label) for span in matrix.columns),
            ),
        ),
        *bodies,
        class_="matrix",
    )
    return tag("div", table, class_="scroll", role="region", aria_labelledby=ident, tabindex="0")


def index_page(matrix: Matrix, runs: Sequence[ObservedRun]) -> Html:
    observed = (
        f"{len(runs)} live run{'s are' if len(runs) != 1 else ' is'} folded into this build."
        if runs
        else f"No live run has been folded into this build yet: every cell is {NOT_OBSERVED}."
    )
    body = join(
        [
            tag("h1", "What Juju does to a Kubernetes unit, version by version"),
            tag(
                "p",
                "When a pod is deleted, the node restarts or the pod template changes, Juju "
                "runs some hooks on each unit of a Kubernetes (sidecar) charm and some files "
                "and data survive while others do not. This reference shows, for each "
                "disruption and each range of Juju versions, the hooks in order (leader and "
                "non-leader), what survives, the branches, the known bugs, and the source of "
                "every claim. It is built from the expectation catalogue of the ",
                tag("code", "juju-lifecycle-harness"),
                " and from its live runs.",
                class_="lede",
            ),
            tag("h2", "The matrix", id="matrix"),
            tag(
                "p",
                "Disruptions down, Juju versions across; a new column starts wherever some "
                "row changes. Each cell gives the hooks in order, what survives, and whether "
                "a live run has shown it. Follow a disruption's name for its timelines, "
                "grace periods, branches and sources.",
            ),
            matrix_html(
                matrix,
                caption="Hooks and survival for every disruption (rows) on every Juju "
                "version range (columns)",
            ),
            tag("h2", "How to read a cell", id="reading"),
            tag(
                "dl",
                tag("dt", "The hooks"),
                tag(
                    "dd",
                    "The hooks every unit runs, in order. A hook marked (non-leader) or "
                    "(leader) runs only on such a unit. ",
                    tag("code", "<container>"),
                    " stands for each workload container. Hooks that may also run, and "
                    "hooks that can run at any time, are on the disruption's page.",
                ),
                tag("dt", "Lost, kept, new"),
                tag(
                    "dd",
                    "The container root filesystem, the charm directory, the storage volume, "
                    "the unit's relation data and the unit's identity, afterwards.",
                ),
                tag("dt", "Observed on Juju X, MicroK8s Y on DATE"),
                tag(
                    "dd",
                    "A live run of the harness on a real MicroK8s and Juju showed this cell; "
                    "the link opens its evidence (the hooks each unit ran, the findings, the "
                    "bundle). It says whether the run agreed with the catalogue.",
                ),
                tag("dt", NOT_OBSERVED.capitalize()),
                tag(
                    "dd",
                    "The cell says what Juju's source code, documentation and bug reports "
                    "say (linked on the disruption's page), but no live run of the harness "
                    "has checked it yet. The harness's simulation (the twin) never counts "
                    "as observed: it only replays these claims.",
                ),
                tag("dt", "Low confidence"),
                tag(
                    "dd",
                    "Inferred rather than read: for example Juju 4.0, where each entry is "
                    "its 3.6 expectation less what 4.0 documents as removed. The sources say "
                    "what is missing.",
                ),
            ),
            tag("p", observed),
            tag("h2", "The reports that started it", id="seeds"),
            tag(
                "ul",
                *(
                    tag("li", link(f"Juju bug {seed.number}: {seed.title}", seed.page))
                    for seed in SEEDS
                ),
            ),
        ],
        "\n",
    )
    return page(
        "Overview",
        body,
        description="What Juju does to a Kubernetes unit under each disruption, per version.",
        here="index.html",
    )
