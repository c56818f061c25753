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

from harness.observations import HookRecord, Outcome

UNKNOWN_UNIT = "unknown"
"""The unit of a record from a log without entities (an agent log file) when none is given."""


_LINE = re.compile(
    r"(?:\S+ \[container-agent\] )?"  # pebble's prefix in `kubectl logs <pod> -c charm`
    r"(?:(?P<entity>[^\s:]+): )?"
    r"(?P<time>(?:\d{4}-\d{2}-\d{2}[ T])?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)"
    r" (?:TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL)"
    r" (?P<module>juju\.\S+)"
    r"(?: \S+\.go:\d+)?"  # --location, and always in agent log files
    r" (?P<message>.*)"
)

_MESSAGE = re.compile(
    r'ran "(?P<ok>[^"]+)" hook'
    r'|hook "(?P<failed>[^"]+)"(?: \(via [^)]*\))? failed: (?P<error>.*)'
    r'|hook "(?P<terminated>[^"]+)" was terminated'
    r'|"(?P<terminated_meter>[^"]+)" hook was terminated'
    r'|skipped "(?P<skipped>[^"]+)" hook \(missing\)'
    r'|error running "(?P<failed_meter>[^"]+)": (?P<meter_error>.*)'
    r"|(?P<reboot>reboot detected; triggering implicit start hook)"
    r"|running containerAgent \[(?P<version>[^\]\s]+)"
)

# Podspec operators run every unit's uniter in one pod under ``application-<app>``; the
# unit is in the module: juju.worker.caasoperator.uniter.<app>/<n>.operation (loggo child
# named after the unit id), accepted as <app>-<n> too.
# ops' lines: see the module docstring. The event name is ops' (underscores), its hook the
# Juju name (hyphens): Juju names never hold underscores, ops turns each hyphen into one.
_OPS_LINE = re.compile(
    r"(?:\S+ \[container-agent\] )?"
    r"(?:(?P<entity>[^\s:]+): )?"
    r"(?P<time>(?:\d{4}-\d{2}-\d{2}[ T])?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)"
    r" (?:TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL)"
    r" unit\.(?P<unit>[a-z][a-z0-9-]*/\d+)\.juju-log"
    r" (?:(?P<relation>[a-z][a-z0-9-]*:\d+): )?"
    r"(?:[A-Za-z_][\w.]*:)?"
    r"(?:Emitting Juju event (?P<juju>\w+)"
    r"|Emitting custom event <(?P<cls>[^\s>]+) via \S+/on/(?P<custom>\w+)\[\d+\]>"
    r"|Re-emitting (?:deferred event )?<[^\s>]+ via \S+/on/(?P<reemitted>\w+)\[\d+\]>"
    r"(?: \(\d+ of \d+ in queue\))?"
    r"|Deferring <[^\s>]+ via \S+/on/(?P<deferred>\w+)\[\d+\]>)"
    r"\.\s*$"
)

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
    if not _worth_a_look(line):
        return None
    return _parse(line, unit)


def _worth_a_look(line: str) -> bool:
    """A cheap substring test that keeps the regexes off the vast majority of lines."""
    return (
        '"' in line and ('" hook' in line or 'hook "' in line or 'error running "' in line)
    ) or ("reboot detected" in line or "running containerAgent" in line)


def _ops_worth_a_look(line: str) -> bool:
    return "mitting " in line or "Deferring <" in line


def parse_ops_line(line: str) -> HookRecord | None:
    """One line of ops' event log (``Emitting Juju event ...``) as a record, or None."""
    if "\x1b[" in line:
        line = _ANSI.sub("", line)
    match = _OPS_LINE.match(line)
    if match is None:
        return None
    entity = match.group("entity")
    if entity is not None and not entity.startswith("unit-"):
        return None
    unit, time, relation = match.group("unit"), match.group("time"), match.group("relation")
    where = f" on {relation}" if relation else ""
    name = match.group("juju")
    if name is not None:
        if name.endswith("_action"):
            return _ops_record(unit, time, "action", name[: -len("_action")], where.strip())
        return _ops_record(unit, time, "hook", name, where.strip())
    name = match.group("custom")
    if name is not None:
        detail = f"custom event {match.group('cls')}{where}: charm code, not a Juju hook"
        return _ops_record(unit, time, "custom-event", name, detail)
    name = match.group("reemitted")
    if name is not None:
        return _ops_record(unit, time, "re-emitted", name, f"deferred earlier{where}")
    detail = f"deferred by the charm{where}"
    return _ops_record(unit, time, "deferred", match.group("deferred"), detail)


def _ops_record(unit: str, time: str, kind: str, event: str, detail: str) -> HookRecord:
    return HookRecord(
        unit=unit,
        time=time,
        kind=kind,
        source="ops-log",
        hook=event.replace("_", "-"),
        detail=detail,
    )


