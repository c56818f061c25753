"""Real signals to a real ``repro``, and a stdout closed under it (issue 29, points 1 to 4).

Each test starts ``python -m harness.cli.entry`` (or the installed console script) as a
child process, holds it at a named moment with ``held/sitecustomize.py`` or waits for a line
it prints, sends the signal a terminal (Ctrl-C: SIGINT) or a supervisor (SIGTERM) sends, and
reads what the child printed and the bundle it left. Every wait is bounded; none is a guess.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELD = Path(__file__).resolve().parent / "held"
BUNDLE = ROOT / "tests" / "data" / "bundles" / "postgresql-k8s" / "bundle.yaml"
RUN = ["run", "lp2021891-pod-delete", "--backend", "twin"]
WAIT = 180.0  # seconds: bounds each wait on a loaded two-core machine; none is slept
POLL = 0.01


def _as_a_terminal_starts_it() -> None:
    """The child starts with SIGINT and SIGTERM deliverable, as from a shell with job control
    (pytest may run with SIGINT ignored or blocked, and a child inherits both)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def _wait(condition: Any, what: str, child: Child) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        ended = child.process.poll() is not None
        if time.monotonic() > deadline or (ended and not condition()):
            child.kill()
            raise AssertionError(f"never {what}; the child printed:\n{child.output()}")
        time.sleep(POLL)


class Child:
    """A ``repro`` process, its stdout read line by line (and closed after ``read_lines``)."""

    def __init__(
        self,
        tmp_path: Path,
        argv: list[str],
        *,
        holds: tuple[str, ...] = (),
        command: list[str] | None = None,
        read_lines: int | None = None,
    ) -> None:
        self.holds = tmp_path / "holds"
        self.holds.mkdir()
        paths = [str(HELD), str(ROOT), str(ROOT / "charms" / "probe" / "src")]
        paths.append(os.environ.get("PYTHONPATH", ""))
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(p for p in paths if p),
            REPRO_HOLD_DIR=str(self.holds),
            REPRO_HOLDS=",".join(holds),
        )
        self.process = subprocess.Popen(
            [*(command or [sys.executable, "-m", "harness.cli.entry"]), *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
            preexec_fn=_as_a_terminal_starts_it,
        )
        self.lines: list[str] = []
        self.err = ""
        self._readers = [
            threading.Thread(target=self._read, args=(read_lines,), daemon=True),
            threading.Thread(target=self._read_err, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, limit: int | None) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        for line in stdout:
            self.lines.append(line.rstrip("\n"))
            if limit is not None and len(self.lines) >= limit:
                break
        stdout.close()  # as `head -12` does once it has its lines

    def _read_err(self) -> None:
        assert self.process.stderr is not None
        self.err = self.process.stderr.read()

    def printed(self, prefix: str) -> None:
        def seen() -> bool:
            return any(line.startswith(prefix) for line in self.lines)

        _wait(seen, f"printed {prefix!r}", self)

    def stdout_closed(self) -> None:
        """Wait until the reader has its lines and has closed stdout (``read_lines``)."""
        _wait(lambda: not self._readers[0].is_alive(), "closed stdout", self)

    def held(self, moment: int) -> None:
        _wait((self.holds / f"held-{moment}").exists, f"reached moment {moment}", self)

    def go(self, moment: int) -> None:
        (self.holds / f"go-{moment}").write_text("go")

    def send(self, sig: signal.Signals) -> None:
        self.process.send_signal(sig)

    def finish(self) -> tuple[int, list[str], str]:
        try:
            self.process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"the child did not end; it printed:\n{self.output()}") from None
        for reader in self._readers:
            reader.join(WAIT)
        return self.process.returncode, self.lines, self.err

    def output(self) -> str:
        return "\n".join(self.lines) + "\n-- stderr --\n" + self.err

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=WAIT)
        for reader in self._readers:
            reader.join(WAIT)


def _bundle(evidence_dir: Path) -> dict[str, Any]:
    (path,) = evidence_dir.glob("*/bundle.json")
    return dict(json.loads(path.read_text("utf-8")))


# --- 1. Ctrl-C or SIGTERM while the stack is being deployed -------------------------------


@pytest.mark.parametrize(
    ("sig", "bundle"),
    [(signal.SIGINT, False), (signal.SIGTERM, True)],
    ids=["ctrl-c-default-stack", "sigterm-with-bundle"],
)
def test_a_signal_while_deploying_is_one_line_exit_130_and_a_bundle_saying_during_what(
    tmp_path: Path, sig: signal.Signals, bundle: bool
) -> None:
    evidence_dir = tmp_path / "ev"
    what = ["pod-delete", "--bundle", str(BUNDLE), "--app", "postgresql-k8s"] if bundle else []
    argv = [
        "run",
        *(what or ["lp2021891-pod-delete"]),
        "--backend", "twin", "--evidence-dir", str(evidence_dir),
    ]  # fmt: skip
    # Held in deploy's first wait until settled: the apps are deployed and related, and
    # the wait awaits (as a live deploy awaits `juju`), so the signal's cancel lands there.
    child = Child(tmp_path, argv, holds=("call:harness.run.deploy:wait_settled",))
    child.held(0)
    child.send(sig)
    child.go(0)
    code, out, err = child.finish()

    assert code == 130, child.output()
    assert "Traceback" not in err
    assert "CancelledError" not in err
    during = f"interrupted by {sig.name} during deploying the stack"
    assert err.strip().splitlines() == [f"repro: {during}"]
    raw = _bundle(evidence_dir)
    assert raw["interrupted"] is True
    assert raw["error"] == during
    assert [step["name"] for step in raw["steps"]] == ["deploy"]  # the steps so far
    assert out[-1] == str(next(evidence_dir.iterdir()))


