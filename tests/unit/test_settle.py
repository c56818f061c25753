"""Settling: pods Ready, agents idle, hooks quiet for a window; all on a fake clock."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest
from live_fakes import FakeClock, FakeCluster, FakeJuju, make_lab, pod, status

from harness.common.errors import WaitTimeout
from harness.observe.settle import wait_settled


def hook_line(unit: str, hook: str, second: int = 5) -> str:
    tag = "unit-" + unit.replace("/", "-")
    return (
        f"{tag}: 2026-01-02 03:04:{second:02d} INFO juju.worker.uniter.operation "
        f'ran "{hook}" hook (via hook dispatching script: dispatch)'
    )


def settled_lab(clock: FakeClock) -> tuple[FakeJuju, FakeCluster]:
    juju = FakeJuju(
        statuses_of=[status("probe/0", leader=True), status("probe/1")],
        log_lines=[hook_line("probe/0", "start"), hook_line("probe/1", "start")],
    )
    cluster = FakeCluster(pods_of={"probe": [pod("probe/0", "a"), pod("probe/1", "b")]})
    return juju, cluster


async def test_a_quiet_model_settles_after_the_quiet_window_and_says_how_long() -> None:
    clock = FakeClock()
    juju, cluster = settled_lab(clock)
    step = await wait_settled(
        make_lab(juju, cluster, clock=clock), ("probe",), {"probe": 2}, quiet_for=20, timeout=300
    )
    assert step.name == "settle"
    assert 20 <= clock.elapsed < 40
    assert step.start == "2026-01-02T03:04:05+00:00"
    assert step.end > step.start
    assert "probe settled after" in step.detail


async def test_new_hook_lines_restart_the_quiet_window() -> None:
    clock = FakeClock()
    juju, cluster = settled_lab(clock)
    clock.at(12, lambda: juju.log_lines.append(hook_line("probe/0", "update-status", 17)))
    await wait_settled(make_lab(juju, cluster, clock=clock), ("probe",), quiet_for=20, timeout=300)
    assert clock.elapsed >= 12 + 20  # quiet counted from the new line, not the start


async def test_hooks_of_other_apps_do_not_keep_it_waiting() -> None:
    clock = FakeClock()
    juju, cluster = settled_lab(clock)

    def chatter() -> None:
        juju.log_lines.append(hook_line("mysql-k8s/0", "update-status"))
        clock.at(clock.elapsed + 5, chatter)

    clock.at(5, chatter)
    await wait_settled(make_lab(juju, cluster, clock=clock), ("probe",), quiet_for=20, timeout=300)
    assert clock.elapsed < 40


async def test_busy_agents_and_missing_pods_are_waited_for() -> None:
    clock = FakeClock()
    juju, cluster = settled_lab(clock)
    juju.statuses_of = [status("probe/0", agent="executing"), status("probe/1")]
    cluster.pods_of["probe"] = [pod("probe/0", "a"), pod("probe/1", "b", ready=False)]

    def recover() -> None:
        juju.statuses_of = [status("probe/0"), status("probe/1")]
        cluster.pods_of["probe"] = [pod("probe/0", "a"), pod("probe/1", "b")]

    clock.at(100, recover)
    await wait_settled(
        make_lab(juju, cluster, clock=clock), ("probe",), {"probe": 2}, quiet_for=20
    )
    assert clock.elapsed >= 100


async def test_timeout_names_what_was_still_missing() -> None:
    clock = FakeClock()
    juju, cluster = settled_lab(clock)
    juju.statuses_of = [status("probe/0"), status("probe/1", agent="executing")]
    cluster.pods_of["probe"] = [pod("probe/0", "a")]
    with pytest.raises(WaitTimeout) as raised:
        await wait_settled(
            make_lab(juju, cluster, clock=clock), ("probe",), {"probe": 2}, timeout=120
        )
    seen = raised.value.last_seen
    assert "probe/1 executing" in seen
    assert "1/2 pods Ready" in seen
    assert "probe to settle" in raised.value.condition
    assert clock.elapsed == pytest.approx(120)


async def test_a_unit_in_error_is_named_with_its_failed_hook() -> None:
    """A charm whose hook fails before the disruption (a real charm on the twin without its
    Kubernetes API patched): the timeout says which hook, as `juju status` does."""
    clock = FakeClock()
    juju, cluster = settled_lab(clock)
    failed = replace(
        status("probe/1", workload="error"), workload_message='hook failed: "install"'
    )
    juju.statuses_of = [status("probe/0"), failed]
    with pytest.raises(WaitTimeout) as raised:
        await wait_settled(
            make_lab(juju, cluster, clock=clock), ("probe",), {"probe": 2}, timeout=120
        )
    assert 'probe/1 error: hook failed: "install"' in raised.value.last_seen


async def test_expected_count_defaults_to_the_units_juju_lists() -> None:
    clock = FakeClock()
    juju, cluster = settled_lab(clock)
    cluster.pods_of["probe"] = [pod("probe/0", "a")]  # status lists two units
    with pytest.raises(WaitTimeout, match="1/2 pods Ready"):
        await wait_settled(make_lab(juju, cluster, clock=clock), ("probe",), timeout=60)


async def test_progress_is_logged_at_debug_and_the_result_at_info(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    juju, cluster = settled_lab(clock)
    with caplog.at_level(logging.INFO):
        await wait_settled(make_lab(juju, cluster, clock=clock), ("probe",), quiet_for=20)
    info = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any("settled after" in m for m in info)
    assert not any("still waiting" in m for m in info)
