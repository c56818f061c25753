"""``repro reference``: the lifecycle reference, a static site, from the catalogue and any
live evidence (``harness.reference``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.cli.arguments import Subparsers


def add_parsers(sub: Subparsers) -> None:
    p = sub.add_parser(
        "reference", help="write the lifecycle reference (a static site) from the catalogue"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="the site's folder (replaced)")
    p.add_argument(
        "--evidence",
        action="append",
        default=[],
        metavar="DIR",
        help="live evidence bundles to fold in (repeatable); the twin's never count",
    )
    p.set_defaults(func=cmd_reference)


def cmd_reference(args: argparse.Namespace) -> int:
    from harness.reference import build

    built = build(Path(args.out), evidence=[Path(e) for e in args.evidence])
    for item in built.set_aside:
        print(f"repro: not counted as observed: {item.path}: {item.reason}", file=sys.stderr)
    kib = (built.size + 1023) // 1024
    observed = f"{built.observed} live run{'s' if built.observed != 1 else ''}"
    print(
        f"{built.pages} pages, {built.pictures} pictures, {built.files} files, {kib} KiB; "
        f"{observed} folded in"
    )
    print(built.out)
    return 0
