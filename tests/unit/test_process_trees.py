"""What the harness starts, it ends, children included (issue 23, point 7).

``sudo -n microk8s config`` killed with SIGKILL leaves a root ``microk8s config`` running:
sudo cannot relay SIGKILL (sudo(8), "Signal handling"), and this user cannot signal a root
process. The same holds for any command's own children: a ``juju`` or a shell script that
started something. Each test here runs a real process tree (a script that starts a child
and hangs) through the harness's own runners and then looks at the process table.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from started_processes import POLL, StartedProcesses, alive

from harness.common.errors import EnvironmentUnavailable
from harness.live import cluster_port, process
from harness.live.process import ProcessTimeout, run_process

GUARD = 20.0  # seconds: only bounds a hang; every wait here ends on a condition


def script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def tree(folder: Path, child: str = "sleep 60") -> Path:
    """A parent that starts ``child``, writes the child's pid, and waits for it."""
    return script(folder, "parent", f'{child} &\necho $! > "{folder}/child.pid"\nwait\n')


def fake_sudo(folder: Path) -> Path:
    """``sudo -n CMD...``: runs CMD as its child and relays SIGTERM, never SIGKILL."""
    return script(
        folder,
        "sudo",
        '[ "$1" = "-n" ] && shift\n'
        '"$@" &\n'
        "child=$!\n"
        'trap \'kill -TERM "$child"; wait "$child"; exit 143\' TERM INT HUP\n'
        'wait "$child"\n',
    )


def _pid_in(path: Path) -> int | None:
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text.isdigit() else None


async def written_pid(path: Path) -> int:
    for _ in range(int(GUARD / POLL)):
        pid = _pid_in(path)
        if pid is not None:
            return pid
        await asyncio.sleep(POLL)
    raise AssertionError(f"nothing was written to {path}")


def wait_written_pid(path: Path) -> int:
    return asyncio.run(written_pid(path))


@pytest.fixture
def leftovers() -> Iterator[list[int]]:
    """Pids a test found; any still alive afterwards is killed, so a failure leaves none."""
    found: list[int] = []
    yield found
    for pid in found:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture(autouse=True)
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process, "TERM_WAIT", 1.0)


# --- the async runner (juju, sudo microk8s stop/start) ---------------------------------


async def test_a_timed_out_command_ends_its_child_too(
    tmp_path: Path, started: StartedProcesses, leftovers: list[int]
) -> None:
    parent = tree(tmp_path)
    with pytest.raises(ProcessTimeout):
        await asyncio.wait_for(run_process([str(parent)], timeout=1.0), GUARD)
    child = await written_pid(tmp_path / "child.pid")
    leftovers.append(child)
    assert not alive(started.one(str(parent)).pid)
    assert not alive(child), "the timed-out command's child is still running"


async def test_a_cancelled_command_ends_a_child_that_ignores_sigterm(
    tmp_path: Path, started: StartedProcesses, leftovers: list[int]
) -> None:
    parent = tree(tmp_path, child="sh -c \"trap '' TERM; sleep 60\"")
    task = asyncio.ensure_future(run_process([str(parent)]))
    child = await written_pid(tmp_path / "child.pid")
    leftovers.append(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, GUARD)
    assert not alive(child), "a child that ignores SIGTERM outlived the cancelled command"


async def test_a_child_in_a_session_of_its_own_is_ended_too(
    tmp_path: Path, started: StartedProcesses, leftovers: list[int]
) -> None:
    """sudo runs its command in a new session when it uses a pty (use_pty)."""
    parent = tree(tmp_path, child="setsid sleep 60")
    with pytest.raises(ProcessTimeout):
        await asyncio.wait_for(run_process([str(parent)], timeout=1.0), GUARD)
    child = await written_pid(tmp_path / "child.pid")
    leftovers.append(child)
    assert not alive(child), "a child in its own session outlived the command"


async def test_a_command_that_finishes_leaves_its_background_child_alone(
    tmp_path: Path, leftovers: list[int]
) -> None:
    """Only what overruns or is cancelled is ended: a daemon a command starts on purpose
    and leaves running (it returned) is not the runner's to kill."""
    starter = script(
        tmp_path,
        "starter",
        f'setsid sleep 60 >/dev/null 2>&1 </dev/null &\necho $! > "{tmp_path}/child.pid"\n',
    )
    done = await asyncio.wait_for(run_process([str(starter)], timeout=GUARD), GUARD)
    child = await written_pid(tmp_path / "child.pid")
    leftovers.append(child)
    assert done.ok
    assert alive(child)


# --- the synchronous runner: `sudo -n microk8s config` while loading the kube client -----


def test_a_hung_microk8s_config_run_through_sudo_is_ended_with_its_children(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    started: StartedProcesses,
    leftovers: list[int],
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_sudo(bin_dir)
    # microk8s config as a root process that hangs: a child of its own, then a wait.
    script(bin_dir, "microk8s", f'sleep 60 &\necho $! > "{tmp_path}/child.pid"\nwait\n')
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "no-such-kubeconfig"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setattr(cluster_port, "MICROK8S_CONFIG_TIMEOUT", 1.0)

    with pytest.raises(EnvironmentUnavailable):
        cluster_port.load_kube_apis()

    child = wait_written_pid(tmp_path / "child.pid")
    leftovers.append(child)
    microk8s = [p for p in started.with_arg("microk8s") if next(iter(p.args)) == "sudo"]
    assert microk8s, "sudo -n microk8s config was not run"
    for sudo in microk8s:
        assert not alive(sudo.pid), "sudo outlived its timeout"
    assert not alive(child), "microk8s config's child outlived the timeout"
    assert not any("microk8s" in " ".join(_cmdline(pid)) and alive(pid) for pid in _all_pids()), (
        "a microk8s config process is still running"
    )


def _all_pids() -> list[int]:
    return [int(e) for e in os.listdir("/proc") if e.isdigit()]


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


# --- processes a library starts (jubilant's juju): ended with their children -------------


def test_killing_a_started_juju_ends_its_children(tmp_path: Path, leftovers: list[int]) -> None:
    import subprocess

    parent = tree(tmp_path)
    proc = subprocess.Popen([str(parent)])
    try:
        child = wait_written_pid(tmp_path / "child.pid")
        leftovers.append(child)
        process.kill_pids([proc.pid])
        proc.wait(timeout=GUARD)
        for _ in range(int(GUARD / POLL)):
            if not alive(child):
                break
            asyncio.run(asyncio.sleep(POLL))
        assert not alive(child), "the killed juju's child is still running"
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait(timeout=GUARD)
