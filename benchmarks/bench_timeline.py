"""How fast ``repro timeline`` reads a big debug-log, against merely reading its lines.

Not a unit test: run it by hand, or ``tox -e perf`` to hold it to today's figures (within
12x a bare read, and at least 8x faster than jhack's parser, on real debug-log lines).

    python benchmarks/bench_timeline.py [--lines 3000000] [--hook-every 97] [--keep FILE]
    python benchmarks/bench_timeline.py --real [--samples 'debuglog_*full*.txt'] [--check 12]
    JHACK_SRC=~/src/jhack python benchmarks/bench_timeline.py --real --check-jhack 8

It writes a log shaped like a real one (mostly uniter, pebble and charm DEBUG chatter, a
few of which mention "hook" without being a hook result; about one hook line in
``--hook-every``, with --date and without), or with ``--real`` one cycled from the recorded
debug-log samples' lines, then runs each mode in a fresh interpreter so that the peak memory
(max RSS) of each is its own. Each mode runs ``--repeat`` times after its imports; the best
CPU time (``time.process_time``) counts, which a busy shared machine disturbs least:

- ``read``: ``for line in f: pass`` on the file opened as UTF-8 text, the floor;
- ``parse``: ``harness.observe.debug_log.parse_lines`` over the file, counting records;
  ``parse-ops`` the same with ops' event lines, as ``repro timeline`` reads them;
- ``text``, ``json`` and ``md``: ``repro timeline FILE --format ...`` into /dev/null;
- ``regex``: only the parser's two line patterns, each matched on the lines it matches (picked
  before the clock starts): what a parser built on these patterns spends in the regex engine
  alone, whatever it does around it (not run unless named in ``--modes``);
- ``bound``: less than any line-by-line timeline can do: three substring tests per line
  (fewer than the parser's markers need), and for each line that passes a split into five
  fields and one line written to /dev/null; no pattern, no check, no join (not run unless
  named in ``--modes``).

- ``jhack``: jhack's debug-log parser (``jhack tail --file LOG``'s main loop: its file
  reader, then ``Processor.process`` per line, with jhack's no-op ``Printer`` in place of the
  terminal UI); ``jhack-defer`` the same with ``--show-defer``. jhack comes from
  ``$JHACK_SRC`` (a checkout of canonical/jhack) or an installed ``jhack``, with what its
  parser imports (rich, parse, toml, typer: ``tox -e perf`` installs them).

``--check RATIO`` exits 1 when text, json or md takes more than RATIO times the floor.
``--check-jhack RATIO`` exits 1 unless each of them is at least RATIO times faster (CPU)
than ``jhack`` on the same file, measured in the same run. Where jhack cannot be imported it
says why, and holds them instead to RATIO times faster than jhack's figure recorded side by
side (``JHACK_TIMES_READ`` x this run's floor): the floor is measured, jhack's cost is not.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

UNITS = ("mysql-router-k8s-0", "mysql-k8s-0", "mysql-k8s-1", "probe-0", "probe-peer-0")
HOOKS = (
    "update-status",
    "config-changed",
    "database-relation-changed",
    "workload-pebble-ready",
    "upgrade-charm",
    "start",
    "stop",
)
NOISE = (
    "DEBUG juju.worker.uniter.remotestate got update status interval change for {u}: ok=true",
    "DEBUG unit.{a}.juju-log database:4: Emitting Juju event database_relation_changed.",
    "DEBUG juju.worker.uniter.operation running operation run update-status hook for {a}",
    "DEBUG juju.machinelock machine lock released for {a} uniter (run update-status hook)",
    "DEBUG juju.worker.uniter [AGENT-STATUS] executing: running update-status hook",
    "INFO unit.{a}.juju-log Router configuration written to /etc/mysqlrouter/mysqlrouter.conf",
    "DEBUG juju.worker.uniter.pebblepoller pebble still starting up on container workload",
    "DEBUG juju.api [{n}] API call ApiProxy.Status took 12.3ms",
    "WARNING unit.{a}.juju-log No relation: certificates",
)

CHILD = r"""
import json, os, resource, sys, time
mode, path, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, os.environ["BENCH_ROOT"])
began = time.perf_counter()
if mode in ("parse", "parse-ops"):
    from harness.observe.debug_log import parse_lines
elif mode == "regex":
    from harness.observe.debug_log import _OPS_LINE, _UNITER_LINE
elif mode in ("jhack", "jhack-defer"):
    if os.environ.get("JHACK_SRC"):
        sys.path.insert(0, os.environ["JHACK_SRC"])
    from jhack.utils.debug_log_interlacer import DebugLogInterlacer
    from jhack.utils.tail_charms.core.processor import Processor
    from jhack.utils.tail_charms.ui.printer import Printer
elif mode not in ("read", "bound"):
    from harness.cli.main import main
imported = time.perf_counter() - began
matched = []
if mode == "regex":
    # Picked before the clock starts: the record lines and the pattern that matches each.
    with open(path, encoding="utf-8", errors="replace", buffering=1 << 20) as f:
        for line in f:
            for pattern in (_UNITER_LINE, _OPS_LINE):
                if pattern.match(line):
                    matched.append((pattern.match, line))
                    break


