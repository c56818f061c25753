"""What disruptions share: timed steps, target units, and waits on pods."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from harness.common.counts import counted
from harness.common.errors import HarnessError, UnknownName
from harness.common.observations import PodIdentity, Step
from harness.lab.ports import Lab
from harness.lab.waiting import Waited, wait_for
from harness.observe.settle import pod_ready

T = TypeVar("T")

WAIT_TIMEOUT = 900.0


def pod_name(unit: str) -> str:
    """``probe/0`` -> ``probe-0``: a sidecar unit's pod is its StatefulSet ordinal."""
    app, _, number = unit.rpartition("/")
    return f"{app}-{number}"


# Where the steps of the disruption being applied are kept as each one ends, so that a
# disruption that fails part-way (MicroK8s stopped and started, then never ready) leaves
# what it did, and when, in the evidence: its return value is lost with the exception.
_KEPT: ContextVar[list[Step] | None] = ContextVar("disruption_steps", default=None)


@contextmanager
def keeping_steps() -> Iterator[list[Step]]:
    """Inside: every step ``timed`` and ``waited_step`` make, ended or failed, in order."""
    kept: list[Step] = []
    token = _KEPT.set(kept)
    try:
        yield kept
    finally:
        _KEPT.reset(token)


def _keep(step: Step) -> Step:
    kept = _KEPT.get()
    if kept is not None:
        kept.append(step)
    return step


def _failed(lab: Lab, name: str, start: str, error: BaseException) -> None:
    why = "cancelled" if isinstance(error, asyncio.CancelledError) else str(error)
    words = " ".join(why.split()) or type(error).__name__
    _keep(Step(name, start, lab.clock.now().isoformat(), f"failed: {words}"))


async def timed(
    lab: Lab, name: str, action: Callable[[], Awaitable[T]], detail: str = ""
) -> tuple[Step, T]:
    """Run ``action`` and record it as a Step with start and end times from the Lab's clock."""
    start = lab.clock.now().isoformat()
    try:
        value = await action()
    except BaseException as error:
        _failed(lab, name, start, error)
        raise
    return _keep(Step(name, start, lab.clock.now().isoformat(), detail)), value


async def waited_step(
    lab: Lab, name: str, wait: Callable[[], Awaitable[Waited[T]]]
) -> tuple[Step, T]:
    start = lab.clock.now().isoformat()
    try:
        result = await wait()
    except BaseException as error:
        _failed(lab, name, start, error)
        raise
    step = Step(name, start, lab.clock.now().isoformat(), f"waited {result.waited:.0f}s")
    return _keep(step), result.value


async def target_units(lab: Lab, app: str, units: Collection[str]) -> tuple[str, ...]:
    """The target's units (all of the app's when none are named); unknown ones are refused."""
    known = await lab.juju.units(app)
    if not units:
        if not known:
            raise UnknownName(
                f"application {app} has no units in model {lab.juju.model_name}",
                "deploy it first, or choose another target",
            )
        return known
    for unit in units:
        if unit not in known:
            raise UnknownName(
                f"unit {unit} does not exist in model {lab.juju.model_name}",
                f"units: {', '.join(known) or 'none'}",
            )
    return tuple(units)


async def pods_by_unit(lab: Lab, app: str) -> dict[str, PodIdentity]:
    return {p.unit: p for p in await lab.cluster.pods(app)}


async def existing_pods(lab: Lab, app: str) -> dict[str, PodIdentity]:
    """The app's pods by unit; an app with none cannot be disrupted (say how to fix it)."""
    pods = await pods_by_unit(lab, app)
    if not pods:
        raise HarnessError(
            f"{app} has no pods in namespace {lab.cluster.namespace}",
            "deploy it and wait until it is settled",
        )
    return pods


def require_pod(pods: Mapping[str, PodIdentity], unit: str, lab: Lab) -> PodIdentity:
    pod = pods.get(unit)
    if pod is None:
        raise HarnessError(
            f"{unit} has no pod in namespace {lab.cluster.namespace}",
            "wait until the unit's pod exists (juju status) and retry",
        )
    return pod


def describe_pods(pods: Collection[PodIdentity]) -> str:
    if not pods:
        return "no pods"
    return ", ".join(f"{p.name} uid={p.uid[:8]} {_pod_state(p)}" for p in pods)


def _pod_state(pod: PodIdentity) -> str:
    # A pod being deleted keeps its phase and ready containers while it lingers (a
    # finalizer, a node gone): "Running not ready" would hide why the wait goes on.
    if pod.deletion_timestamp is not None:
        return f"terminating since {pod.deletion_timestamp}"
    return f"{pod.phase}{' ready' if pod_ready(pod) else ' not ready'}"


async def wait_all_replaced(
    lab: Lab, app: str, old: Mapping[str, PodIdentity], timeout: float
) -> Waited[tuple[PodIdentity, ...]]:
    """Every pod of ``app`` has a new uid and is Ready, as many as before."""
    old_uids = {p.uid for p in old.values()}
    count = len(old)

    def done(pods: tuple[PodIdentity, ...]) -> bool:
        return len(pods) == count and all(p.uid not in old_uids and pod_ready(p) for p in pods)

    return await wait_for(
        f"{'the' if count == 1 else 'all'} {counted(count, 'pod')} of {app} replaced and Ready",
        lambda: lab.cluster.pods(app),
        done,
        timeout=timeout,
        clock=lab.clock,
        describe=describe_pods,
    )


async def delete_every_pod_at_once(lab: Lab, app: str) -> tuple[Step, bool]:
    """Delete every pod of ``app`` in one go; the step, and whether none was running right after.

    The race behind Juju bug 1830745: Juju saw zero running pods and removed the units.
    """
    names = [p.name for p in await lab.cluster.pods(app)]
    seen: list[int] = []

    async def look_once() -> None:
        # Started after every deletion (gather starts them in order): what is left running.
        seen.append(sum(1 for p in await lab.cluster.pods(app) if pod_ready(p)))

    start = lab.clock.now().isoformat()
    await asyncio.gather(*(lab.cluster.delete_pod(name) for name in names), look_once())
    step = Step(
        f"delete every {app} pod at once",
        start,
        lab.clock.now().isoformat(),
        f"{', '.join(names)}; running and Ready right after: {seen[0]}",
    )
    return step, seen[0] == 0


async def wait_zero_running(lab: Lab, app: str, timeout: float) -> Waited[tuple[PodIdentity, ...]]:
    """A moment when no pod of ``app`` is running and Ready (deleted ones terminating)."""
    return await wait_for(
        f"a moment with zero running and Ready pods of {app}",
        lambda: lab.cluster.pods(app),
        lambda found: not any(pod_ready(p) for p in found),
        timeout=timeout,
        clock=lab.clock,
        describe=describe_pods,
    )
