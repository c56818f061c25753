"""Local commands on real processes: a ``juju`` that hangs is killed, never left behind.

The fake ``juju`` here is a real shell script on PATH; the test checks the process table,
not a mock, so a command that outlives its timeout fails the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import create_autospec

import pytest
from pytest_operator.plugin import OpsTest

from harness.live.juju_cli import JujuCLI, OpsTestJuju
from harness.live.process import ProcessTimeout, run_process


def fake_juju(folder: Path, body: str) -> Path:
    script = folder / "juju"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but still listed; /proc says which.
    with contextlib.suppress(OSError):
        return " Z " not in Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1][:3] + " "
    return True


def ops_test_on(tmp_path: Path) -> Any:
    """An OpsTest whose ``juju``/``run`` are pytest-operator's own code."""
    ops_test = create_autospec(OpsTest, instance=True)
    ops_test.jujudata = SimpleNamespace(path=str(tmp_path / "juju-data"))
    ops_test.model_full_name = "mk8s:admin/test-model"

    async def real_run(*cmd: str, **kwargs: Any) -> Any:
        return await OpsTest.run(ops_test, *cmd, **kwargs)

    async def real_juju(*args: str, **kwargs: Any) -> Any:
        return await real_run("juju", *args, **kwargs)

    ops_test.run.side_effect = real_run
    ops_test.juju.side_effect = real_juju
    return ops_test


async def test_a_hanging_juju_is_killed_when_it_overruns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pidfile = tmp_path / "pid"
    fake_juju(tmp_path, f'echo $$ > "{pidfile}"; exec sleep 60')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    cli = JujuCLI(OpsTestJuju(ops_test_on(tmp_path)))
    try:
        with pytest.raises(ProcessTimeout, match=r"`juju status --format json` did not finish"):
            await cli.run("status", "--format", "json", timeout=1)
        pid = int(pidfile.read_text())
        assert not alive(pid), "the timed-out juju process is still running"
    finally:
        if pidfile.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)


async def test_the_ops_test_runner_binds_juju_to_ops_tests_model_and_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_juju(tmp_path, 'echo "$JUJU_MODEL|$JUJU_DATA|$*"; echo warn >&2; exit 3')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    rc, out, err = await OpsTestJuju(ops_test_on(tmp_path))(["status", "--format", "json"], 30)
    assert (rc, err) == (3, "warn\n")
    assert out == f"mk8s:admin/test-model|{tmp_path / 'juju-data'}|status --format json\n"


async def test_a_cancelled_command_is_killed_too(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    script = fake_juju(tmp_path, f'echo $$ > "{pidfile}"; exec sleep 60')
    task = asyncio.ensure_future(run_process([str(script)], timeout=None))
    for _ in range(500):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.01)
    pid = int(pidfile.read_text())
    try:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not alive(pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
