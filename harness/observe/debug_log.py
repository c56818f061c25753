"""Hook lines from ``juju debug-log`` (and unit agent log files) as HookRecord values.

Formats handled, all seen in real output (tests/data/samples) or in Juju's source:

- debug-log: ``<entity>: [<YYYY-MM-DD> ]<HH:MM:SS>[.mmm] <LEVEL> <module> [<file.go:N> ]
  [<labels> ]<message>`` (``--date``, ``--ms``, ``--location``, ``--utc``; Juju 2.7 to 4.x);
- agent log files (``/var/log/juju/unit-*.log``) and the charm container's pebble log
  (``<RFC3339> [container-agent] ...``): the same without the entity, so the unit is unknown
  unless the caller knows it (``unit=``);
- messages from ``worker/uniter/operation/runhook.go``: ``ran "<hook>" hook [(via ...)]``,
  ``hook "<hook>" [(via ...)] failed: <err>``, ``hook "<hook>" was terminated``,
  ``skipped "<hook>" hook (missing)``; the meter-status worker's ``"<hook>" hook was
  terminated`` and ``error running "<hook>": <err>``; the uniter's ``reboot detected;
  triggering implicit start hook to notify charm``; the agent's ``running containerAgent
  [<version> ...]``.

Only modules under ``juju.`` count as the uniter's, so a charm's own
``unit.<app>/<n>.juju-log`` lines never pass for them, whatever they say.

A second, charm-side source (``ops=True``, source ``ops-log``): the ``ops`` framework logs
through ``juju-log`` at DEBUG ``Emitting Juju event <name>.`` for every event it dispatches
(``ops/_main.py``), ``Emitting custom event <...>.``, ``Deferring <...>.`` and ``Re-emitting
[deferred event ]<...>[ (i of n in queue)].`` (``ops/framework.py``), optionally after an
``<endpoint>:<id>: `` prefix and a logger prefix (``root:``, ``ops.framework:``). Some real
logs have only these (jhack's traefik test logs: no uniter lines at all). Custom, deferred
and re-emitted events are their own kinds, never hooks. When a unit's uniter line follows
ops' line for the same hook, the two are joined: the uniter's record is kept (it says how the
hook ended) and ops' is dropped.

Lines of ``machine-N``, ``controller-N`` and ``model-<uuid>`` are not a
unit's and are skipped, and so are a podspec operator's lines that name no unit
(``[AGENT-STATUS] executing: running <hook> hook`` is a status change, not a hook result).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Iterable, Iterator

from harness.common.observations import HookRecord, HookSource, Outcome

UNKNOWN_UNIT = "unknown"
"""The unit of a record from a log without entities (an agent log file) when none is given."""

Row = tuple[str, str, str, HookSource, "str | None", "Outcome | None", str]
"""A record's fields in HookRecord's order (unit, time, kind, source, hook, outcome, detail).

