"""A ``juju`` that hangs under one of jubilant's typed verbs is killed, never waited on forever.

jubilant's typed verbs (``deploy``, ``integrate``, ``config``, ``model_config``) run
``subprocess.run`` with no timeout (jubilant 1.0 and 1.14, ``Juju._cli``). Here the real
``jubilant.Juju`` runs a real fake ``juju`` that never answers; the test checks the process
table, not a mock.
"""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import jubilant
import pytest
from live_fakes import FakeClock
from started_processes import StartedProcesses
from test_live_process import alive

from harness.errors import HarnessError
from harness.live.jubilant_port import JubilantJujuPort
from harness.live.process import ProcessTimeout
from harness.ports import AppSpec

# Long enough that a test which waits for it has failed; the guard below fails it sooner.
HANG = 120
GUARD = 20.0


def hanging_juju(folder: Path) -> Path:
    """A ``juju`` that answers nothing, as a controller half up does."""
    script = folder / "juju"
    # ``exec`` keeps the pid and the arguments (as a snap's launcher does), which is how the
    # port knows its juju. The test learns the pid from ``Popen``, not from the fake: on a
    # loaded runner the port may kill the fake before it has run a single line.
    script.write_text(
        f"#!/bin/sh\nexec '{sys.executable}' -c 'import time; time.sleep({HANG})' \"$@\"\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def port_on(script: Path, call_timeout: float) -> JubilantJujuPort:
    """The port on a real ``jubilant.Juju`` for model "lab", whose ``juju`` is ``script``."""
    return JubilantJujuPort(
        jubilant.Juju(model="lab", cli_binary=script), clock=FakeClock(), call_timeout=call_timeout
    )


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[StartedProcesses]:
    processes = StartedProcesses().install(monkeypatch)
    yield processes
    processes.kill_left()


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
    script = tmp_path / "juju"
    script.write_text("#!/bin/sh\necho 'ERROR application \"nope\" not found' >&2\nexit 1\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
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
    script = snap_bin / "juju"
    script.write_text("#!/bin/sh\necho 3.6.1-genericlinux-amd64\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    charm_dir = tmp_path / "mycharm"
    charm_dir.mkdir()
    port = port_on(script, 5.0)
    port._logging_checked = True  # the model's logging-config is not what this is about
    with pytest.raises(HarnessError, match=r"packed charm.*charmcraft pack") as raised:
        await port.deploy(AppSpec("mine", str(charm_dir)))
    assert "\n" not in str(raised.value)


@dataclasses.dataclass
class LateJuju:
    """A call that does its own work first, then starts ``juju`` (as jubilant's deploy
    copies a charm before it runs juju). It keeps the pid and exit code it saw itself."""

    script: Path
    delay: float
    pid: int | None = None
    returncode: int | None = None

    def __call__(self) -> str:
        time.sleep(self.delay)
        juju = subprocess.Popen(
            [str(self.script), "deploy", "--model", "lab", "./x.charm"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.pid = juju.pid
        self.returncode = juju.wait()
        return str(self.returncode)


async def test_a_juju_started_after_the_deadline_is_killed_too(
    tmp_path: Path, started: StartedProcesses
) -> None:
    late = LateJuju(hanging_juju(tmp_path), 1.0)
    port = port_on(late.script, 0.2)
    with pytest.raises(ProcessTimeout, match="deploy --model lab"):
        await asyncio.wait_for(port._call(late), GUARD)
    assert late.pid is not None, "the late juju never started"
    assert late.returncode == -signal.SIGKILL, "the juju started after the deadline was not killed"
    assert not alive(late.pid)


async def test_a_signal_while_a_late_juju_is_awaited_still_stops_the_run(
    tmp_path: Path, started: StartedProcesses
) -> None:
    late = LateJuju(hanging_juju(tmp_path), 1.0)
    port = port_on(late.script, 0.2)
    call = asyncio.ensure_future(port._call(late))
    # Past the deadline, the call is waiting for its thread's juju: a Ctrl-C arrives.
    for _ in range(int(GUARD / 0.05)):
        if port_is_stopping(call):
            break
        await asyncio.sleep(0.05)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(call, GUARD)
    assert late.pid is not None, "the late juju never started"
    assert late.returncode == -signal.SIGKILL, "the juju started while the signal waited lives"
    assert not alive(late.pid)


def port_is_stopping(call: asyncio.Future[object]) -> bool:
    """Whether the call has reached ``_stop`` (its coroutine is awaiting there)."""
    frame = getattr(call, "get_coro", lambda: None)()
    while frame is not None:
        code = getattr(frame, "cr_code", None)
        if code is not None and code.co_name == "_stop":
            return True
        frame = getattr(frame, "cr_await", None)
    return False
