"""The ``repro`` console script: Ctrl-C at any moment gives one line, never a traceback.

pip's generated script runs ``import re, sys``, ``from harness.cli.entry import main``, a
``re.sub`` on ``sys.argv[0]`` and only then ``main()``: a Ctrl-C in those lines is outside
any ``try``, and so is one while the interpreter exits after the command. So when the
program's own script imports this module (never when a test or a library does), it sets a
SIGINT handler that prints one line and exits 130 at once. ``main`` keeps it while the
command line loads, gives SIGINT back to Python (a KeyboardInterrupt, which every command
turns into its own line) just before the command runs, and after the command ends a Ctrl-C
while the interpreter exits (the twin's temporary folders are removed then) ends the
process at once with the command's status, quietly.

It imports only what the interpreter has loaded before any script runs (``os``, ``sys``
and ``_signal``, the C half of ``signal``: ``signal`` itself loads ``enum``, tens of
milliseconds on a busy machine, all of them a window for a traceback). What is left is
Python's own start-up and the script's ``import`` lines before this module runs.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # no stub; see the docstring
import os
import sys

TYPE_CHECKING = False  # typing is not loaded yet either; mypy reads this name as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType

    Handler = Callable[[int, FrameType | None], None]

STARTING = "repro: interrupted while starting"


def _exit_at_once(code: int, line: str) -> Handler:
    def handler(signum: int, frame: FrameType | None) -> None:
        try:
            if line:
                os.write(2, (line + "\n").encode())
            for stream in (sys.stdout, sys.stderr):  # what the command printed stays
                if stream is not None:
                    stream.flush()
        except BaseException:  # exiting either way, and at once
            pass
        os._exit(code)

    return handler


def _set_ctrl_c(handler: Handler) -> None:
    """Handle SIGINT with ``handler``, unless it is ignored (a background job's) or this is
    not the main thread (where it cannot be caught)."""
    if _signal.getsignal(_signal.SIGINT) in (_signal.SIG_IGN, None):
        return
    try:  # noqa: SIM105 - contextlib is not loaded yet
        _signal.signal(_signal.SIGINT, handler)
    except ValueError:
        pass


def _imported_by_the_program() -> bool:
    """Whether the module importing this one is the program's own script (``__main__``):
    the console script, or ``python -c``; not a test module or a library."""
    frame: FrameType | None = sys._getframe(2)  # the caller of this module's body
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back  # importlib's own frames, and any import hook's
    return frame is not None and frame.f_globals.get("__name__") == "__main__"


if _imported_by_the_program():
    _set_ctrl_c(_exit_at_once(130, STARTING))


def main() -> int:
    _set_ctrl_c(_exit_at_once(130, STARTING))  # also when imported some other way
    try:
        from harness.cli.main import main as cli_main
    except KeyboardInterrupt:  # SIGINT could not be caught here (not the main thread)
        print(STARTING, file=sys.stderr)
        return 130
    _set_ctrl_c(_signal.default_int_handler)
    code = cli_main()
    _set_ctrl_c(_exit_at_once(code, ""))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
