"""Local commands on real processes: a ``juju`` that hangs is killed, never left behind.

The fake ``juju`` here is a real shell script on PATH; the test checks the process table,
not a mock, so a command that outlives its timeout fails the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import create_autospec

import pytest
from pytest_operator.plugin import OpsTest
from started_processes import POLL, StartedProcesses, alive, fake_juju

from harness.common.errors import HarnessError
from harness.live import process
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
    # SIGTERM first (sleep honours it); SIGKILL only for a command that ignores it.
    assert juju.returncode == -signal.SIGTERM, "the timed-out juju process was not ended"
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
    assert juju.returncode == -signal.SIGTERM, "the cancelled command was not ended"
    assert not alive(juju.pid)


def fake_sudo(folder: Path) -> Path:
    """A stand-in for ``sudo -n microk8s stop``: a parent whose command runs as its child.

    sudo relays the signals it can catch (SIGTERM, SIGINT, SIGHUP...) to its command and
    cannot relay SIGKILL (sudo(8), "Signal handling"); killing it leaves a root-owned
    ``microk8s`` running, which this user could not even signal itself.
    """
    script = folder / "sudo"
    script.write_text(
        "#!/bin/sh\n"
        'trap \'kill -TERM "$child"; wait "$child"; exit 143\' TERM INT HUP\n'
        "sleep 60 &\n"
        "child=$!\n"
        f'echo "$child" > "{folder}/child.pid"\n'
        'wait "$child"\n'
    )
    script.chmod(0o755)
    return script


def _pid_in(path: Path) -> int | None:
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text.isdigit() else None


async def written_pid(path: Path, guard: float) -> int:
    """The pid the fake wrote to ``path``, once it has (``guard`` only bounds a hang)."""
    for _ in range(int(guard / POLL)):
        pid = _pid_in(path)
        if pid is not None:
            return pid
        await asyncio.sleep(POLL)
    raise AssertionError(f"nothing was written to {path} within {guard:.0f}s")


async def test_a_stopped_command_run_through_sudo_does_not_leave_its_command_running(
    tmp_path: Path, started: StartedProcesses
) -> None:
    sudo = fake_sudo(tmp_path)
    task = asyncio.ensure_future(run_process([str(sudo), "-n", "microk8s", "stop"]))
    child = await written_pid(tmp_path / "child.pid", GUARD)
    # A few turns of the loop: create_subprocess_exec has connected its pipes (a cancel
    # inside it is asyncio's to handle, not run_process's).
    for _ in range(20):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, GUARD)
    assert not alive(started.one(str(sudo)).pid)
    try:
        assert not alive(child), "sudo's command outlived the stop: sudo cannot relay SIGKILL"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)


async def test_a_command_that_ignores_sigterm_is_killed_after_a_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, started: StartedProcesses
) -> None:
    monkeypatch.setattr(process, "TERM_WAIT", 0.2, raising=False)
    script = fake_juju(tmp_path, "trap '' TERM\nexec sleep 60")
    with pytest.raises(ProcessTimeout):
        await asyncio.wait_for(run_process([str(script)], timeout=0.5), GUARD)
    juju = started.one(str(script))
    assert juju.returncode == -signal.SIGKILL
    assert not alive(juju.pid)


# Linux refuses one argument over MAX_ARG_STRLEN (32 pages: 131072 bytes) with E2BIG
# (execve(2)), whatever ARG_MAX is: a bundle option read from a file (include-file://, a
# dashboard or a rules file) can be that long.
TOO_LONG = "x" * 200_000


async def test_an_argument_over_the_kernels_limit_is_one_line_naming_it(tmp_path: Path) -> None:
    script = fake_juju(tmp_path, "exit 0")
    with pytest.raises(HarnessError) as raised:
        await run_process([str(script), "config", "grafana", f"dashboards={TOO_LONG}"])
    message = str(raised.value)
    assert "\n" not in message
    assert "`juju config grafana" in message
    assert "200011 bytes" in message  # the longest argument
    assert "131072" in message
