"""The lifecycle reference: a static site of what Juju does to a Kubernetes unit.

``repro reference --out DIR`` writes it from the expectation catalogue (and, with
``--evidence``, the live runs' bundles): an overview matrix (disruptions down, Juju version
ranges across), a page per disruption (each branch's hooks per version range drawn as a
timeline, what survives, known bugs, every claim's source), a page per seed bug, and a page
per live run. Plain HTML and CSS, no JavaScript; the same inputs give the same bytes.

Modules, in the order the data flows:

- ``spans``: Juju version ranges and their names; ``sequence``: one expectation in a
  reader's words (hooks in order for leader and non-leader, what survives, timing).
- ``observed``: which bundles count as Juju observed (finished live runs only; never the
  twin, never a rehearsal) and what each says.
- ``model``: the matrix and each disruption's view, from the catalogue's public API.
- ``picture``: a predicted sequence drawn by the evidence's own timeline renderer.
- ``html``, ``fragments``: safe HTML and the pieces every page shares; ``index_page``,
  ``disruption_page``, ``bug_page`` (quotes from ``seeds``), ``evidence_page``.
- ``site``: every file as bytes; ``write``: checked, then moved into place whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.catalogue import Catalogue, load
from harness.reference.observed import Gathered, SetAside, gather
from harness.reference.site import site_files
from harness.reference.write import check_out, write_site

__all__ = ["Built", "SetAside", "build"]


@dataclass(frozen=True)
class Built:
    """What ``build`` wrote: how many files and bytes, and which bundles it set aside."""

    out: Path
    files: int
    pages: int
    pictures: int
    size: int  # bytes
    observed: int  # live runs folded in
    set_aside: tuple[SetAside, ...]


def build(
    out: Path, *, evidence: Iterable[Path] = (), catalogue: Catalogue | None = None
) -> Built:
    """Write the site to ``out``; HarnessError (one line, with the fix) for bad input."""
    check_out(out)  # before reading anything: a bad --out is told at once
    gathered = gather(evidence) if evidence else Gathered((), ())
    files = site_files(catalogue or load(), gathered.runs)
    size = write_site(out, files)
    return Built(
        out=out,
        files=len(files),
        pages=sum(1 for path in files if path.endswith(".html")),
        pictures=sum(1 for path in files if path.endswith(".svg")),
        size=size,
        observed=len(gathered.runs),
        set_aside=gathered.set_aside,
    )
