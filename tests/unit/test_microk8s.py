"""The MicroK8s NodePort: exact commands, sudo without a prompt, readiness on a fake clock."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from live_fakes import FakeClock

from harness.common.errors import EnvironmentUnavailable, HarnessError, WaitTimeout
from harness.live.microk8s import MicroK8sNode
from harness.live.process import Completed, ProcessTimeout


class Runner:
    def __init__(
        self, answers: Mapping[tuple[str, ...], list[Completed | Exception]] | None = None
    ) -> None:
        self.argv: list[tuple[str, ...]] = []
        self.answers = {k: list(v) for k, v in (answers or {}).items()}

    async def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> Completed:
        key = tuple(argv)
        self.argv.append(key)
        queue = self.answers.get(key)
        if queue:
            answer = queue.pop(0) if len(queue) > 1 else queue[0]
            if isinstance(answer, Exception):
                raise answer
            return answer
        return Completed(key, 0, "", "")


def ok(argv: tuple[str, ...], out: str = "") -> Completed:
    return Completed(argv, 0, out, "")


def node(runner: Runner, clock: FakeClock | None = None, microk8s: bool = True) -> MicroK8sNode:
    return MicroK8sNode(
        clock=clock or FakeClock(),
        run=runner,
        which=lambda name: f"/snap/bin/{name}" if microk8s else None,
    )


async def test_stop_and_start_run_microk8s_through_sudo_without_a_prompt() -> None:
    runner = Runner()
    microk8s = node(runner)
    await microk8s.stop()
    await microk8s.start()
    assert runner.argv == [
        ("sudo", "-n", "true"),
        ("sudo", "-n", "microk8s", "stop"),
        ("sudo", "-n", "microk8s", "start"),
    ]


async def test_missing_microk8s_is_one_line_with_the_fix() -> None:
    with pytest.raises(EnvironmentUnavailable) as raised:
        await node(Runner(), microk8s=False).stop()
    assert "`microk8s` is not on PATH" in str(raised.value)
    assert "snap install microk8s" in str(raised.value)


async def test_the_install_hint_names_a_microk8s_juju_3_and_4_can_use() -> None:
    # Juju 3 and 4 refuse classic MicroK8s, and strict MicroK8s up to 1.31 cannot run pods on
    # a kernel that mediates AppArmor networking (README, "MicroK8s channels").
    with pytest.raises(EnvironmentUnavailable) as raised:
        await node(Runner(), microk8s=False).stop()
    message = str(raised.value)
    assert "\n" not in message
    assert "--channel 1.34-strict/stable" in message
    assert "microk8s --classic" not in message


async def test_sudo_that_wants_a_password_is_one_line_with_the_fix() -> None:
    sudo = ("sudo", "-n", "true")
    runner = Runner({sudo: [Completed(sudo, 1, "", "sudo: a password is required")]})
    with pytest.raises(EnvironmentUnavailable) as raised:
        await node(runner).stop()
    assert "needs sudo without a password prompt" in str(raised.value)
    assert "\n" not in str(raised.value)
    assert ("sudo", "-n", "microk8s", "stop") not in runner.argv


async def test_a_failing_stop_says_so() -> None:
    stop = ("sudo", "-n", "microk8s", "stop")
    runner = Runner({stop: [Completed(stop, 1, "", "error: snapd unreachable\n")]})
    with pytest.raises(HarnessError, match="snapd unreachable"):
        await node(runner).stop()


async def test_wait_ready_repeats_status_until_ready_on_the_fake_clock() -> None:
    status = ("sudo", "-n", "microk8s", "status", "--wait-ready", "--timeout", "60")
    not_yet = Completed(status, 1, "microk8s is not running. Use microk8s inspect", "")
    runner = Runner(
        {status: [not_yet, ProcessTimeout(status, 90), ok(status, "microk8s is running")]}
    )
    clock = FakeClock()
    await node(runner, clock).wait_ready(600)
    assert runner.argv.count(status) == 3
    assert clock.elapsed > 0


async def test_wait_ready_timeout_names_the_last_status() -> None:
    status = ("sudo", "-n", "microk8s", "status", "--wait-ready", "--timeout", "60")
    runner = Runner({status: [Completed(status, 1, "microk8s is not running", "")]})
    with pytest.raises(WaitTimeout) as raised:
        await node(runner).wait_ready(120)
    assert raised.value.condition == "MicroK8s to report ready"
    assert "microk8s is not running" in raised.value.last_seen


async def test_version() -> None:
    version = ("microk8s", "version")
    runner = Runner({version: [ok(version, "MicroK8s v1.28.3 revision 6089\n")]})
    assert await node(runner).version() == "MicroK8s v1.28.3 revision 6089"
    assert await node(Runner(), microk8s=False).version() is None


async def test_the_version_is_read_through_sudo_where_the_group_is_missing() -> None:
    plain = ("microk8s", "version")
    sudo = ("sudo", "-n", "microk8s", "version")
    refused = Completed(
        plain,
        1,
        "Insufficient permissions to access MicroK8s.\n"
        "You can either try again with sudo or add the user runner to the 'microk8s' group:\n",
        "",
    )
    runner = Runner({plain: [refused], sudo: [ok(sudo, "MicroK8s v1.28.3 revision 6089\n")]})
    assert await node(runner).version() == "MicroK8s v1.28.3 revision 6089"


async def test_no_version_at_all_is_none_not_an_error() -> None:
    sudo = ("sudo", "-n", "microk8s", "version")
    plain = ("microk8s", "version")
    runner = Runner(
        {
            sudo: [Completed(sudo, 1, "", "sudo: a password is required")],
            plain: [ProcessTimeout(plain, 30)],
        }
    )
    assert await node(runner).version() is None
    assert await node(runner, microk8s=False).version() is None


# `microk8s status` ends with exit 0 whether or not the cluster became ready: status.py
# prints "microk8s is not running. Use microk8s inspect for a deeper inspection." when
# `--wait-ready --timeout N` ran out, and falls off the end of its main block (canonical/
# microk8s scripts/wrappers/status.py; "it should return non-zero on exit if timed out":
# canonical/microk8s issue 3927).
NOT_RUNNING = "microk8s is not running. Use microk8s inspect for a deeper inspection.\n"
RUNNING = "microk8s is running\nhigh-availability: no\naddons:\n  enabled:\n    dns\n"


async def test_wait_ready_is_not_fooled_by_a_status_that_timed_out_with_exit_0() -> None:
    status = ("sudo", "-n", "microk8s", "status", "--wait-ready", "--timeout", "60")
    runner = Runner(
        {status: [ok(status, NOT_RUNNING), ok(status, NOT_RUNNING), ok(status, RUNNING)]}
    )
    clock = FakeClock()
    await node(runner, clock).wait_ready(600)
    assert runner.argv.count(status) == 3


async def test_a_node_that_never_comes_up_times_out_though_status_exits_0() -> None:
    status = ("sudo", "-n", "microk8s", "status", "--wait-ready", "--timeout", "60")
    runner = Runner({status: [ok(status, NOT_RUNNING)]})
    with pytest.raises(WaitTimeout) as raised:
        await node(runner).wait_ready(120)
    assert "microk8s is not running" in raised.value.last_seen
