"""How fast ``repro timeline`` reads a big debug-log, against merely reading its lines.

Not a test: run it by hand and read the numbers.

    python benchmarks/bench_timeline.py [--lines 3000000] [--hook-every 97] [--keep FILE]

It writes a log shaped like a real one (mostly uniter, pebble and charm DEBUG chatter, a
few of which mention "hook" without being a hook result; about one hook line in
``--hook-every``, with --date and without), then runs each mode in a fresh interpreter so
that the peak memory (max RSS) of each is its own:

- ``read``: ``for line in f: pass``, the floor;
- ``parse``: ``harness.observe.debug_log.parse_lines`` over the file, counting records;
- ``text`` and ``json``: ``repro timeline FILE --format text|json`` into /dev/null.
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
mode, path = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.environ["BENCH_ROOT"])
start = time.perf_counter()
count = 0
if mode == "read":
    with open(path, encoding="utf-8", errors="replace", buffering=1 << 20) as f:
        for line in f:
            pass
elif mode in ("parse", "parse-ops"):
    from harness.observe.debug_log import parse_lines
    with open(path, encoding="utf-8", errors="replace", buffering=1 << 20) as f:
        for _ in parse_lines(f, ops=mode == "parse-ops"):
            count += 1
else:
    from harness.cli import main
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    main(["timeline", path, "--format", mode])
seconds = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "records": count, "maxrss_kb": rss}), file=sys.stderr)
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


def generate_from_samples(path: Path, lines: int) -> int:
    """Write the log from the real debug-log samples' lines, cycled; returns its hook lines."""
    samples = sorted((ROOT / "tests" / "data" / "samples").glob("debuglog_*.txt"))
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


def run_child(mode: str, path: Path) -> dict[str, float]:
    env = dict(os.environ, BENCH_ROOT=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stderr.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3_000_000)
    parser.add_argument("--hook-every", type=int, default=97, help="about one hook line in N")
    parser.add_argument("--keep", type=Path, help="write the log here and keep it")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--real", action="store_true", help="build the log from the real samples' lines"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        path = args.keep or Path(scratch) / "debug.log"
        began = time.perf_counter()
        if args.real:
            hooks = generate_from_samples(path, args.lines)
        else:
            hooks = generate(path, args.lines, args.hook_every)
        size_mb = path.stat().st_size / 1e6
        print(
            f"generated {args.lines:,} lines ({size_mb:,.0f} MB, {hooks:,} hook lines) "
            f"in {time.perf_counter() - began:.1f}s",
            flush=True,
        )
        modes = ("read", "parse", "parse-ops", "text", "json")
        results = {mode: run_child(mode, path) for mode in modes}

    floor = results["read"]["seconds"]
    rows = []
    for mode, r in results.items():
        rows.append(
            {
                "mode": mode,
                "seconds": round(r["seconds"], 2),
                "lines_per_second": round(args.lines / r["seconds"]),
                "mb_per_second": round(size_mb / r["seconds"], 1),
                "times_read": round(r["seconds"] / floor, 2),
                "max_rss_mb": round(r["maxrss_kb"] / 1024, 1),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'mode':<6} {'seconds':>8} {'lines/s':>12} {'MB/s':>7} {'x read':>7} {'max RSS':>9}")
    for row in rows:
        print(
            f"{row['mode']:<6} {row['seconds']:>8.2f} {row['lines_per_second']:>12,} "
            f"{row['mb_per_second']:>7.1f} {row['times_read']:>7.2f} {row['max_rss_mb']:>7.1f}MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
