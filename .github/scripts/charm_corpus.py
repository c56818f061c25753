#!/usr/bin/env python3
"""The charm corpus: public sidecar charms at pinned commits, run through the CLI twin.

Used by .github/workflows/charm-corpus.yaml, one job per charm of .github/charm-corpus.yaml:

  charm_corpus.py matrix                       the job matrix (JSON), for $GITHUB_OUTPUT
  charm_corpus.py fetch CHARM DIR              the charm's repository at its pinned commit
  charm_corpus.py requirements CHARM DIR OUT   its runtime dependencies, as its tool exports them
  charm_corpus.py run CHARM DIR VENV OUT       every disruption through `repro run` (twin)
  charm_corpus.py check OUT...                 fail on a regression against the baseline

A regression: a run that did not finish (exit 2 or no bundle), a deviation (exit 1), or a
charm error the baseline does not list for that charm (hook and exception type). The twin's
output is SIMULATED; the corpus checks the harness runs real charm code as Juju would, not
Juju itself.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

CORPUS = Path(__file__).resolve().parents[1] / "charm-corpus.yaml"
EXCLUDED = frozenset({"postgresql-k8s", "grafana-agent-k8s", "traefik-k8s"})
RESULTS = "results.json"


def load(path: Path = CORPUS) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: not a mapping")
    return data


def charm(name: str, corpus: dict[str, Any]) -> dict[str, Any]:
    charms: dict[str, Any] = corpus["charms"]
    if name not in charms:
        raise SystemExit(f"no charm {name!r} in {CORPUS.name}: {', '.join(sorted(charms))}")
    found: dict[str, Any] = charms[name]
    return found


def matrix(corpus: dict[str, Any]) -> list[dict[str, str]]:
    return [
        {
            "charm": name,
            "python": str(spec["python"]),
            "deps": str(spec["deps"]),
            "apt": " ".join(spec.get("apt") or ()),
        }
        for name, spec in sorted(corpus["charms"].items())
    ]


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True)


def fetch(name: str, dest: Path, corpus: dict[str, Any]) -> None:
    spec = charm(name, corpus)
    dest.mkdir(parents=True, exist_ok=True)
    _git("init", "--quiet", cwd=dest)
    _git(
        "fetch",
        "--quiet",
        "--depth",
        "1",
        f"https://github.com/{spec['repo']}",
        spec["commit"],
        cwd=dest,
    )
    _git("checkout", "--quiet", "FETCH_HEAD", cwd=dest)


def export_command(tool: str, out: Path) -> list[str]:
    """How each tool exports the runtime dependencies (what charmcraft packs)."""
    if tool == "poetry":  # charmcraft.yaml's poetry-export-extra-args in every poetry charm
        return ["poetry", "export", "--only", "main,charm-libs", "--without-hashes",
                "-f", "requirements.txt", "-o", str(out)]  # fmt: skip
    if tool == "uv":
        return ["uv", "export", "--frozen", "--no-dev", "--no-hashes", "--no-emit-project",
                "-o", str(out)]  # fmt: skip
    if tool == "requirements":
        return ["cp", "requirements.txt", str(out)]
    raise SystemExit(f"unknown dependency tool {tool!r}: poetry, uv or requirements")


def requirements(name: str, source: Path, out: Path, corpus: dict[str, Any]) -> None:
    subprocess.run(
        export_command(str(charm(name, corpus)["deps"]), out.resolve()), cwd=source, check=True
    )


def app_of(spec: dict[str, Any], name: str) -> str:
    apps = spec["bundle"]["applications"]
    return name if name in apps else next(iter(apps))


def run(name: str, source: Path, venv: Path, out: Path, corpus: dict[str, Any]) -> int:
    """Every disruption on the charm; writes results.json beside the evidence."""
    spec = charm(name, corpus)
    out.mkdir(parents=True, exist_ok=True)
    bundle = out / "bundle.yaml"
    bundle.write_text(yaml.safe_dump(spec["bundle"], sort_keys=False), encoding="utf-8")
    app = app_of(spec, name)
    results = []
    for disruption in corpus["disruptions"]:
        command = [
            "repro", "run", disruption, "--bundle", str(bundle), "--app", app,
            "--charm-source", f"{app}={source}", "--charm-venv", f"{app}={venv}",
            "--backend", "twin", "--juju", str(corpus["juju"]),
            "--evidence-dir", str(out / disruption),
        ]  # fmt: skip
        print("$", " ".join(command), flush=True)
        done = subprocess.run(command, check=False)
        results.append({"disruption": disruption, "exit": done.returncode})
    (out / RESULTS).write_text(json.dumps({"charm": name, "runs": results}, indent=2))
    return 0


def regressions(out: Path, corpus: dict[str, Any]) -> list[str]:
    """What in one charm's results the baseline does not allow."""
    data = json.loads((out / RESULTS).read_text(encoding="utf-8"))
    name = data["charm"]
    allowed = {(h, e) for h, errs in (charm(name, corpus).get("charm_errors") or {}).items()
               for e in ([errs] if isinstance(errs, str) else errs)}  # fmt: skip
    found = []
    for result in data["runs"]:
        disruption, code = result["disruption"], result["exit"]
        where = f"{name} {disruption}"
        bundles = sorted((out / disruption).glob("*/bundle.json"))
        if code == 2 or not bundles:
            found.append(f"{where}: the run did not finish (exit {code})")
            continue
        evidence = json.loads(bundles[-1].read_text(encoding="utf-8"))
        if evidence.get("error"):
            found.append(f"{where}: stopped early: {evidence['error']}")
        if code == 1:
            deviations = [
                f["subject"] for f in evidence["findings"] if f["verdict"] == "deviation"
            ]
            found.append(f"{where}: deviations: {'; '.join(deviations)}")
        for error in evidence.get("charm_errors", ()):
            kind = error["exception"].split(":", 1)[0]
            if error.get("undetermined") or (error["hook"], kind) in allowed:
                continue
            found.append(f"{where}: charm error not in the baseline: {error['unit']} "
                         f"{error['hook']}: {error['exception']}")  # fmt: skip
    return found


