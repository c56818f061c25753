"""One run's evidence written into its folder: bundle.json, report.md, report.txt, timeline.svg.

Each file is written under a temporary name and renamed into place; bundle.json goes first
so that a renderer failing cannot lose the data.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from harness.evidence.bundle import to_json
from harness.evidence.model import (
    BUNDLE_FILE,
    REPORT_FILE,
    TEXT_REPORT_FILE,
    TIMELINE_FILE,
    Evidence,
)
from harness.evidence.redaction import redact
from harness.evidence.report import render_report, render_text
from harness.evidence.svg import render_svg


def write_bundle(evidence: Evidence, folder: Path | str) -> Path:
    """Write bundle.json, report.md, report.txt and timeline.svg into ``folder``; returns it.

    bundle.json goes first so that a renderer failing cannot lose the data.
    """
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    safe = redact(evidence)
    _write_atomically(path / BUNDLE_FILE, to_json(safe))
    _write_atomically(path / REPORT_FILE, render_report(safe))
    _write_atomically(path / TEXT_REPORT_FILE, render_text(safe))
    _write_atomically(path / TIMELINE_FILE, render_svg(safe))
    return path


def _write_atomically(target: Path, text: str) -> None:
    """Write ``text`` under a temporary name beside ``target``, then rename it into place.

    A reader (``repro matrix`` in another job, a person) sees the old file or the whole new
    one, never a half-written one; a crash mid-write leaves only the temporary file.
    """
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115  # closed below, renamed after
        "w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.", delete=False
    )
    try:
        with handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o644)  # as a plain write would leave it, not mkstemp's 0600
        os.replace(handle.name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise
