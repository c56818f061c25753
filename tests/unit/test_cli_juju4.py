"""``repro run --dry-run`` against the local ``juju`` client: a 4.0 client gets the 4.0 plan.

A fake ``juju`` on PATH answers like the real client does (``juju version`` needs no
controller) and records every call, so the test also proves a dry run asks nothing else.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from harness.cli import main as cli


def fake_juju(tmp_path: Path, version_answer: str, *, exit_code: int = 0) -> Path:
    """A ``juju`` that prints ``version_answer`` for ``juju version`` and logs its argv."""
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "juju-calls.log"
    script = folder / "juju"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{log}"\n'
        'if [ "$1" = version ]; then\n'
        f'  echo "{version_answer}"\n'
        f"  exit {exit_code}\n"
        "fi\n"
        'echo "ERROR a dry run must not run juju $1" >&2\n'
        "exit 1\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return log


def dry_run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    *extra: str,
) -> list[str]:
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    code = cli.main(
        ["run", "lp2021891-pod-delete", "--backend", "live", "--dry-run", "--model", "bug", *extra]
    )
    out = capsys.readouterr().out
    assert code == 0
    return out.splitlines()


def test_a_40_client_gets_the_40_plan(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls = fake_juju(tmp_path, "4.0.1-ubuntu-amd64")
    lines = dry_run(capsys, monkeypatch, tmp_path)
    assert lines[1] == (
        "# juju client 4.0.1-ubuntu-amd64 (Juju 4.0): "
        "Juju driver jubilant (covers Juju 3.x and 4.x)"
    )
    assert any("show-unit shows each unit's own application databag" in line for line in lines)
    assert "juju integrate -m bug probe:database mysql-router-k8s:database" in lines
    # The catalogue's 4.0 entry: no leader-settings-changed on 4.0 (juju PR 21226).
    expected = next(line for line in lines if line.startswith("# the catalogue expects on Juju"))
    assert expected.startswith("# the catalogue expects on Juju 4.0: ")
    assert "leader-settings-changed" not in expected
    assert calls.read_text().split() == ["version"]  # nothing but the client was asked


def test_a_36_client_keeps_libjuju_and_the_36_plan(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_juju(tmp_path, "3.6.9-genericlinux-amd64")
    lines = dry_run(capsys, monkeypatch, tmp_path)
    assert lines[1].startswith(
        "# juju client 3.6.9-genericlinux-amd64 (Juju 3.6): Juju driver libjuju"
    )
    assert not any(line.startswith("# Juju 4:") for line in lines)
    assert any(line.startswith("# the catalogue expects on Juju 3.6: ") for line in lines)


def test_forcing_jubilant_on_36_is_honoured(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_juju(tmp_path, "3.6.9-genericlinux-amd64")
    lines = dry_run(capsys, monkeypatch, tmp_path, "--juju-driver", "jubilant")
    assert "Juju driver jubilant" in lines[1]


def test_forcing_libjuju_on_a_40_client_is_one_line_with_the_fix(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_juju(tmp_path, "4.0.1-ubuntu-amd64")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    code = cli.main(
        [
            "run",
            "lp2021891-pod-delete",
            "--backend",
            "live",
            "--dry-run",
            "--juju-driver",
            "libjuju",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "python-libjuju cannot drive Juju 4.0.1" in err
    assert "--juju-driver jubilant" in err


def test_a_client_that_fails_is_said_so_and_the_plan_still_prints(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_juju(tmp_path, "ERROR cannot read client store", exit_code=1)
    lines = dry_run(capsys, monkeypatch, tmp_path)
    assert lines[1] == "# juju client: not found or not answering; Juju driver libjuju assumed"
    assert any(line.startswith("juju deploy") for line in lines)
