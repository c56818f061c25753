"""Unit names, and which units a run concerns: those it disrupted, created and removed."""

from __future__ import annotations

from collections.abc import Sequence

from harness.common.observations import (
    HookRecord,
    Snapshot,
)


def units_for(before: Snapshot, app: str, units: Sequence[str] = ()) -> tuple[str, ...]:
    """The disrupted units: those given, else every unit of ``app`` seen before."""
    if units:
        return tuple(units)
    seen = [p.unit for p in before.pods] + [s.unit for s in before.statuses]
    return tuple(sorted({u for u in seen if app_of(u) == app}, key=_ordinal))


def app_of(unit: str) -> str:
    """The application a unit belongs to: ``probe`` for ``probe/0``."""
    return unit.rsplit("/", 1)[0]


def gone(unit: str, after: Snapshot) -> bool:
    """A unit with no pod, no status and no databag after the disruption was removed."""
    return not any(s.unit == unit for s in after.statuses) and not any(
        bag.owner == unit or bag.seen_by == unit for bag in after.relations
    )


def created_units(
    units: Sequence[str], before: Snapshot, after: Snapshot, hooks: Sequence[HookRecord]
) -> tuple[str, ...]:
    """Units of the disrupted applications that exist after but not before."""
    apps = {app_of(unit) for unit in units}
    known = {p.unit for p in before.pods} | {s.unit for s in before.statuses} | set(units)
    seen = [p.unit for p in after.pods] + [s.unit for s in after.statuses]
    seen += [r.unit for r in hooks if r.unit not in known and _install_seen(r, hooks)]
    out: list[str] = []
    for unit in seen:
        if app_of(unit) in apps and unit not in known and unit not in out:
            out.append(unit)
    return tuple(sorted(out, key=_ordinal))


def _install_seen(record: HookRecord, hooks: Sequence[HookRecord]) -> bool:
    return any(r.unit == record.unit and r.hook == "install" for r in hooks)


def _ordinal(unit: str) -> tuple[str, int]:
    app, _, number = unit.rpartition("/")
    return (app, int(number) if number.isdigit() else -1)
