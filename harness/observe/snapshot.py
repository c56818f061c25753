"""A snapshot: everything observable about the stack at one moment, as values.

A pure reader over the Lab's ports, so the live backend and the twin give the same shape:
pods (identity), files (each watched path in each unit's container), relation databags
(from ``juju show-unit`` for every unit, and from the probe's own ``dump-relations``
action for probe units), unit statuses, and the latest journal entry of each probe unit.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from harness.common.counts import counted
from harness.common.errors import HarnessError
from harness.common.observations import (
    UNLISTED,
    Databag,
    FileState,
    JournalEntry,
    PodIdentity,
    Snapshot,
)
from harness.lab.ports import Lab
from harness.lab.waiting import wait_for
from harness.observe.journal import latest_entry
from harness.scenario.stack import PROBE, PROBE_PEER, Stack

log = logging.getLogger(__name__)

DUMP_RELATIONS = "dump-relations"
LIST_TIMEOUT = 120.0  # a container restart, including a first CrashLoopBackOff pause


def _app(unit: str) -> str:
    return unit.rpartition("/")[0]


def probe_databags(unit: str, relations_json: str) -> tuple[Databag, ...]:
    """The probe's ``dump-relations`` rows as Databags seen by ``unit`` (source ``probe``).

    Each row: ``relation_id``, ``endpoint``, ``remote_app``, ``app`` and ``unit`` (its own
    app and unit databags, null when unreadable), ``remote_app_data`` and ``remote_units``.
    """
    own_app = _app(unit)
    bags: list[Databag] = []
    for row in json.loads(relations_json or "[]"):
        rid, endpoint = int(row["relation_id"]), str(row["endpoint"])
        remote_app = row.get("remote_app")

        def bag(
            owner: str,
            scope: str,
            data: Mapping[str, Any],
            rid: int = rid,
            endpoint: str = endpoint,
        ) -> Databag:
            return Databag(
                relation_id=rid,
                endpoint=endpoint,
                remote_endpoint=None,
                owner=owner,
                scope="app" if scope == "app" else "unit",
                seen_by=unit,
                source="probe",
                data={str(k): str(v) for k, v in data.items()},
            )

        if row.get("app") is not None:
            bags.append(bag(own_app, "app", row["app"]))
        if row.get("unit") is not None:
            bags.append(bag(unit, "unit", row["unit"]))
        if row.get("remote_app_data") is not None and remote_app not in (None, own_app):
            bags.append(bag(str(remote_app), "app", row["remote_app_data"]))
        for remote_unit, data in sorted((row.get("remote_units") or {}).items()):
            bags.append(bag(str(remote_unit), "unit", data or {}))
    return tuple(bags)


async def _probe_view(lab: Lab, unit: str) -> tuple[Databag, ...]:
    result = await lab.juju.run_action(unit, DUMP_RELATIONS)
    if result.status != "completed":
        raise HarnessError(
            f"the probe's {DUMP_RELATIONS} action failed on {unit}: "
            f"{result.message or result.status}",
            "check the probe unit's debug-log",
        )
    return probe_databags(unit, str(result.results.get("relations", "[]")))


async def _files(
    lab: Lab, stack: Stack, pods: Mapping[str, PodIdentity], units: Sequence[str]
) -> tuple[FileState, ...]:
    wanted: dict[tuple[str, str], list[str]] = defaultdict(list)
    for watched in stack.watched:
        for unit in units:
            if _app(unit) == watched.app:
                wanted[(unit, watched.container)].append(watched.path)
    files: list[FileState] = []
    for (unit, container), paths in sorted(wanted.items()):
        pod = pods.get(unit)
        if pod is None:
            log.info("%s has no pod; its files are not listed", unit)
            files.extend(_unlisted(unit, container, paths, "the unit had no pod"))
            continue
        try:
            listed = await _list(lab, pod.name, container, paths)
        except Exception as error:  # a crash-looping container must not void the snapshot
            log.warning("could not list %s in %s/%s: %s", paths, pod.name, container, error)
            files.extend(_unlisted(unit, container, paths, str(error)))
            continue
        # The port names units after pods; the snapshot names them after Juju units.
        files.extend(replace(f, unit=unit) for f in listed)
    return unique_files(files)


def _unlisted(unit: str, container: str, paths: Sequence[str], reason: str) -> list[FileState]:
    """Recorded as not listed, with why: never read as absent, never as missing after."""
    return [FileState(unit, container, path, UNLISTED, reason=reason) for path in paths]


async def _list(lab: Lab, pod: str, container: str, paths: Sequence[str]) -> tuple[FileState, ...]:
    """One listing; a container that is still restarting refuses the exec upgrade (400,
    which the client wraps as a status-0 ApiException), so transient refusals are retried
    on the lab's clock for up to LIST_TIMEOUT seconds."""
    waited = await wait_for(
        f"a listing of {container} in {pod}",
        lambda: lab.cluster.list_files(pod, container, paths),
        lambda _: True,
        timeout=LIST_TIMEOUT,
        clock=lab.clock,
        describe=lambda listed: counted(len(listed), "path"),
    )
    return waited.value


def unique_files(files: Iterable[FileState]) -> tuple[FileState, ...]:
    """One entry per unit, container and path (the first seen).

    A watched folder is listed with everything under it, so a watched file inside it (the
    router's marker in /etc/mysqlrouter) comes back twice; counted twice it would make the
    matrix and the report disagree.
    """
    seen: dict[tuple[str, str, str], FileState] = {}
    for state in files:
        seen.setdefault((state.unit, state.container, state.path), state)
    return tuple(seen.values())


async def take_snapshot(
    lab: Lab,
    stack: Stack,
    *,
    units: Collection[str] | None = None,
    probe_apps: Collection[str] | None = None,
) -> Snapshot:
    """Observe ``stack`` now (only ``units`` when given) through ``lab``'s ports."""
    taken_at = lab.clock.now().isoformat()
    apps = stack.app_names
    probes = set(probe_apps if probe_apps is not None else (PROBE, PROBE_PEER)) & set(apps)

    def chosen(unit: str) -> bool:
        return units is None or unit in units

    statuses = tuple(s for s in await lab.juju.statuses(apps) if chosen(s.unit))
    pods: list[PodIdentity] = []
    for app in apps:
        pods.extend(p for p in await lab.cluster.pods(app) if chosen(p.unit))
    by_unit = {p.unit: p for p in pods}
    unit_names = [s.unit for s in statuses]

    files = await _files(lab, stack, by_unit, unit_names)

    relations: list[Databag] = []
    journal: list[JournalEntry] = []
    for unit in unit_names:
        relations.extend(await lab.juju.unit_relations(unit))
        if _app(unit) in probes:
            relations.extend(await _probe_view(lab, unit))
            last = await latest_entry(lab.juju, unit)
            if last is not None:
                journal.append(last)
    return Snapshot(
        taken_at=taken_at,
        pods=tuple(pods),
        files=files,
        relations=tuple(relations),
        statuses=statuses,
        journal=tuple(journal),
    )
