"""When is a model settled? Pods Ready, agents idle, and the hook stream quiet for a while.

The three conditions are checked together on every look; the quiet window is measured on
the Lab's clock from the last time the hook count changed. The hook count comes from the
debug-log's hook lines (any charm, including the ones we do not control), parsed by
``harness.observe.debug_log``. No fixed sleeps: one ``wait_for`` with a named condition.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.observations import HookRecord, PodIdentity, Step, UnitStatus
from harness.ports import Lab
from harness.waiting import wait_for

log = logging.getLogger(__name__)

QUIET_FOR = 20.0
TIMEOUT = 1200.0


@dataclass(frozen=True)
class SettleState:
    """One look at the model, with the reasons it is not settled yet (none when it is)."""

    waiting_on: tuple[str, ...]
    hooks: int
    quiet_for: float

    def describe(self) -> str:
        if not self.waiting_on:
            return f"settled ({self.hooks} hook lines, quiet for {self.quiet_for:.0f}s)"
        return "; ".join(self.waiting_on)


def pod_ready(pod: PodIdentity) -> bool:
    return pod.phase == "Running" and bool(pod.containers) and all(c.ready for c in pod.containers)


def _units_of(statuses: Sequence[UnitStatus], app: str) -> list[UnitStatus]:
    return [s for s in statuses if s.unit.rpartition("/")[0] == app]


def hook_count(records: Sequence[HookRecord], apps: Sequence[str]) -> int:
    wanted = set(apps)
    return sum(1 for r in records if r.unit.rpartition("/")[0] in wanted)


async def wait_settled(
    lab: Lab,
    apps: Sequence[str],
    expected_units: Mapping[str, int] | None = None,
    *,
    quiet_for: float = QUIET_FOR,
    timeout: float = TIMEOUT,
    interval: float = 5.0,
) -> Step:
    """Wait until ``apps`` are settled; return the wait as a Step (raises WaitTimeout).

    ``expected_units`` maps an app to its unit count; an app left out must have as many
    Ready pods as ``juju status`` lists units.
    """
    from harness.observe.debug_log import parse_lines

    expected = dict(expected_units or {})
    started = lab.clock.now().isoformat()
    last_count: list[int | None] = [None]
    changed_at = [lab.clock.monotonic()]

    async def look() -> SettleState:
        waiting: list[str] = []
        statuses = await lab.juju.statuses(tuple(apps))
        for app in apps:
            units = _units_of(statuses, app)
            want = expected.get(app, len(units))
            if len(units) != want:
                waiting.append(f"{app}: {len(units)}/{want} units in juju status")
            busy = [f"{s.unit} {s.agent}" for s in units if s.agent != "idle"]
            if busy:
                waiting.append(f"{app}: agents not idle ({', '.join(busy)})")
            errors = [f"{s.unit} {s.workload}" for s in units if s.workload == "error"]
            if errors:
                waiting.append(f"{app}: workload error ({', '.join(errors)})")
            pods = await lab.cluster.pods(app)
            ready = [p for p in pods if pod_ready(p)]
            if len(pods) != want or len(ready) != want:
                not_ready = [p.name for p in pods if not pod_ready(p)]
                detail = f" (not ready: {', '.join(not_ready)})" if not_ready else ""
                waiting.append(f"{app}: {len(ready)}/{want} pods Ready of {len(pods)}{detail}")
        records = tuple(parse_lines((await lab.juju.debug_log()).splitlines()))
        count = hook_count(records, apps)
        now = lab.clock.monotonic()
        if count != last_count[0]:
            last_count[0] = count
            changed_at[0] = now
        quiet = now - changed_at[0]
        if quiet < quiet_for:
            waiting.append(f"hooks ran {quiet:.0f}s ago (want {quiet_for:.0f}s of quiet)")
        return SettleState(tuple(waiting), count, quiet)

    names = ", ".join(apps)
    waited = await wait_for(
        f"{names} to settle (pods Ready, agents idle, hooks quiet {quiet_for:.0f}s)",
        look,
        lambda state: not state.waiting_on,
        timeout=timeout,
        clock=lab.clock,
        describe=SettleState.describe,
        interval=min(interval, max(quiet_for / 2, 0.1)),
        max_interval=max(interval, 1.0),
    )
    ended = lab.clock.now().isoformat()
    log.info("%s settled after %.0fs", names, waited.waited)
    return Step(
        "settle",
        started,
        ended,
        f"{names} settled after {waited.waited:.0f}s ({waited.attempts} looks)",
    )
