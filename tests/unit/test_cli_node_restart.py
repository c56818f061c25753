"""``repro run`` asks before it stops MicroK8s, as pytest does (``--allow-node-restart``).

A node restart takes every pod down, the Juju controller with them when it runs on the
node. Live, the CLI refuses in one line naming the flag, before anything is checked,
deployed or claimed; a dry run needs no flag and says a real run will; the twin touches
nothing real and needs none.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from started_processes import fake_juju

from harness.cli import main as cli
from harness.cli import run as cli_run
from harness.run import launch

ROOT = Path(__file__).resolve().parents[2]
FLAG = "--allow-node-restart"


class Reached(Exception):
    """The run got past the CLI's checks to the launcher."""


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _nothing_may_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the run went on without --allow-node-restart")

    monkeypatch.setattr(cli_run, "_controller_reachable", forbidden)
    monkeypatch.setattr(launch, "deploy_and_run", forbidden)


def _a_controller_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real ``juju`` on PATH whose controller answers what the check asks (show-controller,
    models), so the CLI's own controller check runs as it would."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_juju(
        bin_dir,
        'case "$1" in\n'
        '  show-controller) echo \'{"mk8s": {"details": {"agent-version": "3.6.1"}}}\' ;;\n'
        "  models) echo '{\"models\": []}' ;;\n"
        '  *) echo "ERROR unexpected: $*" >&2; exit 1 ;;\n'
        "esac",
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def _launcher_reached(monkeypatch: pytest.MonkeyPatch) -> None:
    async def reached(*args: Any, **kwargs: Any) -> Any:
        raise Reached("the launcher was reached")

    monkeypatch.setattr(launch, "deploy_and_run", reached)


def _charm(tmp_path: Path) -> str:
    charm = tmp_path / "probe.charm"
    charm.write_bytes(b"")
    return str(charm)


@pytest.mark.parametrize(
    "argv",
    [
        ("run", "lp2021891-node-restart", "--backend", "live"),
        (
            "run",
            "node-restart",
            "--bundle",
            str(ROOT / "examples" / "charm-repo" / "bundle.yaml"),
            "--app",
            "demo",
            "--no-probe",
            "--backend",
            "live",
        ),
    ],
    ids=["scenario", "bundle"],
)
def test_a_live_node_restart_without_the_flag_is_refused_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: tuple[str, ...],
) -> None:
    _nothing_may_run(monkeypatch)
    evidence = tmp_path / "ev"

    code, out, err = repro(
        capsys, *argv, "--probe-charm", _charm(tmp_path), "--evidence-dir", str(evidence)
    )

    assert code == 2
    assert err.count("\n") == 1, err
    assert FLAG in err
    assert "microk8s" in err.lower()
    assert not any(evidence.glob("*/")) if evidence.exists() else True
    assert "backend: live" not in out  # refused before the backend is even announced


def test_auto_that_finds_a_controller_is_refused_without_the_flag_and_claims_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _a_controller_answers(tmp_path, monkeypatch)
    _nothing_may_run_but_the_check(monkeypatch)
    evidence = tmp_path / "ev"

    code, _out, err = repro(
        capsys,
        "run",
        "lp2021891-node-restart",
        "--probe-charm",
        _charm(tmp_path),
        "--evidence-dir",
        str(evidence),
    )

    assert code == 2
    assert FLAG in err
    assert not evidence.exists() or not any(evidence.iterdir())


def _nothing_may_run_but_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the run went on without --allow-node-restart")

    monkeypatch.setattr(launch, "deploy_and_run", forbidden)


def test_with_the_flag_a_live_node_restart_goes_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _a_controller_answers(tmp_path, monkeypatch)
    _launcher_reached(monkeypatch)

    code, _out, err = repro(
        capsys,
        "run",
        "lp2021891-node-restart",
        "--backend",
        "live",
        FLAG,
        "--probe-charm",
        _charm(tmp_path),
        "--evidence-dir",
        str(tmp_path / "ev"),
    )

    assert code == 2
    assert "the launcher was reached" in err


def test_a_live_dry_run_needs_no_flag_and_says_a_real_run_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = repro(capsys, "run", "lp2021891-node-restart", "--backend", "live", "--dry-run")

    assert code == 0
    assert FLAG in out
    assert any(line.startswith("#") and FLAG in line for line in out.splitlines())


def test_the_twin_needs_no_flag(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _launcher_reached(monkeypatch)

    code, _out, err = repro(
        capsys,
        "run",
        "lp2021891-node-restart",
        "--backend",
        "twin",
        "--evidence-dir",
        str(tmp_path / "ev"),
    )

    assert code == 2
    assert "the launcher was reached" in err
    assert FLAG not in err


def test_other_disruptions_need_no_flag(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _a_controller_answers(tmp_path, monkeypatch)
    _launcher_reached(monkeypatch)

    code, _out, err = repro(
        capsys,
        "run",
        "lp2021891-pod-delete",
        "--backend",
        "live",
        "--probe-charm",
        _charm(tmp_path),
        "--evidence-dir",
        str(tmp_path / "ev"),
    )

    assert code == 2
    assert "the launcher was reached" in err
