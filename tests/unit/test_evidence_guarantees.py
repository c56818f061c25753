"""What ``repro run`` guarantees about its evidence (README, "Evidence").

Every run gets a folder of its own, even when two start in the same second; a bad
``--evidence-dir`` fails before anything runs; an interrupted run says so in its bundle and
in the matrix; Ctrl-C at start-up is one line.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main as cli
from harness.cli import run as cli_run
from harness.common.errors import HarnessError
from harness.evidence.bundle import read_bundle
from harness.run import launch

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = "lp2021891-pod-delete"


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def child_env() -> dict[str, str]:
    paths = [str(ROOT), str(ROOT / "charms" / "probe" / "src"), os.environ.get("PYTHONPATH", "")]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))


# --- 1. unique folders, atomic bundles ----------------------------------------------------

# Both children load the CLI, say so, and start together when told, so they reach the folder
# choice in the same second (as two CI jobs or two terminals started together do) however
# long each one's start-up takes on a loaded machine.
_TOGETHER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from harness.cli.main import main
    ready, go = Path(sys.argv[1]), Path(sys.argv[2])
    ready.write_text("ready")
    while not go.exists():
        time.sleep(0.005)
    sys.exit(main(sys.argv[3:]))
    """
)
READY_GUARD = 120.0  # seconds: bounds children that never get ready; they are waited on


def test_two_concurrent_runs_into_one_folder_give_two_complete_bundles(tmp_path: Path) -> None:
    evidence_dir = tmp_path / "evidence"
    go = tmp_path / "go"
    ready = [tmp_path / f"ready-{n}" for n in range(2)]
    argv = ["run", SCENARIO, "--backend", "twin", "--evidence-dir", str(evidence_dir)]
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _TOGETHER, str(flag), str(go), *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        for flag in ready
    ]
    until = time.monotonic() + READY_GUARD
    while not all(flag.exists() for flag in ready):
        exited = [child.returncode for child in children if child.poll() is not None]
        if exited or time.monotonic() > until:
            for child in children:
                child.kill()
            outputs = [child.communicate() for child in children]
            pytest.fail(f"the children never both got ready (exited: {exited}): {outputs}")
        time.sleep(0.01)
    go.touch()
    outputs = [child.communicate(timeout=300) for child in children]

    assert [child.returncode for child in children] == [0, 0], outputs
    printed = [Path(out.strip().splitlines()[-1]) for out, _ in outputs]
    assert printed[0] != printed[1], "both runs printed the same folder"
    assert sorted(p.name for p in evidence_dir.iterdir()) == sorted(p.name for p in printed)
    for folder in printed:
        evidence = read_bundle(folder)  # complete and valid JSON, schema-checked
        assert evidence.complete
        assert evidence.findings
        assert (folder / "report.md").read_text("utf-8").startswith("# SIMULATED")
        assert (folder / "timeline.svg").read_text("utf-8").lstrip().startswith("<svg")
        assert not [p.name for p in folder.iterdir() if p.name.startswith(".")]  # no temp


def test_claims_in_the_same_second_never_share_a_folder(tmp_path: Path) -> None:
    from harness.evidence.folders import claim_folder

    now = datetime(2026, 12, 2, 12, 0, 0, tzinfo=timezone.utc)
    claimed: list[Path] = []
    barrier = threading.Barrier(8)

    def claim() -> None:
        barrier.wait()
        claimed.append(claim_folder(tmp_path, "pod-delete-twin", now=now))

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(set(claimed)) == 8
    assert "pod-delete-twin-20261202T120000Z" in {p.name for p in claimed}
    assert all(p.is_dir() and p.parent == tmp_path for p in claimed)


# --- 2. a bad --evidence-dir fails first ----------------------------------------------------


def _nothing_may_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the run started although its evidence folder is unusable")

    monkeypatch.setattr(cli_run, "_controller_reachable", forbidden)
    monkeypatch.setattr(launch, "deploy_and_run", forbidden)