# --- 2. a second Ctrl-C while the first is being handled -----------------------------------


def test_a_second_ctrl_c_while_the_bundle_is_written_keeps_what_the_run_saw(
    tmp_path: Path,
) -> None:
    # The second Ctrl-C, 50 ms after the first during settle, landed while the
    # bundle was being written (fsync): the bundle was lost and a "start-up" one written in
    # its place. Here the child is held in that write until the second signal has been sent.
    evidence_dir = tmp_path / "ev"
    argv = [*RUN, "--evidence-dir", str(evidence_dir)]
    # Held in the settle after the pods were deleted (wait_settled's third call: deploy
    # makes two), not merely after its line was printed: on a loaded machine the twin's
    # settle can end before a signal sent on that line arrives.
    settle = "call:harness.observe.settle:wait_settled#3"
    child = Child(tmp_path, argv, holds=(settle, "call:harness.evidence.write:write_bundle"))
    child.held(0)
    child.send(signal.SIGINT)
    child.go(0)
    child.held(1)  # the run stops and writes what it has
    child.send(signal.SIGINT)
    child.go(1)
    code, _, err = child.finish()

    assert code == 130, child.output()
    assert "Traceback" not in err
    during = "interrupted by SIGINT during waiting until settled"
    assert err.strip().splitlines() == [f"repro: {during}"]
    raw = _bundle(evidence_dir)
    assert raw["interrupted"] is True
    assert raw["error"] == during
    names = [step["name"] for step in raw["steps"]]
    assert "snapshot before" in names
    assert "delete pod mysql-router-k8s-0" in names
    assert "delete pod probe-0" in names
    assert raw["before"] is not None


# --- 3. Ctrl-C while the console script starts ---------------------------------------------


def _console_script() -> list[str]:
    """The installed ``repro`` (pip's generated script), else the same lines under -c."""
    script = Path(sys.executable).parent / "repro"
    if script.is_file():
        return [str(script)]
    return [
        sys.executable,
        "-c",
        "import re\nimport sys\nfrom harness.cli.entry import main\n"
        "sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "sys.exit(main())",
    ]


@pytest.mark.parametrize(
    "moment",
    [
        # the script's own lines after its import of harness.cli.entry, before main()
        "import:harness.cli.entry",
        # main() loading the command line's modules
        "import:harness.cli.main",
        # the command line building its parser
        "call:harness.cli.main:build_parser",
    ],
)
def test_ctrl_c_while_the_console_script_starts_is_one_line(tmp_path: Path, moment: str) -> None:
    child = Child(tmp_path, ["list"], holds=(moment,), command=_console_script())
    child.held(0)
    child.send(signal.SIGINT)
    child.go(0)
    code, _, err = child.finish()

    assert "Traceback" not in err
    (line,) = err.strip().splitlines()
    # "while starting" until the command line is loaded; the parser's own try after that
    assert line in ("repro: interrupted while starting", "repro: interrupted")
    assert code == 130


def test_ctrl_c_while_the_interpreter_exits_after_the_command_is_quiet(tmp_path: Path) -> None:
    # After `repro list` has printed its lines, the interpreter runs its exit callbacks
    # (a twin run removes its temporary folders there): a Ctrl-C then was a traceback.
    child = Child(tmp_path, ["list"], holds=("exit",), command=_console_script())
    child.held(0)
    child.send(signal.SIGINT)
    child.go(0)
    code, out, err = child.finish()

    assert err == ""
    assert code == 0  # the command's own status
    assert out[0].startswith("disruptions")
    assert out == _listed()  # all it printed reached the reader


def _listed() -> list[str]:
    """What ``repro list`` prints when nothing interrupts it."""
    from harness.cli.main import main

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["list"]) == 0
    return printed.getvalue().splitlines()


# --- 4. a stdout closed under a run ---------------------------------------------------------


def test_a_run_piped_into_head_goes_on_and_keeps_its_evidence(tmp_path: Path) -> None:
    # `repro run lp2021891-pod-delete | head -12`: head reads twelve lines and exits.
    evidence_dir = tmp_path / "ev"
    argv = [*RUN, "--evidence-dir", str(evidence_dir)]
    # Held as it writes the bundle (its progress lines printed, the folder's line not yet)
    # until head has its twelve lines and has gone: on a loaded machine the run could
    # otherwise print every line into the pipe before head closes it.
    holds = ("call:harness.evidence.write:write_bundle",)
    child = Child(tmp_path, argv, holds=holds, read_lines=12)
    child.held(0)
    child.stdout_closed()
    child.go(0)
    code, out, err = child.finish()

    assert len(out) == 12
    assert "Traceback" not in err
    assert "BrokenPipe" not in err
    assert code == 0, child.output()  # the run's own verdict: no deviation on the twin
    raw = _bundle(evidence_dir)
    assert raw["error"] is None
    assert raw["interrupted"] is False
    assert raw["findings"]
    folder = next(evidence_dir.iterdir())
    # The folder's line went nowhere: stderr names it, in one line.
    assert err.strip().splitlines() == [f"repro: stdout was closed; the evidence is in {folder}"]