def once():
    count = 0
    if mode == "read":
        with open(path, encoding="utf-8", errors="replace", buffering=1 << 20) as f:
            for line in f:
                pass
    elif mode == "regex":
        for match, line in matched:
            match(line)
        count = len(matched)
    elif mode == "bound":
        with open(os.devnull, "w", encoding="utf-8") as sink, open(
            path, encoding="utf-8", errors="replace", buffering=1 << 20
        ) as f:
            write = sink.write
            for line in f:
                if "hook" in line or "mitting " in line or "Deferring <" in line:
                    p = line.split(" ", 4)
                    write(f"{p[1]} {p[0]} {p[-1]}")
                    count += 1
    elif mode in ("jhack", "jhack-defer"):
        # `jhack tail --file LOG` (with --show-defer for jhack-defer) as its main loop reads a
        # file (tail_charms.py: _logs_from_files, then processor.process per line), with
        # jhack's own no-op Printer in place of the terminal UI: the parser, not the drawing.
        processor = Processor(printer=Printer(), show_defer=mode == "jhack-defer")
        source = DebugLogInterlacer([path])
        while True:
            line = source.readline().encode("utf-8")
            if not line:
                break
            if processor.process(line.decode("utf-8").strip()):
                count += 1
        processor.quit()
    elif mode in ("parse", "parse-ops"):
        with open(path, encoding="utf-8", errors="replace", buffering=1 << 20) as f:
            for _ in parse_lines(f, ops=mode == "parse-ops"):
                count += 1
    else:
        stdout, sys.stdout = sys.stdout, open(os.devnull, "w", encoding="utf-8")
        try:
            main(["timeline", path, "--format", mode])
        finally:
            sys.stdout.close()
            sys.stdout = stdout
    return count


cpu, wall = [], []
for _ in range(repeat):
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    count = once()
    cpu.append(time.process_time() - start_cpu)
    wall.append(time.perf_counter() - start_wall)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = {"cpu": min(cpu), "seconds": min(wall), "import": imported, "records": count,
          "maxrss_kb": rss}
print(json.dumps(result), file=sys.stderr)
"""


def generate(path: Path, lines: int, hook_every: int, seed: int = 7) -> int:
    """Write the log; returns how many hook lines it holds."""
    rng = random.Random(seed)
    hooks = 0
    with path.open("w", encoding="utf-8") as out:
        for i in range(lines):
            entity = UNITS[i % len(UNITS)]
            app_unit = entity.rsplit("-", 1)[0] + "/" + entity.rsplit("-", 1)[1]
            seconds = i // 50
            clock = f"{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
            # Half the file as with --date, half without: both formats in one run.
            stamp = f"2026-12-02 {clock}" if i < lines // 2 else clock
            if rng.randrange(hook_every) == 0:
                hook = HOOKS[rng.randrange(len(HOOKS))]
                message = (
                    f'INFO juju.worker.uniter.operation ran "{hook}" hook '
                    "(via hook dispatching script: dispatch)"
                )
                hooks += 1
            else:
                template = NOISE[rng.randrange(len(NOISE))]
                message = template.format(u=f"unit-{entity}", a=app_unit, n=i % 997)
            out.write(f"unit-{entity}: {stamp} {message}\n")
    return hooks


def generate_from_samples(path: Path, lines: int, pattern: str = "debuglog_*.txt") -> int:
    """Write the log from the real debug-log samples' lines, cycled; returns its hook lines."""
    samples = sorted((ROOT / "tests" / "data" / "samples").glob(pattern))
    if not samples:
        raise SystemExit(f"no sample matches {pattern!r} in tests/data/samples")
    real = [
        line if line.endswith("\n") else line + "\n"
        for sample in samples
        for line in sample.read_text("utf-8").splitlines()
        if line.strip() and not line.startswith("# ")
    ]
    hooks = 0
    with path.open("w", encoding="utf-8") as out:
        for i in range(lines):
            line = real[i % len(real)]
            hooks += 'ran "' in line or "Emitting Juju event" in line
            out.write(line)
    return hooks


class CannotRun(Exception):
    """A mode whose code cannot be imported here; the message says why."""


def run_child(mode: str, path: Path, repeat: int) -> dict[str, float]:
    env = dict(os.environ, BENCH_ROOT=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path), str(repeat)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    lines = done.stderr.strip().splitlines()
    if done.returncode != 0:
        last = lines[-1] if lines else f"exit {done.returncode}"
        if "ModuleNotFoundError" in last or "ImportError" in last:
            raise CannotRun(last)
        raise subprocess.CalledProcessError(done.returncode, mode, done.stdout, done.stderr)
    result: dict[str, float] = json.loads(lines[-1])
    return result


