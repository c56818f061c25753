"""How a command writes a rendered document (a report, an SVG, a table) to its output,
and what a run says on stderr about the charms' own errors."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO

from harness.common.charm_errors import CharmError


def write_document(out: IO[str], text: str) -> None:
    """``text`` ending in a newline, whether or not its renderer gave one."""
    out.write(text if text.endswith("\n") else text + "\n")


def say_charm_errors(errors: Sequence[CharmError]) -> None:
    """Each hook a charm's own code failed, on stderr: the unit, the hook, the exception
    and the last frames of its traceback (the bundle and report.md have them too)."""
    for error in errors:
        print(f"repro: {error.one_line()}", file=sys.stderr)
        for frame in error.traceback:
            print(f"repro:     {frame}", file=sys.stderr)
    sys.stderr.flush()
