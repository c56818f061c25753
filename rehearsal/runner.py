"""One rehearsal case, as a CI runner runs the live suite: a world, the harness, what it left.

A case starts a world (``python -m rehearsal.world``) in a process group of its own, then
the harness exactly as ``tox -e integration`` or ``repro run --backend live`` runs it:
``juju``, ``microk8s`` and ``sudo`` first on PATH (the world's shims), the client store in
``JUJU_DATA``, the world's name in ``REPRO_REHEARSAL`` and the time scale in
``REPRO_TIME_SCALE``; no ``KUBECONFIG`` (the harness asks ``sudo -n microk8s config``, as on
a runner). For Juju 2.9 the harness runs with python-libjuju 2.9.49.1 first on its path
(``REHEARSAL_LIBJUJU29``: a folder pip installed it into), as ``LIBJUJU_VERSION_SPECIFIER``
gives a runner. Both processes are ended, children too, however the case ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rehearsal.world.charms import pack

ROOT = Path(__file__).resolve().parent.parent
LIBJUJU29_ENV = "REHEARSAL_LIBJUJU29"
READY_TIMEOUT = 120.0
REPRO = "from harness.cli.entry import main; raise SystemExit(main())"  # the console script
STOP_WAIT = 10.0


class CaseError(Exception):
    """The rehearsal itself could not run (bad setup), said in one line."""


@dataclass(frozen=True)
class Case:
    """What to rehearse: a Juju series, how the harness is run, against what world."""

    juju: str  # "2.9", "3.6", "4.0"
    argv: tuple[str, ...]  # after `python -m pytest` or `repro` (see ``kind``)
    kind: str = "pytest"  # "pytest": the integration suite; "repro": the repro CLI
    hostility: str = "hostile"
    scale: float = 10.0
    driver: str | None = None  # JUJU_DRIVER; None: the harness's auto
    timeout: float = 900.0
    name: str = ""
    # `juju ...` commands run (through the world's shims) before the harness starts, e.g.
    # a model of the user's that the harness is then pointed at with --model.
    setup: tuple[tuple[str, ...], ...] = ()
    # Folders put first on the harness's PYTHONPATH (a mutation plugin: -p NAME).
    pythonpath: tuple[str, ...] = ()


@dataclass
class Outcome:
    """What a case left behind."""

    case: Case
    folder: Path
    returncode: int
    seconds: float
    output: str
    world: dict[str, Any]
    tests: dict[str, str] = field(default_factory=dict)  # junit: test id -> outcome
    failures: dict[str, str] = field(default_factory=dict)  # test id -> message
    teardown_errors: dict[str, str] = field(default_factory=dict)  # test id -> message

    def bundles(self) -> list[dict[str, Any]]:
        found = []
        for path in sorted((self.folder / "evidence").rglob("bundle.json")):
            data = json.loads(path.read_text())
            data["_path"] = str(path)
            found.append(data)
        return found

    def world_file(self, name: str) -> str:
        path = self.folder / "world" / name
        return path.read_text() if path.exists() else ""

    def describe(self) -> str:
        failed = {k: v for k, v in self.tests.items() if v not in ("passed", "skipped", "xfailed")}
        lines = [
            f"{self.case.name or ' '.join(self.case.argv)}: exit {self.returncode} after "
            f"{self.seconds:.0f}s; {len(self.tests)} tests, failed: {sorted(failed) or 'none'}",
            *(f"  {k}: {self.failures.get(k, v)[:1500]}" for k, v in failed.items()),
            f"  folder: {self.folder}",
        ]
        if self.returncode and not self.tests:
            lines.append(self.output[-4000:])
        return "\n".join(lines)


def probe_charm(folder: Path) -> Path:
    return pack(ROOT / "charms" / "probe", folder / "probe_ubuntu-22.04-amd64.charm")


@contextlib.contextmanager
def world(case: Case, folder: Path) -> Iterator[dict[str, Any]]:
    """A running world for ``case``; ended (its whole process group) on exit."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": _pythonpath(os.environ.get("PYTHONPATH"))}
    log = (folder / "world.out").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rehearsal.world",
            "--juju",
            case.juju,
            "--scale",
            str(case.scale),
            "--hostility",
            case.hostility,
            "--dir",
            str(folder),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        start_new_session=True,
    )
    try:
        described = _ready(process, folder)
        yield described
    finally:
        end_group(process)
        log.close()


def _ready(process: subprocess.Popen[str], folder: Path) -> dict[str, Any]:
    deadline = time.monotonic() + READY_TIMEOUT
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith("READY "):
            return dict(json.loads(Path(line.split(" ", 1)[1].strip()).read_text()))
        if not line and process.poll() is not None:
            tail = (folder / "world.out").read_text()[-2000:]
            raise CaseError(f"the world exited ({process.returncode}) before it was ready: {tail}")
    raise CaseError(f"the world was not ready within {READY_TIMEOUT:.0f}s")