``repro timeline`` renders rows straight from the log: a real debug-log can hold a hook or
event line in five, and a frozen dataclass per line costs more than the regex that found it.
"""

# A debug-log line's head, then a message of runhook.go, the meter-status worker, the uniter
# or the agent; Juju 3.x prints a record's labels (one word) between the module and the
# message, hence the optional word before it. One regex per line: the C engine does it all.
_UNITER_LINE = re.compile(
    r"(?:\S+ \[container-agent\] )?"  # pebble's prefix in `kubectl logs <pod> -c charm`
    r"(?:([^\s:]+): )?"  # entity
    r"((?:\d{4}-\d{2}-\d{2}[ T])?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)"  # time
    r" (?:TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL)"
    r" (juju\.\S+)"  # module
    r"(?: \S+\.go:\d+)?"  # --location, and always in agent log files
    r" (?:[^ \n]* )??"  # labels
    r'(?:ran "([^"\n]+)" hook'
    r'|hook "([^"\n]+)"(?: \(via [^)\n]*\))? failed: (.*)'
    r'|hook "([^"\n]+)" was terminated'
    r'|"([^"\n]+)" hook was terminated'
    r'|skipped "([^"\n]+)" hook \(missing\)'
    r'|error running "([^"\n]+)": (.*)'
    r"|(reboot detected; triggering implicit start hook)"
    r"|running containerAgent \[([^\]\s]+)"
    r'|twin-simulated: "([^"\n]+)" hook not run: (.*))'  # the twin's, never Juju's
)

# ops' lines: see the module docstring. The event name is ops' (underscores), its hook the
# Juju name (hyphens): Juju names never hold underscores, ops turns each hyphen into one.
_OPS_LINE = re.compile(
    r"(?:\S+ \[container-agent\] )?"
    r"(?:([^\s:]+): )?"  # entity
    r"((?:\d{4}-\d{2}-\d{2}[ T])?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)"  # time
    r" (?:TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL)"
    r" unit\.([a-z][a-z0-9-]*/\d+)\.juju-log"  # unit
    r" (?:([a-z][a-z0-9-]*:\d+): )?"  # relation
    r"(?:[A-Za-z_][\w.]*:)?"  # logger
    r"(?:Emitting Juju event (\w+)"
    r"|Emitting custom event <([^\s>]+) via \S+/on/(\w+)\[\d+\]>"
    r"|Re-emitting (?:deferred event )?<[^\s>]+ via \S+/on/(\w+)\[\d+\]>"
    r"(?: \(\d+ of \d+ in queue\))?"
    r"|Deferring <[^\s>]+ via \S+/on/(\w+)\[\d+\]>)"
    r"\.\s*$"
)

# Podspec operators run every unit's uniter in one pod under ``application-<app>``; the
# unit is in the module: juju.worker.caasoperator.uniter.<app>/<n>.operation (loggo child
# named after the unit id), accepted as <app>-<n> too.
_OPERATOR_UNIT = re.compile(r"\.uniter\.(?P<unit>[a-z][a-z0-9-]*[/-]\d+)(?:\.|$)")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def unit_from_entity(entity: str) -> str | None:
    """``unit-mysql-router-k8s-0`` -> ``mysql-router-k8s/0``; None for any other entity.

    Also accepts a log file name stem (``unit-probe-0``), for agent log files.
    """
    if not entity.startswith("unit-"):
        return None
    app, sep, number = entity[5:].rpartition("-")
    if not sep or not app or not number.isdigit():
        return None
    return f"{app}/{number}"


def _unit_from_operator_module(module: str) -> str | None:
    match = _OPERATOR_UNIT.search(module)
    if not match:
        return None
    unit = match.group("unit")
    if "/" in unit:
        return unit
    app, _, number = unit.rpartition("-")
    return f"{app}/{number}"


def _unit_of(entity: str | None, module: str, default: str | None) -> str | None:
    if entity is None:
        return default or UNKNOWN_UNIT
    if entity.startswith("unit-"):
        return unit_from_entity(entity)
    if entity.startswith("application-"):
        return _unit_from_operator_module(module)
    return None  # machine-N, controller-N, model-<uuid>: not a unit's line


def parse_line(line: str, unit: str | None = None) -> HookRecord | None:
    """One debug-log line as a HookRecord, or None when it is not a hook-related line.

    ``unit`` names the unit of lines that carry no entity (agent log files); without it
    they are attributed to ``UNKNOWN_UNIT``.
    """
    row = next(_scan((line,), unit, ops=False), None)
    return None if row is None else HookRecord(*row)


def parse_ops_line(line: str) -> HookRecord | None:
    """One line of ops' event log (``Emitting Juju event ...``) as a record, or None."""
    row = _ops_row(line)
    return None if row is None else HookRecord(*row)


def _uniter_row(line: str, default: str | None, units: dict[str, str]) -> Row | None:
    """The record of a uniter, meter-status or agent line; ``units`` caches entities'."""
    if "\x1b[" in line:  # `juju debug-log --color`
        line = _ANSI.sub("", line)
    match = _UNITER_LINE.match(line)
    if match is None:
        return None
    (entity, time, module, ok, failed, error, terminated, terminated_meter, skipped,
     failed_meter, meter_error, reboot, version, twin_hook, twin_why) = match.groups()  # fmt: skip
    if entity is None:
        owner: str | None = default or UNKNOWN_UNIT
    else:
        owner = units.get(entity)
        if owner is None:
            owner = _unit_of(entity, module, default)
            if owner is None:
                return None
            if entity.startswith("unit-"):  # an operator's unit is in the module, not here
                units[entity] = owner
    assert owner is not None  # for mypy: every branch above set it or returned
    if ok is not None:
        return (owner, time, "hook", "debug-log", ok, "ok", "")
    if version is not None:
        if module != "juju.cmd":
            return None
        return (owner, time, "agent-start", "debug-log", None, None, version)
    if reboot is not None:
        return (owner, time, "reboot", "debug-log", None, None, "")
    if failed is not None:
        return (owner, time, "hook", "debug-log", failed, "failed", error.strip())
    if failed_meter is not None:
        # The meter-status worker found no charm to run the hook from: nothing ran.
        outcome: Outcome = "not-run" if "charm missing" in meter_error else "failed"
        return (owner, time, "hook", "debug-log", failed_meter, outcome, meter_error.strip())
    if terminated is not None:
        return (owner, time, "hook", "debug-log", terminated, "terminated", "")
    if terminated_meter is not None:
        return (owner, time, "hook", "debug-log", terminated_meter, "terminated", "")
    if twin_hook is not None:  # Juju would run it; ops.testing cannot, so nothing ran
        detail = f"the twin could not run it: {twin_why.strip()}"
        return (owner, time, "hook", "debug-log", twin_hook, "not-run", detail)
    return (owner, time, "hook", "debug-log", skipped, "skipped", "")


