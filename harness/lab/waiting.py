"""Waiting on a named condition: poll, back off, stop at a deadline, say what was last seen.

No fixed sleeps anywhere in the harness: every wait goes through ``wait_for``, which uses
tenacity for the retry loop and the Lab's clock for time, so tests run on a fake clock in
milliseconds and a timeout names the condition and the last state seen (``WaitTimeout``).

A look itself is bounded too: tenacity checks the deadline only between looks, and a look
can wait for ever (libjuju's login RPC awaits its reply with no timeout, and a controller
that is still starting can take the connection and not answer). A look still running
``LOOK_GRACE`` seconds past the deadline (or past the wait's own ``look_timeout``) is
cancelled and counts as a transient ``LookTimeout``.
"""

from __future__ import annotations

import asyncio
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

from harness.common.errors import WaitTimeout
from harness.lab.ports import Clock
from harness.lab.transient import is_transient

log = logging.getLogger(__name__)

T = TypeVar("T")

TRANSIENT_BUDGET = 30  # transient errors in a row before a wait gives up on them
LOOK_GRACE = 30.0  # how long past the deadline a look that has not answered is let run
CANCEL_WAIT = 5.0  # how long a cancelled look is given to finish its cleanup


class LookTimeout(TimeoutError):
    """A look did not answer within its bound and was cancelled."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"a look did not answer within {seconds:.1f}s and was given up")


async def bounded_look(probe: Callable[[], Awaitable[T]], seconds: float) -> T:
    """``probe()``, cancelled after ``seconds`` (real seconds, on the event loop's clock).

    Not ``asyncio.wait_for``: before Python 3.12 it can lose a cancel that comes as the
    look ends (CPython #86296). A cancel from outside cancels the look as well.
    """
    task = asyncio.ensure_future(probe())
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except BaseException:
        task.cancel()
        # Its cleanup (killing the `juju` it started) ends before the stop goes on, as it
        # did when the look ran in the caller's task.
        await asyncio.wait({task}, timeout=CANCEL_WAIT)
        raise
    if task in done:
        return task.result()
    task.cancel()
    # A look that swallows its cancel must not hang us in turn; its outcome is dropped.
    await asyncio.wait({task}, timeout=CANCEL_WAIT)
    task.add_done_callback(lambda t: t.cancelled() or t.exception())
    raise LookTimeout(seconds)


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
    look_timeout: float | None = None,
) -> Waited[T]:
    """Call ``probe`` until ``is_done(result)``; raise WaitTimeout after ``timeout`` seconds.

    The pause between looks grows from ``interval`` to ``max_interval`` and never runs past
    the deadline. Exceptions in ``retry_on`` count as "not yet" (a controller that is still
    down). Errors ``transient`` accepts (5xx, refused connections, closed websockets, a
    timed-out ``juju``: see ``harness.lab.transient``) are retried too, up to
    ``transient_budget`` in a row, each logged once; any other exception propagates at once.
    A look is cancelled after ``look_timeout`` seconds, and in any case ``LOOK_GRACE``
    seconds after the deadline; it then counts as a transient ``LookTimeout``.
    """
    start = clock.monotonic()
    deadline = start + timeout
    last_seen: list[str] = ["nothing yet (no look completed)"]
    answered: list[str | None] = [None]  # the last answer a look gave
    looks = [0]
    in_a_row = [0]

    async def look() -> T:
        looks[0] += 1
        bound = max(0.0, deadline - clock.monotonic()) + LOOK_GRACE
        if look_timeout is not None:
            bound = min(bound, look_timeout)
        value = await bounded_look(probe, bound)
        in_a_row[0] = 0  # an answer, even "not yet", ends a run of transient errors
        return value

    def seen_failure(error: BaseException) -> str:
        text = f"{type(error).__name__}: {error}"
        if isinstance(error, LookTimeout) and answered[0] is not None:
            return f"{answered[0]}; then {error}"  # what was seen says more than the hang
        return text

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

    # tenacity 8.0 calls these with the keyword ``retry_state`` (later ones positionally).
    def stop(retry_state: RetryCallState) -> bool:
        return clock.monotonic() >= deadline

    def pause(retry_state: RetryCallState) -> float:
        grown = interval * (1.5 ** max(0, retry_state.attempt_number - 1))
        return max(0.0, min(grown, max_interval, deadline - clock.monotonic()))

    def remember(retry_state: RetryCallState) -> None:
        outcome = retry_state.outcome
        if outcome is None:
            return
        if outcome.failed:
            error = outcome.exception()
            if error is not None:
                last_seen[0] = seen_failure(error)
        else:
            last_seen[0] = answered[0] = describe(outcome.result())
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
            if failure is not None:
                last_seen[0] = seen_failure(failure)
        else:
            last_seen[0] = describe(attempt.result())
        waited = clock.monotonic() - start
        simulated = bool(getattr(clock, "simulated", False))
        raise WaitTimeout(condition, waited, last_seen[0], simulated=simulated) from None
    waited = clock.monotonic() - start
    log.info("%s after %.1fs (%d looks)", condition, waited, looks[0])
    return Waited(condition, value, waited, looks[0])
