"""A ``juju`` that hangs under one of jubilant's typed verbs is killed, never waited on forever.

jubilant's typed verbs (``deploy``, ``integrate``, ``config``, ``model_config``) run
``subprocess.run`` with no timeout (jubilant 1.0 and 1.14, ``Juju._cli``). Here the real
``jubilant.Juju`` runs a real fake ``juju`` that never answers; the test checks the process
table, not a mock.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jubilant
import pytest
from live_fakes import FakeClock
from started_processes import StartedProcesses, alive, fake_juju

from harness.common.errors import HarnessError
from harness.lab.ports import AppSpec
from harness.live.jubilant_port import JubilantJujuPort
from harness.live.process import ProcessTimeout

# Long enough that a test which waits for it has failed; the guard below fails it sooner.
HANG = 120
GUARD = 20.0


def hanging_juju(folder: Path) -> Path:
    """A ``juju`` that answers nothing, as a controller half up does."""
    # ``exec`` keeps the pid and the arguments (as a snap's launcher does), which is how the
    # port knows its juju. The test learns the pid from ``Popen``, not from the fake: on a
    # loaded runner the port may kill the fake before it has run a single line.
    return fake_juju(
        folder, f"exec '{sys.executable}' -c 'import time; time.sleep({HANG})' \"$@\""
    )


def port_on(script: Path, call_timeout: float) -> JubilantJujuPort:
    """The port on a real ``jubilant.Juju`` for model "lab", whose ``juju`` is ``script``."""
    return JubilantJujuPort(
        jubilant.Juju(model="lab", cli_binary=script), clock=FakeClock(), call_timeout=call_timeout
    )


async def test_a_typed_verb_whose_juju_hangs_is_killed_and_named(
    tmp_path: Path, started: StartedProcesses
) -> None:
    port = port_on(hanging_juju(tmp_path), 1.0)

    with pytest.raises(ProcessTimeout, match=r"`.*integrate.*` did not finish within 1s"):
        await asyncio.wait_for(port.integrate("router:database", "mysql:database"), GUARD)

    juju = started.one("integrate")
    assert juju.returncode == -signal.SIGKILL, "the hung juju was not killed"
    assert not alive(juju.pid), "the hung juju is still running"


async def test_a_cancelled_typed_verb_leaves_no_juju_behind(
    tmp_path: Path, started: StartedProcesses
) -> None:
    port = port_on(hanging_juju(tmp_path), HANG)
    call = asyncio.ensure_future(port.set_config("router", {"probe": "1"}))
    # Wait on the named condition (the juju process exists), not a fixed time.
    juju = await started.first_with_arg("config", GUARD)
    call.cancel()  # what a Ctrl-C does to the running step
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(call, GUARD)

    assert juju.returncode == -signal.SIGKILL, "the juju of a cancelled call was not killed"
    assert not alive(juju.pid), "the juju of a cancelled call is still running"


async def test_a_failing_typed_verb_still_says_what_juju_said(tmp_path: Path) -> None:
    script = fake_juju(tmp_path, "echo 'ERROR application \"nope\" not found' >&2\nexit 1")
    port = port_on(script, 5.0)
    with pytest.raises(Exception, match="not found") as raised:
        await port.integrate("nope:db", "mysql:database")
    assert type(raised.value).__name__ == "JujuCLIError"


async def test_a_charm_directory_is_refused_where_jubilant_would_copy_it_as_a_file(
    tmp_path: Path,
) -> None:
    # A snap `juju` cannot read /tmp, so jubilant (1.14, Juju._deploy_tempdir) copies a
    # local charm into ~/snap/juju/common with shutil.copy, which a directory breaks.
    snap_bin = tmp_path / "snap" / "bin"
    snap_bin.mkdir(parents=True)
    script = fake_juju(snap_bin, "echo 3.6.1-genericlinux-amd64")
    charm_dir = tmp_path / "mycharm"
    charm_dir.mkdir()
    port = port_on(script, 5.0)
    port._logging_checked = True  # the model's logging-config is not what this is about
    with pytest.raises(HarnessError, match=r"packed charm.*charmcraft pack") as raised:
        await port.deploy(AppSpec("mine", str(charm_dir)))
    assert "\n" not in str(raised.value)


def start_juju_later(script: Path, delay: float) -> Callable[[], str]:
    """A call that does its own work first, then starts ``juju`` (as jubilant's deploy
    copies a charm before it runs juju)."""

    def call() -> str:
        time.sleep(delay)
        argv = [str(script), "deploy", "--model", "lab", "./x.charm"]
        return str(subprocess.run(argv, capture_output=True, check=False).returncode)

    return call


async def test_a_juju_started_after_the_deadline_is_killed_too(
    tmp_path: Path, started: StartedProcesses
) -> None:
    script = hanging_juju(tmp_path)
    port = port_on(script, 0.2)
    with pytest.raises(ProcessTimeout, match="deploy --model lab"):
        await asyncio.wait_for(port._call(start_juju_later(script, 1.0)), GUARD)
    juju = started.one("deploy")
    assert juju.returncode == -signal.SIGKILL, "the juju started after the deadline was not killed"
    assert not alive(juju.pid)


async def test_a_signal_while_a_late_juju_is_awaited_still_stops_the_run(
    tmp_path: Path, started: StartedProcesses
) -> None:
    script = hanging_juju(tmp_path)
    port = port_on(script, 0.2)
    call = asyncio.ensure_future(port._call(start_juju_later(script, 1.0)))
    # Past the deadline, the call is waiting for its thread's juju: a Ctrl-C arrives.
    for _ in range(int(GUARD / 0.05)):
        if port_is_stopping(call):
            break
        await asyncio.sleep(0.05)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(call, GUARD)
    juju = started.one("deploy")
    assert juju.returncode == -signal.SIGKILL, "the juju started while the signal waited lives"
    assert not alive(juju.pid)


def port_is_stopping(call: asyncio.Future[object]) -> bool:
    """Whether the call has reached ``_stop`` (its coroutine is awaiting there)."""
    frame = getattr(call, "get_coro", lambda: None)()
    while frame is not None:
        code = getattr(frame, "cr_code", None)
        if code is not None and code.co_name == "_stop":
            return True
        frame = getattr(frame, "cr_await", None)
    return False


async def test_a_config_value_over_the_kernels_argument_limit_is_one_line(
    tmp_path: Path,
) -> None:
    # jubilant passes config as `--config k=v` / `k=v` arguments (Juju.deploy, Juju.config):
    # a value over Linux's 131072 bytes per argument fails execve with E2BIG.
    port = port_on(fake_juju(tmp_path, "exit 0"), 10.0)
    with pytest.raises(HarnessError) as raised:
        await asyncio.wait_for(port.set_config("grafana", {"dashboards": "x" * 200_000}), GUARD)
    message = str(raised.value)
    assert "\n" not in message
    assert "131072" in message
    assert "--juju-driver libjuju" in message
