"""The reference's pages as values, built from the catalogue's public API alone.

- ``Matrix``: disruptions down, Juju version ranges across. The columns are the
  catalogue's ``boundaries()``, with neighbours merged wherever no row's cell (hooks,
  survival, confidence) differs, so a new column means something changed.
- ``DisruptionView``: each branch's version ranges, grouped where the hook sequence is the
  same (one picture per group), the known bugs, and every source cited, with where it
  applies.

Observed runs (``harness.reference.observed``) are attached to the cells and ranges whose
versions they fall in; nothing else is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.catalogue import LIFECYCLE, Catalogue, Expectation, Gone, KnownBug, Source
from harness.catalogue.predict import SELECTED_BY
from harness.common.errors import UnknownName
from harness.reference.observed import ObservedRun
from harness.reference.sequence import Hook, Survival, sequence, survival
from harness.reference.spans import Span, spans_between

MAIN_NAME = "main"


@dataclass(frozen=True)
class Cell:
    """One disruption on one column of Juju versions: the main branch there.

    ``gone`` instead of an entry where the disruption's kind of charm no longer exists on
    those versions (podspec charms from Juju 4.0).
    """

    disruption: str
    span: Span
    entry: Expectation | None
    observed: tuple[ObservedRun, ...] = ()  # newest first
    gone: Gone | None = None

    @property
    def hooks(self) -> tuple[Hook, ...]:
        return () if self.entry is None else sequence(self.entry)

    @property
    def survival(self) -> Survival:
        return Survival(()) if self.entry is None else survival(self.entry)


@dataclass(frozen=True)
class Row:
    disruption: str
    summary: str
    lifecycle: bool  # deploy, integrate: how a unit comes to be, for comparison
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Matrix:
    columns: tuple[Span, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Range:
    """One catalogue entry: a branch of a disruption on one version range."""

    span: Span
    entry: Expectation
    observed: tuple[ObservedRun, ...] = ()


@dataclass(frozen=True)
class Group:
    """Neighbouring ranges of one branch whose hooks are the same: one picture."""

    span: Span
    ranges: tuple[Range, ...]

    @property
    def hooks(self) -> tuple[Hook, ...]:
        return sequence(self.ranges[0].entry)


@dataclass(frozen=True)
class Branch:
    variant: str | None
    selected: str  # when this branch is the one that happens
    groups: tuple[Group, ...]

    @property
    def name(self) -> str:
        return self.variant or MAIN_NAME

    @property
    def ranges(self) -> tuple[Range, ...]:
        return tuple(r for group in self.groups for r in group.ranges)


@dataclass(frozen=True)
class Citation:
    """One source's claim, and the branches and versions it backs."""

    source: Source
    backs: tuple[tuple[str, tuple[Span, ...]], ...]  # (branch name, merged spans)


@dataclass(frozen=True)
class DisruptionView:
    name: str
    summary: str
    lifecycle: bool
    branches: tuple[Branch, ...]  # main first
    known_bugs: tuple[KnownBug, ...]
    citations: tuple[Citation, ...]
    observed: tuple[ObservedRun, ...]
    gone: Gone | None = None  # from which Juju its kind of charm is gone (podspec: 4.0)


# --- building ----------------------------------------------------------------------------


def matrix(catalogue: Catalogue, runs: Sequence[ObservedRun] = ()) -> Matrix:
    """The overview: one row per disruption, one column per range where something changes."""
    spans = spans_between(catalogue.boundaries())
    names = catalogue.disruptions()

    def signature(span: Span) -> tuple[object, ...]:
        return tuple(
            ("gone",)
            if catalogue.gone_on(name, span.low)
            else _cell_signature(catalogue.expect(name, span.low))
            for name in names
        )

    columns: list[Span] = []
    last: tuple[object, ...] | None = None
    for span in spans:
        current = signature(span)
        if columns and current == last:
            columns[-1] = columns[-1].joined(span)
        else:
            columns.append(span)
        last = current
    rows = []
    for name in names:
        cells = tuple(_cell(catalogue, name, column, runs) for column in columns)
        summary = next(c.entry.summary for c in reversed(cells) if c.entry is not None)
        rows.append(Row(name, summary, name in LIFECYCLE, cells))
    return Matrix(tuple(columns), tuple(rows))