def end_group(process: subprocess.Popen[str]) -> None:
    """SIGTERM to the process and its children (its own session), SIGKILL if it stays."""
    if process.poll() is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # any child it left behind
        return
    for signum, wait in ((signal.SIGTERM, STOP_WAIT), (signal.SIGKILL, STOP_WAIT)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signum)
        try:
            process.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _pythonpath(existing: str | None, first: Sequence[str] = ()) -> str:
    parts = [*first, str(ROOT), str(ROOT / "charms" / "probe" / "src")]
    return os.pathsep.join([*parts, *(existing.split(os.pathsep) if existing else [])])


def harness_env(case: Case, described: dict[str, Any]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "JUJU_MODEL")}
    first: list[str] = []
    if case.juju == "2.9":
        libjuju = os.environ.get(LIBJUJU29_ENV)
        if not libjuju or not Path(libjuju, "juju").is_dir():
            raise CaseError(
                f"Juju 2.9 needs python-libjuju 2.9.49.1: set {LIBJUJU29_ENV} to a folder "
                "`pip install --target DIR --no-deps juju==2.9.49.1 websockets==13.1 "
                "theblues==0.5.2 paramiko==2.12.0` filled (tox -e rehearsal does)"
            )
        first.append(libjuju)
    first.extend(case.pythonpath)
    env.update(
        {
            "PATH": f"{described['bin']}{os.pathsep}{env.get('PATH', '')}",
            "JUJU_DATA": str(described["juju_data"]),
            "REPRO_REHEARSAL": str(described["identity"]),
            "REPRO_TIME_SCALE": f"{case.scale:g}",
            "PYTHONPATH": _pythonpath(env.get("PYTHONPATH"), first),
            "NO_COLOR": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    if case.driver:
        env["JUJU_DRIVER"] = case.driver
    return env


@contextlib.contextmanager
def terminated_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt here, so the ``finally`` blocks that end the world
    and the harness run (Python's default for SIGTERM is to die on the spot)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_case(case: Case, folder: Path) -> Outcome:
    """Run ``case`` in ``folder`` (world/, evidence/, junit.xml, harness.out)."""
    with terminated_as_interrupt():
        return _run_case(case, folder)


def _run_case(case: Case, folder: Path) -> Outcome:
    folder.mkdir(parents=True, exist_ok=True)
    charm = probe_charm(folder)
    evidence = folder / "evidence"
    started = time.monotonic()
    with world(case, folder / "world") as described:
        env = harness_env(case, described)
        for command in case.setup:
            done = subprocess.run(
                command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
            )
            if done.returncode != 0:
                raise CaseError(f"`{' '.join(command)}` failed: {done.stderr.strip()}")
        if case.kind == "pytest":
            argv = [
                sys.executable, "-m", "pytest", *case.argv,
                "--backend", "live", "--probe-charm", str(charm),
                "--evidence-dir", str(evidence), "--allow-node-restart",
                "-p", "no:cacheprovider", "-p", "no:randomly",
                "--junitxml", str(folder / "junit.xml"), "-rA", "--tb=short",
                "-o", "junit_family=xunit1",
            ]  # fmt: skip
        else:
            argv = [
                sys.executable, "-c", REPRO,
                *case.argv, "--backend", "live", "--probe-charm", str(charm),
                "--evidence-dir", str(evidence),
            ]  # fmt: skip
        out = (folder / "harness.out").open("w")
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            returncode = process.wait(case.timeout)
        except subprocess.TimeoutExpired:
            returncode = -1
        finally:
            end_group(process)
            out.close()
    outcome = Outcome(
        case,
        folder,
        returncode,
        time.monotonic() - started,
        (folder / "harness.out").read_text(),
        described,
    )
    _read_junit(outcome, folder / "junit.xml")
    return outcome


def _read_junit(outcome: Outcome, path: Path) -> None:
    """Each test's outcome; an error in a fixture's teardown (pytest reports it as a second
    entry for the test, "failed on teardown with ...") is kept apart: it is the teardown's."""
    if not path.exists():
        return
    for case in ET.parse(path).getroot().iter("testcase"):
        test = f"{case.get('classname')}::{case.get('name')}"
        result = "passed"
        for child in case:
            message = f"{child.get('message', '')}\n{child.text or ''}"
            if child.tag == "error" and "teardown" in child.get("message", ""):
                outcome.teardown_errors[test] = message
                continue
            if child.tag in ("failure", "error"):
                result = "failed" if child.tag == "failure" else "error"
                outcome.failures[test] = message
            elif child.tag == "skipped":
                result = "xfailed" if "xfail" in child.get("type", "") else "skipped"
                outcome.failures.setdefault(test, child.get("message", ""))
        if test in outcome.tests and result == "passed":
            continue  # the teardown's own entry: the call's result stands
        outcome.tests[test] = result


if __name__ == "__main__":  # python -m rehearsal.runner 3.6 tests/integration/x.py [-k ...]
    import tempfile

    given = sys.argv[1:]
    series, rest = given[0], given[1:]
    kind = "repro" if rest and rest[0] == "run" else "pytest"
    target = Path(tempfile.mkdtemp(prefix=f"rehearsal-{series}-"))
    result = run_case(Case(series, tuple(rest), kind=kind), target)
    print(result.describe())
    sys.exit(0 if result.returncode == 0 else 1)
