"""``repro``: list, predict, timeline, run, report, matrix and reference.

Every failure a person can fix ends in one line on stderr and exit status 2; ``run`` exits 1
when a finding deviates from the catalogue and 0 otherwise. Each command group lives in a
module of its own (``catalogue``, ``timeline``, ``run``, ``evidence``, ``reference``) that
adds its parsers; this one assembles them and turns each error into its line and exit status.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from harness.cli import catalogue, evidence, reference, run, timeline
from harness.cli.arguments import Parser, UsageError
from harness.common.errors import HarnessError


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="repro",
        description="Reproduce Juju lifecycle bugs on MicroK8s (or the twin) and write evidence.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    catalogue.add_parsers(sub)  # list, predict
    timeline.add_parsers(sub)
    run.add_parsers(sub)
    evidence.add_parsers(sub)  # report, matrix
    reference.add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args, extra = build_parser().parse_known_args(argv)
        if extra:  # named by the command's own help, which lists what it takes
            raise UsageError(
                f"unrecognized arguments: {' '.join(extra)} (see repro {args.command} --help)"
            )
        return int(args.func(args))
    except UsageError as exc:
        print(f"repro: {exc}", file=sys.stderr)
    except HarnessError as exc:
        print(f"repro: {_one_line(str(exc))}", file=sys.stderr)
    except KeyboardInterrupt as exc:
        print(f"repro: {_one_line(str(exc)) or 'interrupted'}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `repro timeline big.log | head`: the reader left; that is not an error.
        # Point stdout at devnull so the interpreter's final flush does not fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # e.g. output redirected to a full disk
        if exc.filename:
            problem, fix = f"{exc.strerror or exc}: {exc.filename}", "check that path"
        else:
            problem, fix = str(exc.strerror or exc), "check free space where the output goes"
        print(f"repro: {problem} ({fix})", file=sys.stderr)
    except Exception as exc:  # a bug, but still one line: the bundle has the rest
        print(f"repro: {type(exc).__name__}: {_one_line(str(exc))}", file=sys.stderr)
    return 2


def _one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":  # without the console script's Ctrl-C handling: -m harness.cli.entry
    raise SystemExit(main())