def check(outs: list[Path], corpus: dict[str, Any]) -> int:
    ran = {json.loads((o / RESULTS).read_text())["charm"] for o in outs if (o / RESULTS).is_file()}
    missing = sorted(set(corpus["charms"]) - ran)
    found = [f"{name}: no results (its job failed before running)" for name in missing]
    for out in outs:
        if (out / RESULTS).is_file():
            found += regressions(out, corpus)
    for line in found:
        print(f"::error title=charm corpus regression::{line}")
    print(f"{len(found)} regressions in {len(outs)} charms" if found else "no regression")
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("matrix")
    p = sub.add_parser("fetch")
    p.add_argument("charm")
    p.add_argument("dest", type=Path)
    p = sub.add_parser("requirements")
    p.add_argument("charm")
    p.add_argument("source", type=Path)
    p.add_argument("out", type=Path)
    p = sub.add_parser("run")
    p.add_argument("charm")
    p.add_argument("source", type=Path)
    p.add_argument("venv", type=Path)
    p.add_argument("out", type=Path)
    p = sub.add_parser("check")
    p.add_argument("outs", type=Path, nargs="+")
    args = parser.parse_args(argv)
    corpus = load()
    if args.command == "matrix":
        print(json.dumps(matrix(corpus)))
        return 0
    if args.command == "fetch":
        fetch(args.charm, args.dest, corpus)
        return 0
    if args.command == "requirements":
        requirements(args.charm, args.source, args.out, corpus)
        return 0
    if args.command == "run":
        return run(
            args.charm, args.source.resolve(), args.venv.resolve(), args.out.resolve(), corpus
        )
    return check(list(args.outs), corpus)


if __name__ == "__main__":
    sys.exit(main())
