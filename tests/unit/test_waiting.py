"""Waits on a fake clock: transient errors are retried (each logged once), others are not."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest
import urllib3
from kubernetes.client.exceptions import ApiException
from live_fakes import FakeClock

from harness.common.errors import WaitTimeout
from harness.lab import waiting
from harness.lab.transient import is_transient
from harness.lab.waiting import wait_for
from harness.live.juju_cli import JujuCLIError
from harness.live.process import ProcessTimeout


def refused() -> Exception:
    pool = urllib3.HTTPSConnectionPool("127.0.0.1", 16443)
    cause = urllib3.exceptions.NewConnectionError(pool, "[Errno 111] Connection refused")
    return urllib3.exceptions.MaxRetryError(pool, "/api/v1/namespaces/m/pods", cause)


def juju_down() -> Exception:
    return JujuCLIError(
        ("status", "--format", "json"),
        1,
        "",
        "ERROR cannot connect to API: dial tcp 10.152.183.10:17070: connect: connection refused\n",
    )


# What MicroK8s and the controller answer while they start, in the order a runner sees it.
STARTING: tuple[Callable[[], Exception], ...] = (
    lambda: ApiException(status=503, reason="Service Unavailable"),
    refused,
    juju_down,
    lambda: ProcessTimeout(["juju", "status"], 60),
    lambda: ConnectionResetError(104, "Connection reset by peer"),
)


def flaky(errors: list[Exception], value: str = "ready") -> Callable[[], object]:
    async def probe() -> str:
        if errors:
            raise errors.pop(0)
        return value

    return probe


async def test_errors_of_a_starting_node_are_retried_and_each_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    errors = [make() for make in STARTING]
    with caplog.at_level(logging.WARNING):
        waited = await wait_for(
            "the API", flaky(errors), lambda v: v == "ready", timeout=600, clock=clock
        )
    assert waited.value == "ready"
    retries = [r.getMessage() for r in caplog.records if "transient" in r.getMessage()]
    assert len(retries) == len(STARTING)
    assert "ApiException" in retries[0]
    assert "MaxRetryError" in retries[1]
    assert "cannot connect to API" in retries[2]
    assert clock.elapsed > 0


async def test_an_error_that_is_not_passing_weather_ends_the_wait_at_once() -> None:
    clock = FakeClock()
    gone = JujuCLIError(("status",), 1, "", 'ERROR model "m" not found\n')
    with pytest.raises(JujuCLIError, match="not found"):
        await wait_for("the API", flaky([gone]), bool, timeout=600, clock=clock)
    assert clock.elapsed == 0
    forbidden = ApiException(status=403, reason="Forbidden")
    with pytest.raises(ApiException):
        await wait_for("pods", flaky([forbidden]), bool, timeout=600, clock=clock)


async def test_transient_errors_have_a_budget() -> None:
    clock = FakeClock()
    errors = [ApiException(status=503) for _ in range(10)]
    with pytest.raises(ApiException):
        await wait_for(
            "pods", flaky(errors), bool, timeout=10_000, clock=clock, transient_budget=4
        )
    assert len(errors) == 5  # 1 + 4 retries were spent


async def test_a_deadline_during_transient_errors_names_the_last_one() -> None:
    clock = FakeClock()
    errors = [juju_down() for _ in range(1000)]
    with pytest.raises(WaitTimeout) as raised:
        await wait_for("the controller", flaky(errors), bool, timeout=60, clock=clock)
    assert "cannot connect to API" in raised.value.last_seen
    assert clock.elapsed == pytest.approx(60)


def test_what_counts_as_transient() -> None:
    assert all(is_transient(make()) for make in STARTING)
    assert is_transient(ApiException(status=0, reason="Handshake status 500"))
    assert is_transient(ApiException(status=429))
    assert not is_transient(ApiException(status=404))
    assert not is_transient(ValueError("bad json"))
    assert not is_transient(JujuCLIError(("trust", "x"), 1, "", "ERROR permission denied\n"))


# --- a look that never answers ------------------------------------------------------------
# libjuju's login RPC waits on its reply with no timeout (Connection.rpc -> _recv,
# juju/client/connection.py 3.6.1.3), and a controller that is still starting can take the
# websocket (websockets' open_timeout covers only the handshake) and never answer it.


async def never_answers() -> str:
    await asyncio.Event().wait()
    return "never"


async def test_a_look_that_never_answers_ends_the_wait_at_its_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(waiting, "LOOK_GRACE", 0.05, raising=False)
    clock = FakeClock()
    with pytest.raises(WaitTimeout) as raised:
        # The old wait_for awaited the look for ever: bounded here so it fails, not hangs.
        await asyncio.wait_for(
            wait_for("the controller", never_answers, bool, timeout=0.1, clock=clock), 5
        )
    assert raised.value.condition == "the controller"
    assert "did not answer" in raised.value.last_seen


async def test_a_look_over_its_own_bound_is_given_up_and_the_next_one_answers() -> None:
    clock = FakeClock()
    answers = [never_answers, flaky([], "ready")]

    async def probe() -> str:
        return await answers.pop(0)()

    waited = await asyncio.wait_for(
        wait_for(
            "libjuju to reconnect",
            probe,
            lambda v: v == "ready",
            timeout=600,
            clock=clock,
            look_timeout=0.05,
        ),
        5,
    )
    assert waited.value == "ready"
    assert waited.attempts == 2


async def test_a_cut_off_last_look_keeps_the_state_seen_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(waiting, "LOOK_GRACE", 0.05, raising=False)
    clock = FakeClock()
    looks = [0]

    async def probe() -> str:
        looks[0] += 1
        if looks[0] == 1:
            return 'probe/0 error: hook failed: "start"'
        return await never_answers()

    with pytest.raises(WaitTimeout) as raised:
        await asyncio.wait_for(
            wait_for(
                "settled", probe, lambda v: v == "ok", timeout=0.5, clock=clock, describe=str
            ),
            10,
        )
    assert 'hook failed: "start"' in raised.value.last_seen
    assert "did not answer" in raised.value.last_seen


# What `juju` prints while the Kubernetes port-forward to a MicroK8s controller cannot be
# set up (Juju's api/apiclient.go annotates any proxier failure "starting proxy for api
# connection"): the controller pod restarting after the node came back, or a loaded host.
# Both texts as runners saw them (canonical/concierge's fix for the first).
PROXY_DOWN = (
    "ERROR opening API connection: starting proxy for api connection: connecting k8s proxy:"
    " forwarding ports: error upgrading connection: unable to upgrade connection: pod not"
    ' found ("controller-0_controller-concierge-microk8s")\n',
    "ERROR starting proxy for api connection: connecting k8s proxy: Get"
    ' "https://127.0.0.1:16443/api/v1/namespaces/controller-microk8s-localhost/services/'
    'controller-service": net/http: TLS handshake timeout\n',
)


@pytest.mark.parametrize("stderr", PROXY_DOWN)
async def test_a_controller_whose_k8s_proxy_is_not_up_yet_is_waited_for(stderr: str) -> None:
    clock = FakeClock()
    down = JujuCLIError(("status", "--format", "json"), 1, "", stderr)
    waited = await wait_for("juju status", flaky([down, down]), bool, timeout=600, clock=clock)
    assert waited.attempts == 3


async def test_a_cancelled_look_has_cleaned_up_before_the_cancel_goes_on() -> None:
    # A cancel from outside (Ctrl-C) reaches the look, and a look running `juju` kills it
    # then (run_process): that kill must not be left for after the run wrote its bundle.
    clock = FakeClock()
    started = asyncio.Event()
    cleaned: list[str] = []

    async def probe() -> str:
        started.set()
        try:
            return await never_answers()
        except asyncio.CancelledError:
            for _ in range(3):  # a kill and a reap take a few turns of the loop
                await asyncio.sleep(0)
            cleaned.append("juju killed")
            raise

    wait = asyncio.ensure_future(wait_for("x", probe, bool, timeout=600, clock=clock))
    await started.wait()
    wait.cancel()
    with pytest.raises(asyncio.CancelledError):
        await wait
    assert cleaned == ["juju killed"]