def _parse(line: str, unit: str | None) -> HookRecord | None:
    if "\x1b[" in line:  # `juju debug-log --color`
        line = _ANSI.sub("", line)
    match = _LINE.match(line.rstrip("\r\n"))
    if not match:
        return None
    module = match.group("module")
    message = match.group("message")
    found = _MESSAGE.match(message)
    if found is None and " " in message:
        # Juju 3.x prints a record's labels between the module and the message.
        found = _MESSAGE.match(message, message.index(" ") + 1)
    if found is None:
        return None
    owner = _unit_of(match.group("entity"), module, unit)
    if owner is None:
        return None
    time = match.group("time")
    groups = found.groupdict()
    if groups["version"] is not None:
        if module != "juju.cmd":
            return None
        return _record(owner, time, "agent-start", detail=groups["version"])
    if groups["reboot"] is not None:
        return _record(owner, time, "reboot")
    outcome: Outcome
    detail = ""
    if groups["ok"] is not None:
        hook, outcome = groups["ok"], "ok"
    elif groups["failed"] is not None:
        hook, outcome, detail = groups["failed"], "failed", groups["error"]
    elif groups["failed_meter"] is not None:
        hook, detail = groups["failed_meter"], groups["meter_error"]
        # The meter-status worker found no charm to run the hook from: nothing ran.
        outcome = "not-run" if "charm missing" in detail else "failed"
    elif groups["terminated"] is not None:
        hook, outcome = groups["terminated"], "terminated"
    elif groups["terminated_meter"] is not None:
        hook, outcome = groups["terminated_meter"], "terminated"
    else:
        hook, outcome = groups["skipped"], "skipped"
    return _record(owner, time, "hook", hook=hook, outcome=outcome, detail=detail.strip())


def _record(
    unit: str,
    time: str,
    kind: str,
    *,
    hook: str | None = None,
    outcome: Outcome | None = None,
    detail: str = "",
) -> HookRecord:
    return HookRecord(
        unit=unit,
        time=time,
        kind=kind,
        source="debug-log",
        hook=hook,
        outcome=outcome,
        detail=detail,
    )


def parse_lines(
    lines: Iterable[str], unit: str | None = None, *, ops: bool = False
) -> Iterator[HookRecord]:
    """Every hook-related record in ``lines``, in log order; streams in constant memory.

    With ``ops``, ops' event lines too (source ``ops-log``), joined with the uniter's.
    """
    lines = _without_bom(lines)
    if ops:
        yield from _joined(_both_sources(lines, unit))
        return
    parse = _parse  # a local: this loop may see a billion lines; the tests are inlined
    for line in lines:
        if (
            '"' in line and ('" hook' in line or 'hook "' in line or 'error running "' in line)
        ) or ("reboot detected" in line or "running containerAgent" in line):
            record = parse(line, unit)
            if record is not None:
                yield record


def _without_bom(lines: Iterable[str]) -> Iterable[str]:
    """The lines, the first without a UTF-8 byte order mark (Windows editors add one)."""
    iterator = iter(lines)
    first = next(iterator, None)
    if first is None:
        return ()
    return itertools.chain((first.lstrip("\ufeff"),), iterator)  # C-level: no cost per line


def _both_sources(lines: Iterable[str], unit: str | None) -> Iterator[HookRecord]:
    parse, parse_ops = _parse, parse_ops_line  # locals, and the tests inline: a hot loop
    for line in lines:
        # A quote is found fastest (memchr); every uniter hook message holds one.
        if '"' in line and ('" hook' in line or 'hook "' in line or 'error running "' in line):
            record = parse(line, unit)
        elif "mitting " in line or "Deferring <" in line:
            record = parse_ops(line)
        elif "reboot detected" in line or "running containerAgent" in line:
            record = parse(line, unit)
        else:
            continue
        if record is not None:
            yield record


def _joined(records: Iterable[HookRecord]) -> Iterator[HookRecord]:
    """Drop ops' record of a hook when the uniter's record of that hook follows it.

    ops logs during the hook, the uniter after it: each unit holds ops' latest hook record
    (and what ops logged after it) until the uniter's next record says whether it was the
    same hook. A log without uniter lines holds at most one hook per unit.
    """
    held: dict[str, list[HookRecord]] = {}
    for record in records:
        waiting = held.get(record.unit)
        if record.source == "ops-log":
            if record.kind == "hook":
                if waiting:
                    yield from waiting
                held[record.unit] = [record]
            elif record.kind == "action":  # the uniter logs no `ran` line for an action
                if waiting:
                    yield from waiting
                    del held[record.unit]
                yield record
            elif waiting:
                waiting.append(record)
            else:
                yield record
            continue
        if waiting:
            del held[record.unit]
            if record.kind == "hook" and waiting[0].hook == record.hook:
                yield record  # the uniter's says how it ended; ops' said it began
                yield from waiting[1:]
                continue
            yield from waiting
        yield record
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
