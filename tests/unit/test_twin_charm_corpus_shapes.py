"""Real charm code through ``repro run --charm-source`` on the twin, as Juju would run it.

Each test puts ``tests/charms/shapes`` (a small charm with one shape of the public charms
the corpus workflow runs; its README says which) through the command line, from a working
directory that is not the charm's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main as cli

SHAPES = Path(__file__).parents[1] / "charms" / "shapes"


def repro(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bundle: str, *extra: str
) -> tuple[int, str, str, dict[str, Any]]:
    code = cli.main(
        [
            "run", "pod-delete", "--bundle", str(SHAPES / bundle), "--app", "shapes",
            "--charm-source", f"shapes={SHAPES}", "--backend", "twin",
            "--evidence-dir", str(tmp_path / "evidence"), *extra,
        ]
    )  # fmt: skip
    out, err = capsys.readouterr()
    lines = out.splitlines()
    folder = Path(lines[-1]) if lines else tmp_path / "none"
    raw = (
        json.loads((folder / "bundle.json").read_text())
        if (folder / "bundle.json").exists()
        else {}
    )
    return code, out, err, raw


def failed_hooks(raw: dict[str, Any]) -> list[str]:
    return [
        f"{h['unit']} {h['hook']}: {h.get('detail', '')}"
        for h in raw.get("hooks", ())
        if h.get("outcome") == "failed"
    ]


@pytest.fixture(autouse=True)
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """repro is started outside the charm's folder, as a user starts it."""
    monkeypatch.chdir(tmp_path)


def test_a_hook_runs_in_the_charm_directory_which_holds_the_charms_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _out, err, raw = repro(capsys, tmp_path, "bundle-alone.yaml", "--no-probe")
    assert failed_hooks(raw) == []
    assert code == 0, err


def test_a_stand_in_takes_the_interface_and_the_opposite_role_of_the_real_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # shapes requires db and provides api; the bundle names the stand-in's end first in one.
    code, _out, err, raw = repro(capsys, tmp_path, "bundle.yaml", "--no-probe")
    assert code == 0, err
    assert failed_hooks(raw) == []
    ran_by = {r["app"]: r["ran_by"] for r in raw["bundle"]["runs"]}
    assert "provides db (shapes_db)" in ran_by["partner"]
    assert "requires api (shapes_api)" in ran_by["consumer"]


