"""wait_for: named conditions on a fake clock, with the last state seen on timeout."""

from __future__ import annotations

import pytest
from live_fakes import FakeClock

from harness.errors import WaitTimeout
from harness.waiting import wait_for


async def test_returns_the_first_value_that_is_done_and_how_long_it_took() -> None:
    clock = FakeClock()
    seen = iter([1, 2, 3, 4])

    async def probe() -> int:
        return next(seen)

    waited = await wait_for(
        "the counter to reach 3", probe, lambda n: n >= 3, timeout=60, clock=clock, interval=2
    )
    assert waited.value == 3
    assert waited.attempts == 3
    assert waited.waited == pytest.approx(sum(clock.sleeps))
    assert waited.waited > 0


async def test_timeout_names_the_condition_and_the_last_state_seen() -> None:
    clock = FakeClock()
    counter = iter(range(1000))

    async def probe() -> int:
        return next(counter)

    with pytest.raises(WaitTimeout) as raised:
        await wait_for(
            "pods to be Ready",
            probe,
            lambda _: False,
            timeout=30,
            clock=clock,
            describe=lambda n: f"{n} of 3 ready",
        )
    error = raised.value
    assert error.condition == "pods to be Ready"
    assert error.waited == pytest.approx(30)
    assert error.last_seen.endswith("of 3 ready")
    assert "pods to be Ready" in str(error)
    assert error.last_seen in str(error)
    # the deadline is never overshot: the last pause is cut to what is left
    assert clock.elapsed == pytest.approx(30)


async def test_pauses_grow_but_stay_under_the_cap() -> None:
    clock = FakeClock()

    async def probe() -> bool:
        return False

    with pytest.raises(WaitTimeout):
        await wait_for("never", probe, bool, timeout=100, clock=clock, interval=1, max_interval=5)
    assert clock.sleeps[0] == pytest.approx(1)
    assert clock.sleeps[1] > clock.sleeps[0]
    assert max(clock.sleeps) <= 5


async def test_listed_exceptions_count_as_not_yet_and_are_reported() -> None:
    clock = FakeClock()
    calls = [0]

    async def probe() -> str:
        calls[0] += 1
        if calls[0] < 3:
            raise ConnectionError("controller down")
        return "up"

    waited = await wait_for(
        "the API", probe, lambda s: s == "up", timeout=60, clock=clock, retry_on=(ConnectionError,)
    )
    assert waited.value == "up"
    assert waited.attempts == 3

    async def always_down() -> str:
        raise ConnectionError("controller down")

    with pytest.raises(WaitTimeout) as raised:
        await wait_for(
            "the API", always_down, bool, timeout=10, clock=clock, retry_on=(ConnectionError,)
        )
    assert raised.value.last_seen == "ConnectionError: controller down"


async def test_other_exceptions_propagate_at_once() -> None:
    clock = FakeClock()

    async def probe() -> int:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        await wait_for("x", probe, bool, timeout=60, clock=clock, retry_on=(ConnectionError,))
    assert clock.sleeps == []


async def test_zero_timeout_looks_once() -> None:
    clock = FakeClock()
    looks = [0]

    async def probe() -> int:
        looks[0] += 1
        return 0

    with pytest.raises(WaitTimeout):
        await wait_for("x", probe, bool, timeout=0, clock=clock)
    assert looks[0] == 1
