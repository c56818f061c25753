"""``repro timeline``: a saved ``juju debug-log`` (a file, gzipped or not, or stdin) as a
per-unit hook timeline, in text, JSON, Markdown or SVG."""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO, cast

from harness.cli.output import write_document
from harness.common.errors import HarnessError

if TYPE_CHECKING:
    from harness.cli.arguments import Subparsers

_UNIT = re.compile(r"^[a-z][a-z0-9-]*/\d+$")
GZIP_MAGIC = b"\x1f\x8b"


def add_parsers(sub: Subparsers) -> None:
    p = sub.add_parser("timeline", help="a juju debug-log dump as a per-unit hook timeline")
    p.add_argument("file", metavar="DEBUG_LOG_FILE", help="a saved debug-log, or - for stdin")
    p.add_argument("--unit", metavar="U", help="only this unit (app/N)")
    p.add_argument("--format", choices=("text", "json", "md", "svg"), default="text")
    p.set_defaults(func=cmd_timeline)


def cmd_timeline(args: argparse.Namespace) -> int:
    from harness.common.observations import HookRecord
    from harness.evidence.svg import render_timeline_svg
    from harness.evidence.timeline_text import render_markdown, write_json, write_text
    from harness.observe.debug_log import rows, unit_from_entity

    only = _normal_unit(args.unit) if args.unit else None
    name = "stdin" if args.file == "-" else Path(args.file).name
    # An agent log file has no entity on its lines; its name (unit-probe-0.log) says whose.
    default_unit = only or (unit_from_entity(Path(args.file).stem) if args.file != "-" else None)
    with _open_log(args.file) as handle:
        records = rows(handle, default_unit, ops=True)
        if only is not None:
            records = (r for r in records if r[0] == only)
        if args.format == "json":
            count = write_json(records, sys.stdout)
        elif args.format == "text":
            count = write_text(records, sys.stdout)
        else:
            kept = list(records)  # records only; the lines stream past
            count = len(kept)
            if args.format == "md":
                write_document(sys.stdout, render_markdown(kept, name))
            else:
                title = f"hook timeline: {name}" + (f" ({only})" if only else "")
                svg = render_timeline_svg([HookRecord(*r) for r in kept], title=title)
                write_document(sys.stdout, svg)
    if count == 0:
        whose = f" for {only}" if only else ""
        print(f"repro: no hook lines{whose} in {name}", file=sys.stderr)
    return 0


def _normal_unit(text: str) -> str:
    """``probe/0``, also accepting the agent name ``unit-probe-0``."""
    from harness.observe.debug_log import unit_from_entity

    unit = unit_from_entity(text) if text.startswith("unit-") else text
    if unit is None or not _UNIT.match(unit):
        raise HarnessError(f"not a unit name: {text!r}", "use app/N, e.g. mysql-router-k8s/0")
    return unit


def _text_of(raw: IO[bytes]) -> TextIO:
    """Text lines of a byte stream: gunzipped when it is gzip, without a UTF-8 BOM.

    Logs can hold any bytes; a bad one must not stop a 1 GB read, so it is replaced.
    """
    peek = getattr(raw, "peek", None)
    head = peek(2)[:2] if peek is not None else b""
    stream: IO[bytes] = raw
    if head == GZIP_MAGIC:
        stream = cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
    return io.TextIOWrapper(cast(Any, stream), encoding="utf-8-sig", errors="replace")


@contextlib.contextmanager
def _open_log(path: str) -> Iterator[TextIO]:
    if path == "-":
        if sys.stdin is None:  # fd 0 closed (`<&-`)
            raise HarnessError(
                "stdin is closed", "pipe a debug-log into repro timeline -, or pass its file"
            )
        buffer = getattr(sys.stdin, "buffer", None)
        yield _text_of(buffer) if buffer is not None else sys.stdin
        return
    file = Path(path)
    if not file.exists():
        raise HarnessError(
            f"no such file: {path}", "pass a saved `juju debug-log` dump, or - for stdin"
        )
    if file.is_dir():
        raise HarnessError(f"{path} is a folder", "pass a debug-log file, or - for stdin")
    try:
        raw = open(file, "rb", buffering=1 << 20)  # noqa: SIM115
    except OSError as exc:
        raise HarnessError(
            f"cannot read {path}: {exc.strerror}", "check its permissions"
        ) from None
    with raw, _text_of(raw) as handle:
        try:
            yield handle
        except (EOFError, gzip.BadGzipFile) as exc:
            raise HarnessError(
                f"{path} is a damaged gzip file ({exc})", "pass the log as it was saved"
            ) from None
