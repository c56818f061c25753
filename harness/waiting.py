"""Waiting on a named condition: poll, back off, stop at a deadline, say what was last seen.

No fixed sleeps anywhere in the harness: every wait goes through ``wait_for``, which uses
tenacity for the retry loop and the Lab's clock for time, so tests run on a fake clock in
milliseconds and a timeout names the condition and the last state seen (``WaitTimeout``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    RetryError,
    retry_if_exception,
    retry_if_result,
)

from harness.errors import WaitTimeout
from harness.ports import Clock
from harness.transient import is_transient

log = logging.getLogger(__name__)

T = TypeVar("T")

TRANSIENT_BUDGET = 30  # transient errors in a row before a wait gives up on them


@dataclass(frozen=True)
class Waited(Generic[T]):
    """What a wait ended with, after how long and how many looks."""

    condition: str
    value: T
    waited: float
    attempts: int


async def wait_for(
    condition: str,
    probe: Callable[[], Awaitable[T]],
    is_done: Callable[[T], bool],
    *,
    timeout: float,
    clock: Clock,
    describe: Callable[[T], str] = repr,
    interval: float = 2.0,
    max_interval: float = 15.0,
    retry_on: tuple[type[Exception], ...] = (),
    transient: Callable[[BaseException], bool] = is_transient,
    transient_budget: int = TRANSIENT_BUDGET,
) -> Waited[T]:
    """Call ``probe`` until ``is_done(result)``; raise WaitTimeout after ``timeout`` seconds.

    The pause between looks grows from ``interval`` to ``max_interval`` and never runs past
    the deadline. Exceptions in ``retry_on`` count as "not yet" (a controller that is still
    down). Errors ``transient`` accepts (5xx, refused connections, closed websockets, a
    timed-out ``juju``: see ``harness.transient``) are retried too, up to
    ``transient_budget`` in a row, each logged once; any other exception propagates at once.
    """
    start = clock.monotonic()
    deadline = start + timeout
    last_seen: list[str] = ["nothing yet (no look completed)"]
    looks = [0]
    in_a_row = [0]

    async def look() -> T:
        looks[0] += 1
        value = await probe()
        in_a_row[0] = 0  # an answer, even "not yet", ends a run of transient errors
        return value

    def retry_error(error: BaseException) -> bool:
        if retry_on and isinstance(error, retry_on):
            return True
        if not transient(error):
            return False
        in_a_row[0] += 1
        if in_a_row[0] > transient_budget:
            log.warning(
                "giving up on %s: %d transient errors in a row, the last: %s: %s",
                condition,
                transient_budget,
                type(error).__name__,
                error,
            )
            return False
        log.warning(
            "waiting for %s: transient %s: %s (retry %d of %d)",
            condition,
            type(error).__name__,
            error,
            in_a_row[0],
            transient_budget,
        )
        return True

    def stop(state: RetryCallState) -> bool:
        return clock.monotonic() >= deadline

    def pause(state: RetryCallState) -> float:
        grown = interval * (1.5 ** max(0, state.attempt_number - 1))
        return max(0.0, min(grown, max_interval, deadline - clock.monotonic()))

    def remember(state: RetryCallState) -> None:
        outcome = state.outcome
        if outcome is None:
            return
        if outcome.failed:
            error = outcome.exception()
            last_seen[0] = f"{type(error).__name__}: {error}"
        else:
            last_seen[0] = describe(outcome.result())
        log.debug(
            "still waiting for %s (%.0fs): %s", condition, clock.monotonic() - start, last_seen[0]
        )

    retrying = AsyncRetrying(
        stop=stop,
        wait=pause,
        sleep=clock.sleep,
        retry=retry_if_result(lambda value: not is_done(value)) | retry_if_exception(retry_error),
        before_sleep=remember,
        reraise=False,
    )
    log.info("waiting for %s (up to %.0fs)", condition, timeout)
    try:
        value: T = await retrying(look)
    except RetryError as error:
        attempt = error.last_attempt
        if attempt.failed:
            failure = attempt.exception()
            last_seen[0] = f"{type(failure).__name__}: {failure}"
        else:
            last_seen[0] = describe(attempt.result())
        raise WaitTimeout(condition, clock.monotonic() - start, last_seen[0]) from None
    waited = clock.monotonic() - start
    log.info("%s after %.1fs (%d looks)", condition, waited, looks[0])
    return Waited(condition, value, waited, looks[0])
