"""When is a model settled? On evidence that the disrupted units ran, then a quiet window.

Juju keeps a unit's old agent status (``idle``) until its new uniter reports, and after a
node restart the agents back off while the controller is down, so "pods Ready and agents
idle" can hold before a disrupted unit has run anything. Settling therefore asks, per
disrupted unit, for:

1. its new incarnation: a new pod uid, a container restart count above the one before, or
   an agent start or ``reboot detected`` line in the debug-log since the disruption began;
2. then the catalogue's required hooks in the debug-log (waited for at most
   ``hooks_timeout`` after the new incarnation; hooks still missing then are named in the
   returned Step, for the verdict to report, instead of a hang);
3. and for every app: pods Ready (never a pod being deleted), agents idle, no workload in
   error, as many units as expected, and no new hook line for ``quiet_for`` seconds.

The debug-log is read a look at a time (``harness.observe.log_cursor``): each look costs
what was logged since the previous one. Two streams are read, each with its own cursor: the
uniter's hook lines, and the charms' juju-log lines where ops logs ``Emitting Juju event``
(when the model keeps them), so a unit whose uniter lines are missing still shows its
hooks. No fixed sleeps: one ``wait_for`` with a named condition, on the Lab's clock.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from harness.common import counts
from harness.common.observations import HookRecord, PodIdentity, Step, UnitStatus
from harness.lab.ports import Lab
from harness.lab.waiting import wait_for

log = logging.getLogger(__name__)

QUIET_FOR = 20.0
TIMEOUT = 1200.0
HOOKS_TIMEOUT = 600.0
_NEW_AGENT = ("agent-start", "reboot")


@dataclass(frozen=True)
class SettleState:
    """One look at the model, with the reasons it is not settled yet (none when it is)."""

    waiting_on: tuple[str, ...]
    hooks: int
    quiet_for: float
    gave_up: tuple[str, ...] = ()

    def describe(self) -> str:
        if not self.waiting_on:
            return f"settled ({self.hooks} hook lines, quiet for {self.quiet_for:.0f}s)"
        return "; ".join(self.waiting_on)


def pod_ready(pod: PodIdentity) -> bool:
    """Running with every container ready, and not being deleted (a Terminating pod can
    report Running and ready for its whole grace period)."""
    return (
        pod.deletion_timestamp is None
        and pod.phase == "Running"
        and bool(pod.containers)
        and all(c.ready for c in pod.containers)
    )


def _units_of(statuses: Sequence[UnitStatus], app: str) -> list[UnitStatus]:
    return [s for s in statuses if s.unit.rpartition("/")[0] == app]


def hook_count(records: Sequence[HookRecord], apps: Sequence[str]) -> int:
    wanted = set(apps)
    return sum(1 for r in records if r.unit.rpartition("/")[0] in wanted)


def new_incarnation(
    before: PodIdentity | None, now: PodIdentity | None, records: Sequence[HookRecord]
) -> str | None:
    """How the unit shows it started again, or None if it has not (yet)."""
    if now is not None and now.deletion_timestamp is None and before is not None:
        if now.uid != before.uid:
            return f"new pod {now.uid[:8]}"
        for container in now.containers:
            old = before.container(container.name)
            if old is not None and container.restart_count > old.restart_count:
                return f"{container.name} restarted"
    for record in records:
        if record.kind in _NEW_AGENT:
            return "agent started" if record.kind == "agent-start" else "reboot detected"
    return None


@dataclass
class _Unit:
    """What the looks so far saw of one disrupted unit."""

    before: PodIdentity | None
    records: list[HookRecord] = field(default_factory=list)
    incarnation: str | None = None
    incarnation_at: float = 0.0


async def wait_settled(
    lab: Lab,
    apps: Sequence[str],
    expected_units: Mapping[str, int] | None = None,
    *,
    disrupted: Mapping[str, PodIdentity | None] | None = None,
    since: datetime | None = None,
    required_hooks: Sequence[str] = (),
    hooks_timeout: float = HOOKS_TIMEOUT,
    quiet_for: float = QUIET_FOR,
    timeout: float = TIMEOUT,
    interval: float = 5.0,
    stop_on_error: bool = False,
) -> Step:
    """Wait until ``apps`` are settled; return the wait as a Step (raises WaitTimeout).

    ``expected_units`` maps an app to its unit count; an app left out must have as many
    Ready pods as ``juju status`` lists units. ``disrupted`` maps each disrupted unit to
    its pod before the disruption (None if it had none), ``since`` is when the disruption
    began, and ``required_hooks`` are the hooks each disrupted unit must run.
    ``stop_on_error`` (the twin, which has already run Juju's retries of a failed hook when
    a look sees its unit in error) stops waiting at once for a unit in error (its hooks,
    its incarnation), and the Step says which and why.
    """
    from harness.observe.debug_log import parse_lines
    from harness.observe.log_cursor import LogCursor, merged

    expected = dict(expected_units or {})
    units = {unit: _Unit(pod) for unit, pod in (disrupted or {}).items()}
    started = lab.clock.now().isoformat()
    cursor = LogCursor(lab.juju, since=since)
    ops_cursor = LogCursor(lab.juju, since=since, read=lab.juju.ops_log_recent)
    counted = [0]
    changed_at = [lab.clock.monotonic()]
    gave_up: dict[str, tuple[str, ...]] = {}
    in_error: list[str] = []

    async def look() -> SettleState:
        waiting: list[str] = []
        now = lab.clock.monotonic()
        # ops' lines first: on an equal time ops' line (during the hook) precedes the uniter's.
        lines = merged(await ops_cursor.new_lines(), await cursor.new_lines())
        fresh = tuple(parse_lines(lines, ops=True))
        new_for_apps = hook_count(fresh, apps)
        if new_for_apps:
            counted[0] += new_for_apps
            changed_at[0] = now
        statuses = await lab.juju.statuses(tuple(apps))
        pods: dict[str, PodIdentity] = {}
        for app in apps:
            app_units = _units_of(statuses, app)
            want = expected.get(app, len(app_units))
            if len(app_units) != want:
                waiting.append(f"{app}: {len(app_units)}/{want} units in juju status")
            busy = [f"{s.unit} {s.agent}" for s in app_units if s.agent != "idle"]
            if busy:
                waiting.append(f"{app}: agents not idle ({', '.join(busy)})")
            # With its message ('hook failed: "install"'), as juju status shows it.
            errors = [
                f"{s.unit} {s.workload}"
                + (f": {s.workload_message}" if s.workload_message else "")
                for s in app_units
                if s.workload == "error"
            ]
            if errors and stop_on_error:  # not waited for: the retries have run already
                in_error.extend(e for e in errors if e not in in_error)
            elif errors:
                waiting.append(f"{app}: workload error ({', '.join(errors)})")
            app_pods = await lab.cluster.pods(app)
            pods.update({p.unit: p for p in app_pods if p.deletion_timestamp is None})
            ready = [p for p in app_pods if pod_ready(p)]
            if len(app_pods) != want or len(ready) != want:
                not_ready = [
                    p.name + (" terminating" if p.deletion_timestamp else "")
                    for p in app_pods
                    if not pod_ready(p)
                ]
                detail = f" (not ready: {', '.join(not_ready)})" if not_ready else ""
                waiting.append(f"{app}: {len(ready)}/{want} pods Ready of {len(app_pods)}{detail}")
        for name, unit in units.items():
            unit.records.extend(r for r in fresh if r.unit == name)
            waiting.extend(_evidence(name, unit, pods.get(name), required_hooks, now))
            if unit.incarnation is not None and name not in gave_up:
                missing = _missing(unit, required_hooks)
                if missing and now - unit.incarnation_at >= hooks_timeout:
                    gave_up[name] = missing
                    log.warning(
                        "%s: no %s within %.0fs of its %s; judged as missing",
                        name,
                        ", ".join(missing),
                        hooks_timeout,
                        unit.incarnation,
                    )
        waiting = [w for w in waiting if not any(w.startswith(f"{u}: hooks") for u in gave_up)]
        stuck = {e.split(" ", 1)[0] for e in in_error}
        waiting = [w for w in waiting if w.split(":", 1)[0] not in stuck]
        quiet = now - changed_at[0]
        if quiet < quiet_for:
            waiting.append(f"hooks ran {quiet:.0f}s ago (want {quiet_for:.0f}s of quiet)")
        return SettleState(tuple(waiting), counted[0], quiet)

    names = ", ".join(apps)
    waited = await wait_for(
        f"{names} to settle (new incarnations, required hooks, pods Ready, agents idle, "
        f"hooks quiet {quiet_for:.0f}s)",
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
    detail = (
        f"{names} settled after {waited.waited:.0f}s ({counts.counted(waited.attempts, 'look')})"
    )
    if in_error:
        detail += (
            f"; stopped waiting at once for a unit in error after Juju's retries of its "
            f"failed hook: {'; '.join(in_error)}"
        )
    if gave_up:
        detail += "; never ran: " + "; ".join(
            f"{unit} {', '.join(hooks)}" for unit, hooks in sorted(gave_up.items())
        )
    return Step("settle", started, ended, detail)


def _missing(unit: _Unit, required: Sequence[str]) -> tuple[str, ...]:
    ran = {r.hook for r in unit.records if r.kind == "hook"}
    return tuple(h for h in required if "{" not in h and h not in ran)


def _evidence(
    name: str, unit: _Unit, pod: PodIdentity | None, required: Sequence[str], now: float
) -> list[str]:
    """Why ``name`` is not done yet: no new incarnation, or required hooks not seen."""
    if unit.incarnation is None:
        unit.incarnation = new_incarnation(unit.before, pod, unit.records)
        if unit.incarnation is None:
            was = f"pod {unit.before.uid[:8]}" if unit.before else "no pod"
            return [f"{name}: no new incarnation yet (was {was}; no agent start logged)"]
        unit.incarnation_at = now
    missing = _missing(unit, required)
    if missing:
        return [f"{name}: hooks not run yet: {', '.join(missing)} (after {unit.incarnation})"]
    return []