def test_a_charms_modules_never_replace_the_probes_or_another_charms(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # shapes has src/database.py, as discourse-k8s has; so has the probe observer.
    code, _out, err, raw = repro(capsys, tmp_path, "bundle-alone.yaml")
    assert failed_hooks(raw) == []
    assert code == 0, err
    assert {h["unit"] for h in raw["hooks"]} >= {"shapes/0", "probe/0"}


def test_a_charm_error_is_its_own_verdict_with_the_traceback_and_juju_retries_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err, raw = repro(capsys, tmp_path, "bundle-raises.yaml", "--no-probe")

    assert code == 3, err  # a charm error: neither a Juju deviation (1) nor bad input (2)
    line = next(x for x in err.splitlines() if "shapes/0" in x)
    assert "upgrade-charm" in line
    assert "RuntimeError: raise-in=upgrade-charm" in line
    assert "charm.py" in err  # the last frames of the traceback
    verdicts = {f["verdict"] for f in raw["findings"]}
    assert "charm-error" in verdicts
    assert "deviation" not in verdicts
    (error,) = raw["charm_errors"]
    assert (error["app"], error["unit"], error["hook"]) == ("shapes", "shapes/0", "upgrade-charm")
    assert error["exception"] == "RuntimeError: raise-in=upgrade-charm: a charm bug, on purpose"
    assert any("src/charm.py" in frame for frame in error["traceback"])
    # Juju retries it (automatically-retry-hooks): 5 s, then doubling, up to 5 minutes.
    failed = [h for h in raw["hooks"] if h["unit"] == "shapes/0" and h["outcome"] == "failed"]
    assert len(failed) == error["attempts"] > 1
    # ...and runs no later hook as if it had succeeded.
    ran = [h["hook"] for h in raw["hooks"] if h["unit"] == "shapes/0" and h["outcome"] == "ok"]
    assert "start" not in ran[ran.index("stop") + 1 :] if "stop" in ran else "start" not in ran
    report = (Path(out.splitlines()[-1]) / "report.md").read_text()
    assert "## Charm errors" in report
    assert "RuntimeError: raise-in=upgrade-charm" in report
    assert "simulated" in report.split("## Charm errors", 1)[1].split("\n## ", 1)[0]


def test_a_hook_failing_on_a_command_the_twin_cannot_run_is_undetermined_not_a_charm_bug(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _out, err, raw = repro(capsys, tmp_path, "bundle-exec.yaml", "--no-probe")

    assert code == 0, err  # neither a deviation nor the charm's bug: undetermined
    (error,) = raw["charm_errors"]
    assert error["hook"] == "app-pebble-ready"
    assert "shapes-app --version" in error["undetermined"]
    assert "no exec handler" in error["undetermined"]
    verdicts = {f["verdict"] for f in raw["findings"] if "shapes/0" in f["subject"]}
    assert "undetermined" in verdicts
    assert not verdicts & {"deviation", "charm-error"}
    assert "shapes-app --version" in err


def test_a_unit_in_error_does_not_cut_the_quiet_window_short_for_the_others(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # With the probe observer beside the failing charm: its two sources must still agree
    # (a wait cut short left hooks from before the disruption inside its window).
    code, _out, err, raw = repro(capsys, tmp_path, "bundle-raises.yaml")
    assert code == 3, err
    assert [f["subject"] for f in raw["findings"] if f["verdict"] == "deviation"] == []


def test_a_hook_failing_on_the_kubernetes_api_the_twin_lacks_is_undetermined(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _out, err, raw = repro(capsys, tmp_path, "bundle-k8s-api.yaml", "--no-probe")

    assert code == 0, err
    (error,) = raw["charm_errors"]
    assert error["hook"] == "start"
    assert "Kubernetes API" in error["undetermined"]
    assert not {f["verdict"] for f in raw["findings"]} & {"deviation", "charm-error"}


def test_the_report_says_why_each_finding_is_undetermined_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The databags of stand-ins without metadata are undetermined; bundle.json says why,
    # and so must report.md and report.txt, where a person reads them (wordpress-k8s's
    # trial: the lines said "expected kept; observed kept" and nothing else, some twice).
    code, out, err, raw = repro(capsys, tmp_path, "bundle.yaml", "--no-probe")
    assert code == 0, err
    unknown = [f for f in raw["findings"] if f["verdict"] == "undetermined"]
    assert unknown
    assert all(f["check"] == "relation" for f in unknown)
    folder = Path(out.splitlines()[-1])
    for name in ("report.md", "report.txt"):
        text = (folder / name).read_text("utf-8")
        section = text.split("Undetermined", 1)[1].split("Hooks: expected vs observed")[0]
        bullets = [line for line in section.splitlines() if line.startswith("- ")]
        assert len(bullets) == len(set(bullets)), name
        for finding in unknown:
            (line,) = [b for b in bullets if finding["subject"] in b]
            app = finding["subject"].split()[1].split("/")[0]
            assert f"no metadata for {app}" in line, (name, line)
        # The files paragraph belongs to files; none was watched.
        assert "--mark APP:CONTAINER:PATH" not in section, name


def test_the_workload_container_lists_its_storage_in_proc_mounts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # wordpress-k8s's trial: every hook failed on `stat /proc/mounts: no such file`, judged
    # undetermined as if it were the image's; the kernel gives every container that file.
    code, _out, err, raw = repro(capsys, tmp_path, "bundle-mounts.yaml", "--no-probe")
    assert code == 0, err
    assert raw["charm_errors"] == []
    assert failed_hooks(raw) == []
    assert any(h["hook"] == "app-pebble-ready" for h in raw["hooks"])