def _ops_row(line: str) -> Row | None:
    if "\x1b[" in line:
        line = _ANSI.sub("", line)
    match = _OPS_LINE.match(line)
    if match is None:
        return None
    entity, time, unit, relation, juju, cls, custom, reemitted, deferred = match.groups()
    if entity is not None and not entity.startswith("unit-"):
        return None
    if juju is not None:
        where = f"on {relation}" if relation else ""
        if juju.endswith("_action"):
            return (unit, time, "action", "ops-log", juju[:-7].replace("_", "-"), None, where)
        return (unit, time, "hook", "ops-log", juju.replace("_", "-"), None, where)
    where = f" on {relation}" if relation else ""
    if custom is not None:
        detail = f"custom event {cls}{where}: charm code, not a Juju hook"
        return (unit, time, "custom-event", "ops-log", custom.replace("_", "-"), None, detail)
    if reemitted is not None:
        detail = f"deferred earlier{where}"
        return (unit, time, "re-emitted", "ops-log", reemitted.replace("_", "-"), None, detail)
    detail = f"deferred by the charm{where}"
    return (unit, time, "deferred", "ops-log", deferred.replace("_", "-"), None, detail)


def _scan(lines: Iterable[str], unit: str | None, *, ops: bool) -> Iterator[Row]:
    """The rows of ``lines`` in log order, ops' lines only with ``ops``; not yet joined.

    This loop may see a billion lines, most of them no hook's: each costs one or two
    substring tests (C, no regex), and only the lines that pass them are matched.
    """
    uniter_row, ops_row = _uniter_row, _ops_row
    units: dict[str, str] = {}
    for line in lines:
        # A quote is found fastest (memchr); every uniter hook message holds one.
        if '"' in line and ('" hook' in line or 'hook "' in line or 'error running "' in line):
            row = uniter_row(line, unit, units)
        # Every other line that can match says "ing ": Emitting, Re-emitting, Deferring,
        # triggering (reboot detected) and running (containerAgent).
        elif "ing " not in line:
            continue
        elif ops and ("mitting " in line or "Deferring <" in line):
            row = ops_row(line)
        elif "reboot detected" in line or "running containerAgent" in line:
            row = uniter_row(line, unit, units)
        else:
            continue
        if row is not None:
            yield row


def rows(lines: Iterable[str], unit: str | None = None, *, ops: bool = False) -> Iterator[Row]:
    """``parse_lines`` as rows, for ``repro timeline``'s renderers; same records, same order."""
    scanned = _scan(_without_bom(lines), unit, ops=ops)  # reads nothing until asked
    yield from _joined(scanned) if ops else scanned


def parse_lines(
    lines: Iterable[str], unit: str | None = None, *, ops: bool = False
) -> Iterator[HookRecord]:
    """Every hook-related record in ``lines``, in log order; streams in constant memory.

    ``unit`` names the unit of lines without an entity (agent log files). With ``ops``,
    ops' event lines too (source ``ops-log``), joined with the uniter's.
    """
    return itertools.starmap(HookRecord, rows(lines, unit, ops=ops))


def _without_bom(lines: Iterable[str]) -> Iterable[str]:
    """The lines, the first without a UTF-8 byte order mark (Windows editors add one)."""
    iterator = iter(lines)
    first = next(iterator, None)
    if first is None:
        return ()
    return itertools.chain((first.lstrip("\ufeff"),), iterator)  # C-level: no cost per line


def _joined(rows: Iterable[Row]) -> Iterator[Row]:
    """Drop ops' row of a hook when the uniter's row of that hook follows it.

    ops logs during the hook, the uniter after it: each unit holds ops' latest hook row
    (and what ops logged after it) until the uniter's next row says whether it was the
    same hook. A log without uniter lines holds at most one hook per unit.
    """
    held: dict[str, list[Row]] = {}
    for row in rows:
        unit = row[0]
        waiting = held.get(unit)
        if row[3] == "ops-log":
            kind = row[2]
            if kind == "hook":
                if waiting:
                    yield from waiting
                held[unit] = [row]
            elif kind == "action":  # the uniter logs no `ran` line for an action
                if waiting:
                    yield from waiting
                    del held[unit]
                yield row
            elif waiting:
                waiting.append(row)
            else:
                yield row
            continue
        if waiting:
            del held[unit]
            if row[2] == "hook" and waiting[0][4] == row[4]:
                yield row  # the uniter's says how it ended; ops' said it began
                yield from waiting[1:]
                continue
            yield from waiting
        yield row
    for waiting in held.values():
        yield from waiting


def hook_names(
    records: Iterable[HookRecord],
    unit: str,
    outcomes: Collection[Outcome] | None = None,
) -> tuple[str, ...]:
    """The hook names ``unit`` ran, in order; only the given outcomes if ``outcomes`` is set."""
    return tuple(
        record.hook
        for record in records
        if record.kind == "hook"
        and record.unit == unit
        and record.hook is not None
        and (outcomes is None or record.outcome in outcomes)
    )
