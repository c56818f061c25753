"""``repro report`` and ``repro matrix``: evidence bundles already written, rendered again
(one bundle as Markdown for GitHub, plain text for Launchpad, SVG or JSON; many as one
Markdown table)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from harness.cli.output import write_document

if TYPE_CHECKING:
    from harness.cli.arguments import Subparsers


def add_parsers(sub: Subparsers) -> None:
    p = sub.add_parser("report", help="re-render a bundle")
    p.add_argument("bundle", metavar="BUNDLE_DIR")
    p.add_argument(
        "--format",
        choices=("md", "text", "svg", "json"),
        default="md",
        help="md: Markdown, to paste into GitHub (report.md); text: plain text, to paste "
        "into Launchpad, which shows Markdown as typed (report.txt); svg: the timeline; "
        "json: bundle.json",
    )
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("matrix", help="one Markdown table from many bundles")
    p.add_argument("bundles", nargs="+", metavar="BUNDLE_DIR")
    p.add_argument("--strict", action="store_true", help="exit 1 when any bundle cannot be read")
    p.set_defaults(func=cmd_matrix)


def cmd_report(args: argparse.Namespace) -> int:
    from harness.evidence.bundle import read_bundle, to_json
    from harness.evidence.redaction import redact
    from harness.evidence.report import render_report, render_text
    from harness.evidence.svg import render_svg

    # Redacted again: a bundle written before options were redacted still has the values.
    evidence = redact(read_bundle(args.bundle))
    render = {"md": render_report, "text": render_text, "svg": render_svg, "json": to_json}[
        args.format
    ]
    write_document(sys.stdout, render(evidence))
    return 0


def cmd_matrix(args: argparse.Namespace) -> int:
    from harness.common.counts import counted
    from harness.evidence.matrix import find_bundles, read_bundles, render_matrix

    good, bad = read_bundles(find_bundles(args.bundles))
    write_document(sys.stdout, render_matrix(good, bad))
    if bad and args.strict:
        print(
            f"repro: {counted(len(bad), 'unreadable bundle')} (listed under the table)",
            file=sys.stderr,
        )
        return 1
    return 0
