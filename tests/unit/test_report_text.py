"""The plain-text report for Launchpad: ``repro report --format text`` and report.txt.

Launchpad shows a comment as it was typed (runs of spaces and of blank lines shown as one:
help.launchpad.net/Comments), so Markdown's escapes, pipe tables, HTML entities and
``<details>`` would appear raw. The text says the same as report.md, without any of them.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from evidence_samples import evidence

from harness.cli import main as cli
from harness.common.observations import HookRecord
from harness.common.redact import redacted
from harness.evidence.model import Evidence
from harness.evidence.write import write_bundle

ROOT = Path(__file__).parents[2]


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def awkward(backend: str = "twin") -> Evidence:
    """Evidence whose strings Markdown has to escape: brackets, <, &, _, * and pipes."""
    value = evidence(backend=backend)
    reboot = HookRecord("probe/0", "2026-01-01T10:00:03+00:00", "reboot", "debug-log")
    finding = replace(
        value.findings[0],
        detail=f"a <b> & c_d *e* [f] | g; token {redacted('hunter2-secret')}",
    )
    return replace(
        value,
        hooks=(*value.hooks, reboot),
        findings=(finding, *value.findings[1:]),
    )


MARKDOWN = [
    ("an HTML entity", re.compile(r"&(lt|gt|amp);")),
    ("a Markdown escape", re.compile(r"\\[\[\]_*|\\]")),
    ("a pipe table", re.compile(r"^\|", re.MULTILINE)),
    ("HTML", re.compile(r"</?(details|summary|br)\b")),
    ("a code fence", re.compile(r"^```", re.MULTILINE)),
    ("bold", re.compile(r"\*\*")),
    ("a heading mark", re.compile(r"^#+ ", re.MULTILINE)),
    ("a quote mark", re.compile(r"^> ", re.MULTILINE)),
]


def markup_in(text: str) -> list[str]:
    return [name for name, pattern in MARKDOWN if pattern.search(text)]


def test_report_format_text_has_no_markdown_and_says_simulated(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = write_bundle(awkward(), tmp_path / "run")

    code, out, err = repro(capsys, "report", str(folder), "--format", "text")

    assert code == 0, err
    assert markup_in(out) == []
    lines = out.splitlines()
    assert lines[0].startswith("SIMULATED reproduction: ")
    assert "SIMULATED: produced by the twin backend" in out
    assert "Backend: twin (SIMULATED)" in out
    assert "Times are the twin's simulated clock (SIMULATED)" in out
    # Strings from the bundle as they are, not escaped.
    assert "a <b> & c_d *e* [f] | g; token <redacted sha256:" in out
    assert "[reboot]" in out
    # Tables become one line per row, naming each column.
    assert "- Unit: probe/0; Source: debug-log; Sequence: " in out
    assert "Verdicts: 2 match, 1 deviation, 1 known-bug" in out
    # Code stays code: indented, so Launchpad keeps its leading spaces.
    assert "    juju deploy ./probe.charm probe" in lines
    # The same as report.txt in the folder.
    assert (folder / "report.txt").read_text("utf-8") == out


def test_each_report_says_which_to_paste_where(tmp_path: Path) -> None:
    folder = write_bundle(evidence(backend="live"), tmp_path / "run")
    text = (folder / "report.txt").read_text("utf-8")
    markdown = (folder / "report.md").read_text("utf-8")

    assert "SIMULATED" not in text.upper()  # live: nothing says simulated
    header_md = "\n".join(markdown.splitlines()[:4])
    assert "For GitHub, paste this file as it is." in header_md
    assert "For Launchpad" in header_md
    assert "`report.txt`" in header_md
    assert "`repro report FOLDER --format text`" in header_md
    header_text = "\n".join(text.splitlines()[:4])
    assert "Plain text for Launchpad" in header_text
    assert "For GitHub, paste report.md" in header_text


def test_text_and_markdown_say_the_same_things() -> None:
    from harness.evidence.report import render_report, render_text

    value = awkward(backend="live")
    text, markdown = render_text(value), render_report(value)

    for finding in value.findings:
        assert finding.subject in text
        assert finding.observed in text
    for command in value.commands:
        assert f"    {command}" in text
        assert command in markdown
    assert text.count("== ") == markdown.count("\n## ") + 1  # + the folded All findings


def test_the_readme_tells_launchpad_users_to_paste_the_text() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    evidence_section = readme.split("## Evidence", 1)[1].split("\n## ", 1)[0]

    assert "report.txt" in evidence_section
    assert "repro report" in evidence_section
    assert "--format text" in evidence_section
    assert re.search(r"Launchpad[^.]*report\.txt", evidence_section)
    assert re.search(r"GitHub[^.]*report\.md", evidence_section)
