"""Every file of the site, as ``{path: bytes}``: the same catalogue and evidence give the
same bytes (no clock, no absolute path, everything in a fixed order)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.catalogue import Catalogue
from harness.reference.bug_page import bug_page
from harness.reference.disruption_page import disruption_page
from harness.reference.evidence_page import evidence_page
from harness.reference.html import CSS, STYLESHEET
from harness.reference.index_page import disruption_page as page_of
from harness.reference.index_page import index_page
from harness.reference.model import disruption_view, matrix
from harness.reference.observed import ObservedRun
from harness.reference.seeds import SEEDS


def site_files(catalogue: Catalogue, runs: Sequence[ObservedRun] = ()) -> dict[str, bytes]:
    """The whole site: index, one page per disruption and per seed bug and per live run,
    the pictures, the stylesheet."""
    overview = matrix(catalogue, runs)
    files: dict[str, bytes] = {
        "index.html": index_page(overview, runs).encode(),
        STYLESHEET: CSS.encode(),
    }
    for name in catalogue.disruptions():
        rendered = disruption_page(disruption_view(catalogue, name, runs))
        files[page_of(name)] = rendered.html.encode()
        files |= {path: svg.encode() for path, svg in rendered.pictures.items()}
    for seed in SEEDS:
        files[seed.page] = bug_page(seed, catalogue, overview).encode()
    for run in runs:
        rendered_run = evidence_page(run)
        files[f"evidence-{run.slug}.html"] = rendered_run.html.encode()
        files |= rendered_run.files
    return dict(sorted(files.items()))