@pytest.mark.parametrize("where", ["file", "under-a-file"])
def test_an_evidence_dir_that_cannot_hold_folders_fails_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    where: str,
) -> None:
    _nothing_may_run(monkeypatch)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", "utf-8")
    target = blocker if where == "file" else blocker / "evidence"

    code, out, err = repro(capsys, "run", SCENARIO, "--evidence-dir", str(target))

    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "--evidence-dir" in err
    assert "a file" in err


def test_an_unwritable_evidence_dir_fails_before_anything_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _nothing_may_run(monkeypatch)
    # Root may write anywhere, so the refusal comes from the filesystem call itself,
    # as it does on a read-only mount.
    import harness.evidence.folders as folders

    def refuse(*args: Any, **kwargs: Any) -> str:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(folders.tempfile, "mkdtemp", refuse)

    code, _, err = repro(capsys, "run", SCENARIO, "--evidence-dir", str(tmp_path / "ev"))

    assert code == 2
    assert "cannot be written: Permission denied" in err
    with pytest.raises(HarnessError):
        folders.check_evidence_root(tmp_path / "ev")


def _juju_whose_api_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real `juju` on PATH that knows its controller but whose API refuses every call."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "juju"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "show-controller" ]; then echo \'{"lab": {"details": {}}}\'; exit 0; fi\n'
        "echo 'ERROR cannot connect to API: dial tcp 10.1.1.1:17070: connect: "
        "connection refused' >&2\n"
        "exit 1\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize("depth", ["new", "new/and/deeper"])
def test_a_juju_whose_api_refuses_at_start_leaves_no_evidence_folder(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, depth: str
) -> None:
    """Refused before it starts (README, "What is guaranteed"): nothing is left behind.

    The evidence root was created by its own check, before the controller was asked, and
    stayed behind empty when the controller refused.
    """
    _juju_whose_api_refuses(tmp_path, monkeypatch)
    charm = tmp_path / "probe.charm"
    charm.write_bytes(b"")
    root = tmp_path / "ev"

    code, out, err = repro(
        capsys,
        "run",
        SCENARIO,
        "--backend",
        "live",
        "--probe-charm",
        str(charm),
        "--evidence-dir",
        str(root / depth),
    )

    assert code == 2
    assert "cannot connect to API" in err
    assert err.count("\n") == 1
    assert not root.exists(), sorted(p.name for p in root.rglob("*"))
    assert out == ""


