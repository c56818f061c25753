"""A report as blocks, and its two renderings: Markdown for GitHub, plain text for Launchpad.

``report.py`` says once what a report holds, as blocks. ``to_markdown`` renders them for
GitHub: tables, code spans, a folded section, every string from a bundle escaped by
``harness.evidence.markdown``. ``to_text`` renders them for Launchpad, which shows a comment
as it was typed but for runs of spaces and of blank lines, each shown as one
(help.launchpad.net/Comments): no markup to show raw, no escapes, no column alignment; a
table is one line per row, naming each column, and code is indented (leading spaces stay).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.evidence import markdown as md


@dataclass(frozen=True)
class Code:
    """Inline code: a command, a path, a name to type as it is."""

    text: str


@dataclass(frozen=True)
class Strong:
    text: str


@dataclass(frozen=True)
class Link:
    """A link when the URL is http(s); shown as ``label: url`` otherwise, and in plain text."""

    label: str
    url: str


Inline = str | Code | Strong | Link
Cell = str | Code


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    parts: tuple[Inline, ...]


@dataclass(frozen=True)
class Banner:
    """A notice the reader must not miss (the report is SIMULATED)."""

    parts: tuple[Inline, ...]


@dataclass(frozen=True)
class Bullets:
    items: tuple[tuple[Inline, ...], ...]


@dataclass(frozen=True)
class Table:
    """Rows of cells; a header of blanks makes a two-column table of names and values."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class CodeBlock:
    lines: tuple[str, ...]
    language: str = "sh"


@dataclass(frozen=True)
class Folded:
    """A section folded away on GitHub (``<details>``); in plain text, a section."""

    summary: str
    blocks: tuple[Block, ...]


Block = Heading | Paragraph | Banner | Bullets | Table | CodeBlock | Folded


def para(*parts: Inline) -> Paragraph:
    return Paragraph(tuple(parts))


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> Table:
    """A table; a cell that is not Code is shown as text (``None`` as empty)."""
    return Table(
        tuple(header),
        tuple(
            tuple(c if isinstance(c, Code) else "" if c is None else str(c) for c in row)
            for row in rows
        ),
    )


# --- Markdown (GitHub) ----------------------------------------------------------------------


def _md_inline(parts: Iterable[Inline]) -> str:
    out = []
    for part in parts:
        if isinstance(part, Code):
            out.append(md.code(part.text))
        elif isinstance(part, Strong):
            out.append(f"**{md.text(part.text)}**")
        elif isinstance(part, Link):
            out.append(md.link(part.label, part.url))
        else:
            out.append(md.text(part))
    return "".join(out)


def _md_cell(value: Cell) -> str:
    if isinstance(value, Code):
        return md.code(value.text).replace("|", "\\|")
    return md.cell(value)


def _md_block(block: Block) -> list[str]:
    if isinstance(block, Heading):
        return ["#" * block.level + " " + md.text(block.text)]
    if isinstance(block, Paragraph):
        return [_md_inline(block.parts)]
    if isinstance(block, Banner):
        return ["> " + _md_inline(block.parts)]
    if isinstance(block, Bullets):
        return ["- " + _md_inline(item) for item in block.items]
    if isinstance(block, Table):
        lines = ["| " + " | ".join(block.header) + " |", "|" + "---|" * len(block.header)]
        return lines + ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
    if isinstance(block, CodeBlock):
        return md.fenced(block.lines, block.language)
    lines = [f"<details><summary>{md.text(block.summary)}</summary>"]
    for inner in block.blocks:
        lines += ["", *_md_block(inner)]
    return [*lines, "", "</details>"]


def to_markdown(blocks: Sequence[Block]) -> str:
    """GitHub Markdown: blocks separated by a blank line."""
    lines: list[str] = []
    for block in blocks:
        if lines:
            lines.append("")
        lines += _md_block(block)
    return "\n".join(lines) + "\n"


# --- plain text (Launchpad) -----------------------------------------------------------------


def _text(value: str) -> str:
    """Text as it is on one line: control characters shown, line breaks as ``; ``."""
    lines = md.visible(value.replace("\r", "")).split("\n")
    if len(lines) == 1:
        return lines[0]
    return "; ".join(line.strip() for line in lines if line.strip())


def _text_inline(parts: Iterable[Inline]) -> str:
    out = []
    for part in parts:
        if isinstance(part, Link):
            out.append(f"{_text(part.label)}: {_text(part.url)}")
        elif isinstance(part, (Code, Strong)):
            out.append(_text(part.text))
        else:
            out.append(_text(part))
    return "".join(out)


def _text_cell(value: Cell) -> str:
    return _text(value.text if isinstance(value, Code) else value)


def _text_row(header: Sequence[str], row: Sequence[Cell]) -> str:
    if not any(header):  # names and values
        name, *values = (_text_cell(c) for c in row)
        return f"{name}: {'; '.join(v for v in values if v)}"
    shown = [
        f"{_text(name)}: {_text_cell(cell)}" if name else _text_cell(cell)
        for name, cell in zip(header, row, strict=True)
        if _text_cell(cell) not in ("", "-")
    ]
    return "- " + "; ".join(shown)


def _text_block(block: Block) -> list[str]:
    if isinstance(block, Heading):
        title = _text(block.text)
        if block.level == 1:
            return [title, "=" * len(title)]
        return [f"== {title} =="]
    if isinstance(block, (Paragraph, Banner)):
        return [_text_inline(block.parts)]
    if isinstance(block, Bullets):
        return ["- " + _text_inline(item) for item in block.items]
    if isinstance(block, Table):
        return [_text_row(block.header, row) for row in block.rows]
    if isinstance(block, CodeBlock):
        return ["    " + md.visible(line) if line.strip() else "" for line in block.lines]
    lines = [f"== {_text(block.summary)} =="]
    for inner in block.blocks:
        lines += ["", *_text_block(inner)]
    return lines


def to_text(blocks: Sequence[Block]) -> str:
    """Plain text for Launchpad: blocks separated by a blank line, no markup."""
    lines: list[str] = []
    for block in blocks:
        if lines:
            lines.append("")
        lines += _text_block(block)
    return "\n".join(line.rstrip() for line in lines) + "\n"
