"""How a command writes to its output: a rendered document, and a run's progress.

A run's progress lines are a courtesy: ``repro run ... | head -12`` closes the pipe after
twelve lines, and the run must go on and keep its evidence. ``courteous_stdout`` stands in
for ``sys.stdout`` while a run goes on: the first write that fails (a closed pipe, a full
disk) is the last one tried, and the run is told so once it knows where its bundle is.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from harness.common.charm_errors import CharmError


def write_document(out: IO[str], text: str) -> None:
    """``text`` ending in a newline, whether or not its renderer gave one."""
    out.write(text if text.endswith("\n") else text + "\n")


class CourteousStdout(io.TextIOBase):
    """Writes to ``stream`` until a write fails; from then on, nothing (``lost`` says why)."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self.stream = stream
        self.lost: str | None = None

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.lost is None:
            try:
                self.stream.write(text)
            except OSError as exc:
                self._lose(exc)
        return len(text)

    def flush(self) -> None:
        if self.lost is None:
            try:
                self.stream.flush()
            except OSError as exc:
                self._lose(exc)

    def _lose(self, exc: OSError) -> None:
        if isinstance(exc, BrokenPipeError):
            self.lost = "stdout was closed"
        else:
            self.lost = f"could not write to stdout ({exc.strerror or exc})"
        # What is still buffered would fail again when the interpreter flushes it at exit.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), self.stream.fileno())


@contextlib.contextmanager
def courteous_stdout() -> Iterator[CourteousStdout]:
    """``sys.stdout`` as a ``CourteousStdout`` while inside; the stream itself after."""
    real = sys.stdout
    courteous = CourteousStdout(real)
    sys.stdout = courteous
    try:
        yield courteous
    finally:
        sys.stdout = real


def say_charm_errors(errors: Sequence[CharmError]) -> None:
    """Each hook a charm's own code failed, on stderr: the unit, the hook, the exception
    and the last frames of its traceback (the bundle and report.md have them too)."""
    for error in errors:
        print(f"repro: {error.one_line()}", file=sys.stderr)
        for frame in error.traceback:
            print(f"repro:     {frame}", file=sys.stderr)
    sys.stderr.flush()


def print_folder(folder: Path) -> None:
    """The evidence folder, the last line; on stderr too if stdout could not take it."""
    print(folder, flush=True)
    lost = sys.stdout.lost if isinstance(sys.stdout, CourteousStdout) else None
    if lost is not None:
        print(f"repro: {lost}; the evidence is in {folder}", file=sys.stderr, flush=True)