def test_a_run_that_fails_at_start_and_cannot_write_its_folder_leaves_no_empty_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The claimed folder cannot take the bundle (a full disk, a folder made read-only
    meanwhile): the bundle goes to the fallback folder and the run says where, as at the
    end of a run; no empty folder stays behind."""
    import tempfile

    import harness.evidence.write as write

    monkeypatch.setattr(cli_run, "_controller_reachable", lambda: True)

    async def refused(*args: Any, **kwargs: Any) -> Any:
        raise HarnessError("ERROR cannot connect to API", "check the controller")

    monkeypatch.setattr(launch, "deploy_and_run", refused)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    real = write.write_bundle
    root = tmp_path / "ev"

    def full_disk(evidence: Any, folder: Any) -> Path:
        if Path(folder).parent == root:
            raise OSError(28, "No space left on device")
        return real(evidence, folder)

    monkeypatch.setattr(write, "write_bundle", full_disk)
    charm = tmp_path / "probe.charm"
    charm.write_bytes(b"")

    code, out, err = repro(
        capsys,
        "run",
        SCENARIO,
        "--backend",
        "live",
        "--probe-charm",
        str(charm),
        "--evidence-dir",
        str(root),
    )

    assert code == 2
    assert "cannot connect to API" in err
    assert not root.exists() or not any(root.iterdir()), list(root.iterdir())
    written = Path(out.strip().splitlines()[-1])
    assert written.parent == tmp_path / "tmp" / "repro-evidence"
    assert read_bundle(written).error.startswith("ERROR cannot connect to API")
    assert "No space left on device" in out


def test_the_evidence_dir_check_creates_nothing(tmp_path: Path) -> None:
    from harness.evidence.folders import check_evidence_root

    check_evidence_root(tmp_path / "a" / "b")
    assert list(tmp_path.iterdir()) == []


# --- 3. an interrupted run is recorded ------------------------------------------------------


def test_ctrl_c_during_a_run_stops_it_and_the_bundle_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import harness.observe.snapshot as snapshot

    original = snapshot.take_snapshot
    calls: list[int] = []

    async def ctrl_c_at_the_second_snapshot(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # what a terminal's Ctrl-C sends
        return await original(*args, **kwargs)

    monkeypatch.setattr(snapshot, "take_snapshot", ctrl_c_at_the_second_snapshot)
    evidence_dir = tmp_path / "ev"
    handler_before = signal.getsignal(signal.SIGINT)

    code, out, err = repro(
        capsys, "run", SCENARIO, "--backend", "twin", "--evidence-dir", str(evidence_dir)
    )

    assert code == 130
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "repro: interrupted by SIGINT during snapshot after"
    folder = Path(out.strip().splitlines()[-1])
    evidence = read_bundle(folder)
    assert evidence.interrupted
    assert evidence.error == "interrupted by SIGINT during snapshot after"
    assert not evidence.findings  # it stopped: nothing was judged
    assert "**The run stopped early:** interrupted by SIGINT" in (folder / "report.md").read_text(
        "utf-8"
    )
    assert signal.getsignal(signal.SIGINT) is handler_before  # pytest's Ctrl-C is back

    code, table, _ = repro(capsys, "matrix", str(evidence_dir))
    row = next(line for line in table.splitlines() if line.startswith("| pod-delete"))
    assert "INCOMPLETE run (interrupted by SIGINT during snapshot after)" in row
    assert "(none observed)" not in row
    assert row.rstrip(" |").split(" | ")[-2] == "0 (incomplete)"


def test_ctrl_c_while_deploying_still_leaves_a_bundle(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async def interrupted_deploy(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(launch, "deploy_stack", interrupted_deploy)

    code, out, err = repro(
        capsys, "run", SCENARIO, "--backend", "twin", "--evidence-dir", str(tmp_path)
    )

    assert code == 130
    assert "Traceback" not in err
    evidence = read_bundle(Path(out.strip().splitlines()[-1]))
    assert evidence.interrupted
    assert evidence.error is not None
    assert evidence.error.startswith("interrupted")
    assert any(c.startswith("juju deploy") for c in evidence.commands)


# --- 14. Ctrl-C during start-up -------------------------------------------------------------

# Raises KeyboardInterrupt where a Ctrl-C during start-up lands: while the CLI module loads.
_CTRL_C_WHILE_LOADING = textwrap.dedent(
    """
    import importlib, sys

    class CtrlC:
        def find_spec(self, name, path=None, target=None):
            if name == "harness.cli.main":
                raise KeyboardInterrupt
            return None

    module_name, function = sys.argv[1].split(":")
    sys.meta_path.insert(0, CtrlC())
    sys.exit(getattr(importlib.import_module(module_name), function)())
    """
)


def test_ctrl_c_while_the_console_script_starts_is_one_line() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text("utf-8")
    entry = re.search(r'^repro = "([^"]+)"', pyproject, re.MULTILINE)
    assert entry is not None

    done = subprocess.run(
        [sys.executable, "-c", _CTRL_C_WHILE_LOADING, entry.group(1), "list"],
        capture_output=True,
        text=True,
        env=child_env(),
        check=False,
        timeout=60,
    )

    assert done.returncode == 130
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == ["repro: interrupted while starting"]


# --- 5. one entry per file ------------------------------------------------------------------


def test_each_path_is_listed_once_and_the_matrix_agrees_with_the_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = repro(
        capsys, "run", SCENARIO, "--backend", "twin", "--evidence-dir", str(tmp_path)
    )
    assert code == 0
    folder = Path(out.strip().splitlines()[-1])
    evidence = read_bundle(folder)
    assert evidence.before is not None
    assert evidence.after is not None

    for snapshot in (evidence.before, evidence.after):
        keys = [(f.unit, f.container, f.path) for f in snapshot.files]
        assert len(keys) == len(set(keys)), f"listed twice: {keys}"
    report = (folder / "report.md").read_text("utf-8")
    changed, unchanged = map(
        int,
        re.search(r"Paths: (\d+) changed, (\d+) unchanged", report).groups(),  # type: ignore[union-attr]
    )
    _, table, _ = repro(capsys, "matrix", str(folder))
    kept, watched = map(int, re.search(r"kept (\d+)/(\d+);", table).groups())  # type: ignore[union-attr]
    assert (kept, watched) == (unchanged, changed + unchanged)


# --- 11. strings from a bundle are text, not markup -----------------------------------------

HOSTILE = '<img src=x onerror="alert(1)">'


def _hostile_evidence() -> Any:
    from dataclasses import replace

    from evidence_samples import evidence

    value = evidence()
    findings = tuple(
        replace(f, observed=f"{f.observed} {HOSTILE} | `x`", source="javascript:alert(1)")
        for f in value.findings
    )
    hooks = tuple(replace(h, detail=HOSTILE) for h in value.hooks)
    return replace(
        value,
        scenario=f"<script>{HOSTILE}</script>",
        disruption=HOSTILE,
        findings=findings,
        hooks=hooks,
        error=HOSTILE,
        commands=("juju deploy probe", "```", HOSTILE),
    )


def test_the_report_and_the_matrix_show_bundle_strings_as_text() -> None:
    from harness.evidence.matrix import render_matrix
    from harness.evidence.report import render_report

    report = render_report(_hostile_evidence())
    # Inside the fenced block of commands, text is shown as code: only outside it matters.
    outside = report.split("```sh", 1)[0] + report.split("```sh", 1)[1].split("\n```\n", 1)[1]
    for rendered in (outside, render_matrix([_hostile_evidence()])):
        assert "<img" not in rendered
        assert "<script" not in rendered
        assert "](javascript:" not in rendered
        assert "&lt;img src=x" in rendered

    commands = report.split("## Reproduce", 1)[1]
    assert commands.count("```") == 2  # a command cannot close the block early


def test_timeline_markdown_shows_log_strings_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "debug.log"
    log.write_text(
        'unit-probe-0: 10:00:00 ERROR juju.worker.uniter.operation hook "start" failed: '
        f"{HOSTILE}\n",
        "utf-8",
    )

    code, out, _ = repro(capsys, "timeline", str(log), "--format", "md")

    assert code == 0
    assert "<img" not in out
    assert "&lt;img" in out


def test_the_schema_allows_names_of_the_known_shapes_only() -> None:
    from dataclasses import replace

    from evidence_samples import evidence

    from harness.evidence.bundle import schema_errors, to_json_dict

    assert schema_errors(to_json_dict(evidence())) == []
    bad = to_json_dict(replace(evidence(), scenario="<b>pod-delete</b>", disruption="a b"))
    bad["hooks"][0]["unit"] = "<i>probe</i>/0"
    errors = schema_errors(bad)
    assert any(e.startswith("scenario:") for e in errors)
    assert any(e.startswith("disruption:") for e in errors)
    assert any(e.startswith("hooks/0/unit:") for e in errors)


# --- 13. a juju that hangs during backend detection -----------------------------------------


ANSWER_GUARD = 30.0  # seconds: bounds a fake juju that should answer, were it to hang


def _fake_juju(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hangs: str) -> None:
    """A `juju` on PATH that answers show-controller but never answers ``hangs``."""
    import harness.live.controller as controller

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "juju"
    script.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "{hangs}" ]; then exec sleep 300; fi\n'
        'if [ "$1" = "show-controller" ]; then echo \'{"microk8s": {}}\'; exit 0; fi\n'
        "echo '{\"models\": []}'\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(controller, "CONTROLLER_TIMEOUT", 1.0)
    monkeypatch.setattr(controller, "NOTICE_AFTER", 0.2)
    # Only the command that hangs is held to the 1s deadline. The one that answers gets a
    # guard instead: on a loaded runner its start alone may take a second, and then it, not
    # the hung one, would be named.
    ask = controller._ask

    def ask_hung_one_briefly(argv: tuple[str, ...], timeout: float, say: Any) -> Any:
        return ask(argv, timeout if argv[1] == hangs else ANSWER_GUARD, say)

    monkeypatch.setattr(controller, "_ask", ask_hung_one_briefly)


@pytest.mark.parametrize(
    ("hangs", "command"),
    [("models", "juju models --format json"), ("show-controller", "juju show-controller")],
)
def test_auto_says_what_it_waits_for_and_what_did_not_answer(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    hangs: str,
    command: str,
) -> None:
    _fake_juju(tmp_path, monkeypatch, hangs)

    code, out, err = repro(capsys, "run", SCENARIO, "--dry-run")

    assert code == 0
    assert f"repro: waiting for `{command}" in err
    assert "giving up after 1s" in err
    first = out.splitlines()[0]
    assert first.startswith("backend: twin (")
    assert command in first
    assert "did not answer within 1s" in first


def test_live_names_the_command_that_did_not_answer_and_does_not_say_bootstrap(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _fake_juju(tmp_path, monkeypatch, "models")

    code, _out, err = repro(
        capsys, "run", SCENARIO, "--backend", "live", "--evidence-dir", str(tmp_path / "ev")
    )

    assert code == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("repro: `juju models --format json` did not answer within 1s")
    assert "bootstrap" not in last
    assert "juju status" in last


# --- 12. --juju: a version the catalogue can judge, or a plain note ----------------------


@pytest.mark.parametrize("given", ["2.9.43.1.2", "", "3", "latest", "3.6;rm"])
def test_juju_must_be_a_whole_version(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    _nothing_may_run(monkeypatch)

    code, out, err = repro(capsys, "run", SCENARIO, "--backend", "twin", "--juju", given)

    assert code == 2
    assert out == ""
    assert err.strip().splitlines() == [
        f"repro: not a Juju version: {given!r} (use a version such as 3.6, 2.9.43 or 3.0-beta4)"
    ]


def test_a_juju_older_than_the_catalogue_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _nothing_may_run(monkeypatch)

    code, out, err = repro(capsys, "run", SCENARIO, "--backend", "twin", "--juju", "2.8")

    assert code == 2
    assert out == ""
    assert err.strip().splitlines() == [
        "repro: the catalogue cannot judge Juju 2.8: it covers Juju 2.9 and later "
        "(pass --juju 2.9 or newer)"
    ]


def test_a_juju_past_the_catalogue_says_it_is_extrapolated(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = repro(
        capsys, "run", SCENARIO, "--backend", "twin", "--juju", "9.9", "--dry-run"
    )

    assert code == 0
    note = out.splitlines()[1]
    assert note.startswith("note: the catalogue's ranges name Juju 2.x, 3.x")
    assert "Juju 9.9 is judged by its newest range" in note
    assert note.endswith("an extrapolation")

    _, known, _ = repro(capsys, "run", SCENARIO, "--backend", "twin", "--juju", "3.6", "--dry-run")
    assert "extrapolation" not in known


EXTRAPOLATED = (
    "the catalogue's ranges name Juju 2.x, 3.x, 4.x only; Juju {} is judged by its newest "
    "range (4.0 and later): an extrapolation"
)
TRACK_29 = (
    "Juju 2.9 is a track: taken as its newest release (what the snap channel 2.9/stable "
    "installs), judged as 2.9.43: the catalogue judges every 2.9 release from 2.9.43 on alike"
)


@pytest.mark.parametrize(
    ("given", "judged", "note"),
    [("9.9", "9.9.0", EXTRAPOLATED.format("9.9.0")), ("2.9", "2.9.43", TRACK_29)],
)
def test_how_a_juju_was_judged_is_in_the_report_and_the_bundle(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, given: str, judged: str, note: str
) -> None:
    code, out, _ = repro(
        capsys, "run", SCENARIO, "--backend", "twin", "--juju", given,
        "--evidence-dir", str(tmp_path),
    )  # fmt: skip

    assert code in (0, 1)
    folder = Path(out.strip().splitlines()[-1])
    raw = json.loads((folder / "bundle.json").read_text("utf-8"))
    assert raw["juju_version"] == judged
    assert raw["juju_notes"] == [note]
    assert read_bundle(folder).juju_notes == (note,)
    report = (folder / "report.md").read_text("utf-8")
    assert f"judged against the catalogue for {judged} ({note})" in report
    assert f"--juju {judged}" in report  # the command to reproduce names the release


def test_predict_says_how_it_judged_the_juju_asked_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = repro(capsys, "predict", "pod-delete", "--juju", "9.9")
    assert code == 0
    assert out.splitlines()[0] == "note: " + EXTRAPOLATED.format("9.9")

    code, out, _ = repro(capsys, "predict", "pod-delete", "--juju", "9.9", "--format", "json")
    assert json.loads(out)["juju_notes"] == [EXTRAPOLATED.format("9.9")]

    # A bare track is its newest release, as a snap channel is, not its .0.
    _, track, _ = repro(capsys, "predict", "pod-delete", "--juju", "2.9")
    _, newest, _ = repro(capsys, "predict", "pod-delete", "--juju", "2.9.43")
    _, first, _ = repro(capsys, "predict", "pod-delete", "--juju", "2.9.0")
    assert track.splitlines()[0] == "note: " + TRACK_29
    assert track.splitlines()[1:] == newest.splitlines()
    assert first != newest  # 2.9.0 is before the 2.9.4 change, and still asked for so
    _, plain, _ = repro(capsys, "predict", "pod-delete", "--juju", "3.6", "--format", "json")
    assert "juju_notes" not in json.loads(plain)


def test_the_juju_2_warning_of_ops_scenario_is_shown_once_per_run(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from harness.cli.main import main; sys.exit(main())",
         "run", SCENARIO, "--backend", "twin", "--juju", "2.9.43",
         "--evidence-dir", str(tmp_path)],
        capture_output=True, text=True, env=child_env(), check=False, timeout=300,
    )  # fmt: skip

    assert done.returncode in (0, 1), done.stderr
    both = done.stdout + done.stderr
    assert both.count("Juju 2.x is closed and unsupported") == 1


# --- 9. commands that work on the reader's machine ------------------------------------------


def test_a_twin_report_reproduces_without_this_machines_paths_or_kubectl(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = repro(
        capsys, "run", SCENARIO, "--backend", "twin", "--evidence-dir", str(tmp_path)
    )
    assert code == 0
    folder = Path(out.strip().splitlines()[-1])
    report = (folder / "report.md").read_text("utf-8")
    reproduce = report.split("## Reproduce", 1)[1].split("<details>", 1)[0]
    commands = read_bundle(folder).commands

    for text in (reproduce, "\n".join(commands)):
        assert str(ROOT) not in text
        assert str(tmp_path) not in text
        assert "kubectl" not in text  # the twin's namespace never existed
    assert "(cd ./charms/probe && charmcraft pack)" in commands
    assert any(c.startswith("juju deploy ./charms/probe/probe_*.charm probe ") for c in commands)
    assert commands.index("(cd ./charms/probe && charmcraft pack)") < next(
        i for i, c in enumerate(commands) if c.startswith("juju deploy")
    )


def test_a_packed_charm_elsewhere_is_named_by_its_file_name() -> None:
    from harness.run.reproduce import deploy_commands, portable_commands
    from harness.scenario.stack import default_stack

    stack = default_stack("/home/someone/build/probe_ubuntu-22.04-amd64.charm")

    commands = portable_commands(deploy_commands(stack), stack)

    assert not any("/home/someone" in c for c in commands)
    assert any(
        c.startswith("juju deploy ./probe_ubuntu-22.04-amd64.charm probe ") for c in commands
    )
    assert not any("charmcraft pack" in c for c in commands)


# --- 10. step durations on stdout; the twin's clock labelled ------------------------------


def test_each_step_and_its_duration_is_printed_and_the_twin_clock_is_labelled(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = repro(
        capsys, "run", SCENARIO, "--backend", "twin", "--evidence-dir", str(tmp_path)
    )
    assert code == 0
    folder = Path(out.strip().splitlines()[-1])
    evidence = read_bundle(folder)

    printed = [line.strip() for line in out.splitlines() if " took " in line]
    assert [line.split(" took ")[0] for line in printed] == [s.name for s in evidence.steps]
    assert all("on the twin's simulated clock" in line for line in printed)
    settle = next(line for line in printed if line.startswith("settle took "))
    assert re.match(r"settle took \d+\.\ds on the twin's simulated clock", settle)

    steps = (folder / "report.md").read_text("utf-8").split("## Steps", 1)[1]
    steps = steps.split("## Reproduce", 1)[0]
    assert "2000-01-01" not in steps  # the twin's artificial epoch is not shown as a date
    assert "Times are the twin's simulated clock (SIMULATED)" in steps
    assert "| Step | Start (simulated) | End (simulated) | Took (simulated) | Detail |" in steps


# --- 6. all three filesystem layers, with what each was judged on ------------------------


def test_report_and_matrix_show_charm_dir_and_storage_and_what_they_were_judged_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = repro(
        capsys, "run", SCENARIO, "--backend", "twin", "--evidence-dir", str(tmp_path)
    )
    assert code == 0
    folder = Path(out.strip().splitlines()[-1])
    report = (folder / "report.md").read_text("utf-8")
    layers = report.split("## Survival by filesystem layer", 1)[1].split("\n## ", 1)[0]
    rows = [line.split(" | ") for line in layers.splitlines() if line.startswith("| ")][1:]
    by_layer = {row[0].strip("| "): row for row in rows if not row[0].startswith("|---")}

    assert set(by_layer) == {"container-root", "charm-dir", "storage"}
    # What repro predict says for a pod delete: charm-dir lost, storage kept.
    assert by_layer["charm-dir"][3].startswith("lost (incarnation")
    assert by_layer["storage"][3].startswith("survived (journal seq")
    assert "charm-data EmptyDir" in by_layer["charm-dir"][5]
    assert "journal on its storage volume" in by_layer["storage"][5]
    assert "container's root filesystem" in by_layer["container-root"][5]

    _, table, _ = repro(capsys, "matrix", str(folder))
    row = next(line for line in table.splitlines() if line.startswith("| pod-delete | 3.6"))
    assert "charm-dir lost, storage kept (probe journal)" in row


def test_a_charm_dir_that_survives_a_new_pod_is_a_deviation() -> None:
    from dataclasses import replace

    from harness.catalogue import load
    from harness.common.observations import JournalEntry
    from harness.verdict.journal_layers import layer_findings

    def entry(seq: int, charm_dir: str) -> JournalEntry:
        return JournalEntry(
            seq=seq, time="t", event="start", unit="probe/0", juju_version="3.6.1",
            dispatch_path=None, pod="probe-0", root_incarnation="r",
            root_incarnation_new=False, charm_dir_incarnation=charm_dir,
            charm_dir_incarnation_new=False, workload_marker="present", leader=True,
            databags={}, local_state_survived=True, controller_state_survived=True,
        )  # fmt: skip

    from harness.common.observations import Snapshot

    expectation = load().expect("pod-delete", "3.6")
    before = Snapshot(taken_at="a", journal=(entry(10, "same-id"),))
    after = replace(before, taken_at="b", journal=(entry(2, "same-id"),))

    found = {f.subject: f for f in layer_findings(expectation, before, after, ["probe/0"])}

    assert found["probe/0 charm-dir"].verdict == "deviation"  # a new pod keeps no charm dir
    assert found["probe/0 charm-dir"].observed == "survived (incarnation same-id -> same-id)"
    assert found["probe/0 storage"].verdict == "deviation"  # the journal started again
    assert found["probe/0 storage"].observed == "lost (journal seq 10 -> 2)"


def test_a_second_sigterm_while_deploying_is_recorded_as_sigterm(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A supervisor (timeout, CI cancel) sends SIGTERM, then SIGTERM again: the second stops
    # the run at once, and the bundle and the terminal must name the signal that was sent.
    async def terminated_twice(*args: Any, **kwargs: Any) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(launch, "deploy_stack", terminated_twice)

    code, out, err = repro(
        capsys, "run", SCENARIO, "--backend", "twin", "--evidence-dir", str(tmp_path)
    )

    assert code == 130
    evidence = read_bundle(Path(out.strip().splitlines()[-1]))
    assert evidence.interrupted
    assert evidence.error is not None
    assert "SIGTERM" in evidence.error
    assert "SIGINT" not in evidence.error
    assert err.strip().splitlines()[-1].startswith("repro: interrupted by SIGTERM")


def test_earlier_bundles_in_a_fixed_folder_are_kept_each_under_its_own_name(
    tmp_path: Path,
) -> None:
    from harness.evidence.folders import keep_earlier

    folder = tmp_path / "pod-delete"
    assert keep_earlier(folder) is None  # nothing there yet
    folder.mkdir()
    assert keep_earlier(folder) is None  # a folder without a bundle is left alone
    kept = []
    for n in range(3):  # three sessions within one second: three names
        folder.mkdir(exist_ok=True)
        (folder / "bundle.json").write_text(f"session {n}")
        os.utime(folder / "bundle.json", (1_700_000_000, 1_700_000_000))
        kept.append(keep_earlier(folder))
    assert [p.name for p in kept if p] == [
        "pod-delete.earlier-20231114T221320Z",
        "pod-delete.earlier-20231114T221320Z-2",
        "pod-delete.earlier-20231114T221320Z-3",
    ]
    assert [(p / "bundle.json").read_text() for p in kept if p] == [
        "session 0",
        "session 1",
        "session 2",
    ]
    assert not folder.exists()  # the caller writes the new bundle into a fresh folder


def test_an_earlier_bundle_that_cannot_be_moved_is_neither_replaced_nor_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fixed folder's parent refuses the rename (another user's folder, a read-only
    # mount): the earlier bundle stays as it was and this run's goes to a fallback folder.
    import asyncio

    from harness.evidence import folders
    from harness.run.scenario import run_scenario
    from harness.scenario.scenarios import scenario
    from harness.scenario.stack import default_stack
    from harness.twin import make_lab

    folder = tmp_path / "evidence" / "lp2021891-pod-delete"
    folder.mkdir(parents=True)
    (folder / "bundle.json").write_text("the earlier session's")

    def refused(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    class RefusingOs:  # only this module's renames are refused; the twin's work
        replace = staticmethod(refused)

        def __getattr__(self, name: str) -> object:
            return getattr(os, name)

    monkeypatch.setattr(folders, "os", RefusingOs())
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(folders.tempfile, "tempdir", str(tmp_path / "tmp"))
    probe = Path(__file__).resolve().parents[2] / "charms" / "probe"
    stack = default_stack(str(probe))
    lab = make_lab(workdir=tmp_path / "twin")
    lines: list[str] = []

    async def go() -> Path:
        from harness.run.deploy import deploy_stack

        await deploy_stack(lab, stack)
        result = await run_scenario(
            lab, scenario("lp2021891-pod-delete"), stack, folder, progress=lines.append
        )
        return result.folder

    written = asyncio.run(go())

    assert (folder / "bundle.json").read_text() == "the earlier session's"
    assert written.parent == tmp_path / "tmp" / "repro-evidence"
    assert (written / "bundle.json").exists()
    assert not list(folder.parent.glob("*.earlier-*"))  # no empty claimed folder left
    assert any("Permission denied" in line and str(written) in line for line in lines)