# jhack's parser (`jhack` mode) on the --real log of `tox -e perf` (500,000 lines), in
# multiples of a bare read of the same file, CPU time, measured side by side with jhack
# 0.4.4.0.27 (benchmarks/README.md, 2026-12-03: 66.7 s against a 0.099 s floor, load 5 to 6):
# the stand-in for --check-jhack where jhack cannot be imported, and said to be one.
JHACK_TIMES_READ = 676.0

TARGET_MODES = ("text", "json", "md")
"""What a user runs: ``repro timeline LOG --format ...``; ``--check`` holds these to the bound."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3_000_000)
    parser.add_argument("--hook-every", type=int, default=97, help="about one hook line in N")
    parser.add_argument("--keep", type=Path, help="write the log here and keep it")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--real", action="store_true", help="build the log from the real samples' lines"
    )
    parser.add_argument(
        "--samples",
        default="debuglog_*.txt",
        help="with --real: which samples in tests/data/samples (a glob)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode; the best counts")
    parser.add_argument(
        "--jhack-repeat", type=int, help="runs of the jhack modes (default: --repeat)"
    )
    parser.add_argument(
        "--check-jhack",
        type=float,
        metavar="RATIO",
        help="exit 1 unless text, json and md are each RATIO x faster than jhack (CPU)",
    )
    parser.add_argument(
        "--modes", default="read,parse,parse-ops,text,json,md", help="comma-separated"
    )
    parser.add_argument(
        "--check",
        type=float,
        metavar="RATIO",
        help="exit 1 unless text, json and md each take at most RATIO x a bare read (CPU)",
    )
    args = parser.parse_args()
    modes = ["read", *(m for m in args.modes.split(",") if m != "read")]
    if args.check_jhack is not None and "jhack" not in modes:
        modes.append("jhack")

    with tempfile.TemporaryDirectory() as scratch:
        path = args.keep or Path(scratch) / "debug.log"
        began = time.perf_counter()
        if args.real:
            hooks = generate_from_samples(path, args.lines, args.samples)
        else:
            hooks = generate(path, args.lines, args.hook_every)
        size_mb = path.stat().st_size / 1e6
        print(
            f"generated {args.lines:,} lines ({size_mb:,.0f} MB, {hooks:,} hook lines) "
            f"in {time.perf_counter() - began:.1f}s",
            flush=True,
        )
        results = {}
        missing: dict[str, str] = {}
        for mode in modes:
            repeat = args.repeat
            if mode.startswith("jhack") and args.jhack_repeat:
                repeat = args.jhack_repeat
            try:
                results[mode] = run_child(mode, path, repeat)
            except CannotRun as why:
                missing[mode] = str(why)
                print(f"{mode}: not measured: {why}", flush=True)

    floor = results["read"]["cpu"]
    rows = []
    for mode, r in results.items():
        rows.append(
            {
                "mode": mode,
                "cpu_seconds": round(r["cpu"], 3),
                "seconds": round(r["seconds"], 3),
                "import_seconds": round(r["import"], 3),
                "lines_per_second": round(args.lines / r["cpu"]),
                "mb_per_second": round(size_mb / r["cpu"], 1),
                "times_read": round(r["cpu"] / floor, 2),
                "max_rss_mb": round(r["maxrss_kb"] / 1024, 1),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(
            f"{'mode':<9} {'cpu s':>7} {'wall s':>7} {'import s':>8} {'lines/s':>11} "
            f"{'MB/s':>7} {'x read':>7} {'max RSS':>9}"
        )
        for row in rows:
            print(
                f"{row['mode']:<9} {row['cpu_seconds']:>7.3f} {row['seconds']:>7.3f} "
                f"{row['import_seconds']:>8.3f} {row['lines_per_second']:>11,} "
                f"{row['mb_per_second']:>7.1f} {row['times_read']:>7.2f} "
                f"{row['max_rss_mb']:>7.1f}MB"
            )
    failed = False
    targets = [r for r in rows if r["mode"] in TARGET_MODES]
    if args.check is not None:
        for row in targets:
            if row["times_read"] > args.check:
                failed = True
                print(
                    f"over {args.check:g}x a bare read: --format {row['mode']} "
                    f"({row['times_read']}x)"
                )
        if targets and not failed:
            worst = max(r["times_read"] for r in targets)
            print(f"within {args.check:g}x a bare read (worst {worst}x)")
    if args.check_jhack is not None:
        if "jhack" in results:
            jhack = results["jhack"]["cpu"]
            against = "jhack, measured in this run"
        else:
            jhack = JHACK_TIMES_READ * floor
            against = (
                f"jhack's recorded {JHACK_TIMES_READ:g}x a bare read (jhack could not be "
                f"imported: {missing.get('jhack', 'not run')}), times this run's floor"
            )
        for row in targets:
            faster = jhack / row["cpu_seconds"] if row["cpu_seconds"] else float("inf")
            verdict = "ok" if faster >= args.check_jhack else "TOO SLOW"
            failed |= faster < args.check_jhack
            print(
                f"--format {row['mode']}: {faster:.1f}x faster than {against} "
                f"(needs {args.check_jhack:g}x): {verdict}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
