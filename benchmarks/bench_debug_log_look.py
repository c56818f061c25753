"""What one look at a model's debug-log costs while settling, as the model's log grows.

Not a test: run it by hand and read the numbers (``tests/unit/test_hostile_world.py``
asserts the bound this shows).

    python benchmarks/bench_debug_log_look.py [--history 1000,10000,100000] [--new 12]

The log is the real debug-log samples in tests/data/samples, cycled to the history size
(uniter, pebble and charm lines as a controller keeps them), with dates moving forward.
A simulated controller answers ``juju debug-log`` the way Juju does: the whole log for
``--replay``, the last N matching lines for ``--lines N`` (never more than 10000), and only
the modules asked for with ``--include-module`` (children at a dot boundary) at or above
``--level``. Two ways to look are timed on each history size, after ``--new`` lines have
arrived since the previous look:

- ``replay``: what settling did before: ``--replay --level INFO``, every line downloaded
  and parsed on every look;
- ``cursor``: what settling does: two filtered streams, each with its own
  ``harness.observe.log_cursor`` (the uniter's modules at INFO, and the charms' juju-log
  modules at DEBUG where ops' event lines are), the last lines only, each request grown
  just until the previous look's end is found; both parsed together (``ops=True``).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.live.juju_cli import HOOK_LOG_MODULES, MAX_LINES, OPS_LOG_MODULE  # noqa: E402
from harness.observe.debug_log import parse_lines  # noqa: E402
from harness.observe.log_cursor import LogCursor, merged  # noqa: E402

SAMPLES = ROOT / "tests" / "data" / "samples"
START = datetime(2026, 1, 2, 0, 0, 0, tzinfo=timezone.utc)


def sample_lines() -> list[tuple[str, str, str, str]]:
    """(entity, level, module, message) of every recorded debug-log line we keep."""
    found = []
    for path in sorted(SAMPLES.glob("debuglog_*k8s*.txt")):
        for line in path.read_text(errors="replace").splitlines():
            parts = line.split(" ", 4)
            if (
                len(parts) == 5
                and parts[0].endswith(":")
                and parts[2] in ("INFO", "DEBUG", "WARNING", "ERROR")
            ):
                found.append((parts[0], parts[2], parts[3], parts[4]))
    return found


def make_log(size: int, shapes: list[tuple[str, str, str, str]]) -> list[str]:
    lines = []
    for n, (entity, level, module, message) in zip(range(size), itertools.cycle(shapes)):
        stamp = (START + timedelta(milliseconds=250 * n)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        lines.append(f"{entity} {stamp} {level} {module} {message}")
    return lines


LEVELS = ("TRACE", "DEBUG", "INFO", "WARNING", "ERROR")


def _module_kept(module: str, modules: tuple[str, ...]) -> bool:
    return any(module == m or module.startswith(m + ".") for m in modules)


class Controller:
    """Answers the debug-log requests and counts the bytes it sends."""

    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.sent = 0

    def _last(self, lines: int, modules: tuple[str, ...], level: str) -> str:
        if lines > MAX_LINES:
            raise RuntimeError(f"too many lines requested ({lines}) maximum is {MAX_LINES}")
        picked: list[str] = []
        least = LEVELS.index(level)
        for line in reversed(self.log):
            parts = line.split(" ", 5)
            if (
                len(parts) > 4
                and LEVELS.index(parts[3]) >= least
                and _module_kept(parts[4], modules)
            ):
                picked.append(line)
                if len(picked) >= lines:
                    break
        text = "\n".join(reversed(picked))
        self.sent += len(text)
        return text

    async def debug_log(self) -> str:  # --replay --no-tail --level INFO
        text = "\n".join(line for line in self.log if " DEBUG " not in line)
        self.sent += len(text)
        return text

    async def debug_log_recent(self, lines: int) -> str:  # uniter modules, --level INFO
        return self._last(lines, HOOK_LOG_MODULES, "INFO")

    async def ops_log_recent(self, lines: int) -> str:  # --include-module unit --level DEBUG
        return self._last(lines, (OPS_LOG_MODULE,), "DEBUG")


async def one_look(
    history: int, new: int, shapes: list[tuple[str, str, str, str]]
) -> dict[str, float]:
    log = make_log(history + new, shapes)
    controller = Controller(log[:history])
    cursor = LogCursor(controller)  # type: ignore[arg-type]
    ops = LogCursor(controller, read=controller.ops_log_recent)  # type: ignore[arg-type]
    await cursor.new_lines()  # the previous look
    await ops.new_lines()
    controller.log = log
    controller.sent = 0
    began = time.perf_counter()
    fresh = merged(await ops.new_lines(), await cursor.new_lines())
    records = sum(1 for _ in parse_lines(fresh, ops=True))
    cursor_s, cursor_bytes = time.perf_counter() - began, controller.sent

    controller.sent = 0
    began = time.perf_counter()
    replay = sum(1 for _ in parse_lines((await controller.debug_log()).splitlines()))
    replay_s, replay_bytes = time.perf_counter() - began, controller.sent
    return {
        "history": history,
        "replay_bytes": replay_bytes,
        "replay_ms": replay_s * 1000,
        "replay_records": replay,
        "cursor_bytes": cursor_bytes,
        "cursor_ms": cursor_s * 1000,
        "cursor_records": records,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--history", default="1000,10000,100000")
    parser.add_argument("--new", type=int, default=12, help="lines logged since the last look")
    args = parser.parse_args()
    shapes = sample_lines()
    print("| history lines | replay: bytes | replay: ms | cursor: bytes | cursor: ms |")
    print("|---|---|---|---|---|")
    for size in (int(s) for s in args.history.split(",")):
        row = asyncio.run(one_look(size, args.new, shapes))
        print(
            f"| {size:,} | {row['replay_bytes']:,} | {row['replay_ms']:.1f} "
            f"| {row['cursor_bytes']:,} | {row['cursor_ms']:.1f} |"
        )


if __name__ == "__main__":
    main()
