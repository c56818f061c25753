"""The ``repro`` console script: Ctrl-C at any moment gives one line, never a traceback.

It imports nothing but ``sys`` before its ``try``, so a Ctrl-C while the CLI and its
dependencies load (the slowest part of start-up) is caught like one during a command.
"""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from harness.cli.main import main as cli_main
    except KeyboardInterrupt:
        print("repro: interrupted while starting", file=sys.stderr)
        return 130
    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
