"""Local commands on real processes: a ``juju`` that hangs is killed, never left behind.

The fake ``juju`` here is a real shell script on PATH; the test checks the process table,
not a mock, so a command that outlives its timeout fails the test.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import create_autospec

import pytest
from pytest_operator.plugin import OpsTest
from started_processes import StartedProcesses, alive, fake_juju

from harness.live.juju_cli import JujuCLI, OpsTestJuju
from harness.live.process import ProcessTimeout, run_process

GUARD = 20.0  # seconds: only bounds a hang; every wait here ends on a condition


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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started: StartedProcesses
) -> None:
    fake_juju(tmp_path, "exec sleep 60")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    cli = JujuCLI(OpsTestJuju(ops_test_on(tmp_path)))
    with pytest.raises(ProcessTimeout, match=r"`juju status --format json` did not finish"):
        await cli.run("status", "--format", "json", timeout=1)
    # The pid comes from where it was started: a loaded runner may reach the 1s deadline
    # before the fake has run a line of its own.
    juju = started.one("status")
    assert juju.returncode == -signal.SIGKILL, "the timed-out juju process was not killed"
    assert not alive(juju.pid), "the timed-out juju process is still running"


async def test_the_ops_test_runner_binds_juju_to_ops_tests_model_and_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_juju(tmp_path, 'echo "$JUJU_MODEL|$JUJU_DATA|$*"; echo warn >&2; exit 3')
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    rc, out, err = await OpsTestJuju(ops_test_on(tmp_path))(["status", "--format", "json"], 30)
    assert (rc, err) == (3, "warn\n")
    assert out == f"mk8s:admin/test-model|{tmp_path / 'juju-data'}|status --format json\n"


async def test_a_cancelled_command_is_killed_too(
    tmp_path: Path, started: StartedProcesses
) -> None:
    script = fake_juju(tmp_path, "exec sleep 60")
    task = asyncio.ensure_future(run_process([str(script)], timeout=None))
    # Cancelled once the command runs (Popen returns after its exec), not after a fixed time.
    juju = await started.first_with_arg(str(script), GUARD)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, GUARD)
    assert juju.returncode == -signal.SIGKILL, "the cancelled command was not killed"
    assert not alive(juju.pid)