def _cell(catalogue: Catalogue, name: str, column: Span, runs: Sequence[ObservedRun]) -> Cell:
    gone = catalogue.gone_on(name, column.low)
    if gone is not None:
        return Cell(name, column, None, gone=gone)
    return Cell(name, column, catalogue.expect(name, column.low), _runs_in(runs, name, column))


def _cell_signature(entry: Expectation) -> tuple[object, ...]:
    return (sequence(entry), survival(entry), entry.confidence)


def _runs_in(runs: Sequence[ObservedRun], disruption: str, span: Span) -> tuple[ObservedRun, ...]:
    found = [r for r in runs if r.disruption == disruption and span.covers(r.juju)]
    return tuple(sorted(found, key=lambda r: (r.started, r.slug), reverse=True))


def disruption_view(
    catalogue: Catalogue, name: str, runs: Sequence[ObservedRun] = ()
) -> DisruptionView:
    """Everything the catalogue says about one disruption, branch by branch."""
    spans = spans_between(catalogue.boundaries())
    branches = tuple(
        _branch(catalogue, name, variant, spans, runs) for variant in catalogue.variants(name)
    )
    branches = tuple(sorted(branches, key=lambda b: b.variant is not None))
    entries = [r.entry for b in branches for r in b.ranges]
    bugs: dict[str, KnownBug] = {}
    for entry in entries:
        for bug in entry.known_bugs:
            bugs.setdefault(bug.id, bug)
    main = branches[0].ranges[-1].entry
    return DisruptionView(
        name=name,
        summary=main.summary,
        lifecycle=name in LIFECYCLE,
        branches=branches,
        known_bugs=tuple(bugs.values()),
        citations=_citations(branches),
        observed=_runs_in(runs, name, Span(spans[0].low)),
        gone=catalogue.gone.get(name),
    )


def _branch(
    catalogue: Catalogue,
    name: str,
    variant: str | None,
    spans: Sequence[Span],
    runs: Sequence[ObservedRun],
) -> Branch:
    ranges: list[Range] = []
    for span in spans:
        try:
            entry = catalogue.expect(name, span.low, variant=variant)
        except UnknownName:  # this branch does not exist yet on these versions
            continue
        own = Span.of(entry)
        if not ranges or ranges[-1].span != own:
            # Observed runs on the main branch only: a run is judged against one branch
            # per unit, and the matrix's cells are the main branch's.
            observed = _runs_in(runs, name, own) if variant is None else ()
            ranges.append(Range(own, entry, observed))
    groups: list[Group] = []
    for item in ranges:
        if groups and sequence(groups[-1].ranges[0].entry) == sequence(item.entry):
            last = groups[-1]
            groups[-1] = Group(last.span.joined(item.span), (*last.ranges, item))
        else:
            groups.append(Group(item.span, (item,)))
    return Branch(variant, _selected(ranges[0].entry), tuple(groups))


def _selected(entry: Expectation) -> str:
    """When a branch is the one that happens, in words (as ``repro predict`` says it)."""
    if entry.selected_by is not None:
        return SELECTED_BY[entry.selected_by]
    if entry.container is not None:
        signals = "/".join(entry.signals)
        return f"when PID 1 of the {entry.container} container gets {signals}"
    return "what happens unless a branch below applies"


def _citations(branches: Sequence[Branch]) -> tuple[Citation, ...]:
    """Every distinct source of every range, in first-cited order, with where it applies."""
    backs: dict[Source, dict[str, list[Span]]] = {}
    for branch in branches:
        for item in branch.ranges:
            for source in item.entry.sources:
                spans = backs.setdefault(source, {}).setdefault(branch.name, [])
                if spans and spans[-1].high == item.span.low:
                    spans[-1] = spans[-1].joined(item.span)
                elif item.span not in spans:
                    spans.append(item.span)
    return tuple(
        Citation(source, tuple((branch, tuple(spans)) for branch, spans in where.items()))
        for source, where in backs.items()
    )
