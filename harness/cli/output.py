"""How a command writes a rendered document (a report, an SVG, a table) to its output."""

from __future__ import annotations

from typing import IO


def write_document(out: IO[str], text: str) -> None:
    """``text`` ending in a newline, whether or not its renderer gave one."""
    out.write(text if text.endswith("\n") else text + "\n")
