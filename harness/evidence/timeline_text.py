"""A hook timeline as text, JSON or Markdown, for ``repro timeline``.

Text and JSON stream: they write each record as it comes and hold nothing, so a 1 GB
debug-log goes through in constant memory (and `juju debug-log | repro timeline -` shows
each hook as it ends). Markdown groups by unit, so it
keeps the records (never the lines).

They render the parser's rows (``debug_log.Row``: a HookRecord's fields as a tuple), not
HookRecord objects: a real debug-log can hold a hook or ops event line in five, and each
record's cost is most of ``repro timeline``'s time over merely reading the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from json.encoder import encode_basestring as _string  # what json.dumps(ensure_ascii=False) uses
from typing import Any, TextIO

from harness.evidence import markdown as md
from harness.observe.debug_log import Row


def record_json(row: Row) -> dict[str, Any]:
    """The JSON object of one record: unit, time, kind, hook and outcome (kind ``hook``)."""
    unit, time, kind, source, hook, outcome, detail = row
    value: dict[str, Any] = {"unit": unit, "time": time, "kind": kind, "source": source}
    if kind == "hook" or hook is not None:
        value["hook"] = hook
    if kind == "hook":
        value["outcome"] = outcome
    if detail:
        value["detail"] = detail
    return value


def describe(row: Row) -> str:
    """``config-changed``, ``start (failed: exit status 1)``, ``[reboot]``, ops' kinds.

    ``meter-status-changed (not run: charm missing from disk)``; ops' records name their
    source: ``update-status [ops]``, ``[re-emitted] update-status (deferred earlier) [ops]``.
    """
    _, _, kind, source, hook, outcome, detail = row
    ops = " [ops]" if source == "ops-log" else ""
    if kind != "hook":
        name = f" {hook}" if hook else ""
        if ops:
            return f"[{kind}]{name} ({detail}){ops}" if detail else f"[{kind}]{name}{ops}"
        return f"[{kind}]{name} {detail}" if detail else f"[{kind}]{name}"
    name = hook or "?"
    if outcome == "not-run":
        return f"{name} (not run: {detail})" if detail else f"{name} (not run)"
    if outcome is None or outcome == "ok":
        return f"{name} ({detail}){ops}" if detail and ops else name + ops
    return f"{name} ({outcome}: {detail})" if detail else f"{name} ({outcome})"


def write_text(rows: Iterable[Row], out: TextIO) -> int:
    """One line per record, ``time  unit  hook``, each written as it comes; returns how many."""
    count = 0
    write = out.write
    for row in rows:
        write(md.visible(f"{row[1]:<23} {row[0]:<28} {describe(row)}\n"))
        count += 1
    return count


def write_json(rows: Iterable[Row], out: TextIO) -> int:
    """A JSON array, one object a line, each written as it comes; returns how many."""
    count = 0
    write = out.write
    write("[")
    for row in rows:
        write(",\n  " if count else "\n  ")
        write(json_object(row))
        count += 1
    write("\n]\n" if count else "]\n")
    return count


def json_object(row: Row) -> str:
    """``json.dumps(record_json(row), sort_keys=True, ensure_ascii=False)``, assembled.

    The keys are fixed and few, so only the values need encoding (the json module's own C
    string encoder); a whole json.dumps per record costs more than parsing its line.
    """
    unit, time, kind, source, hook, outcome, detail = row
    head = f'{{"detail": {_string(detail)}, ' if detail else "{"
    if kind == "hook":
        hook_json = "null" if hook is None else _string(hook)
        outcome_json = "null" if outcome is None else _string(outcome)
        middle = f'"hook": {hook_json}, "kind": "hook", "outcome": {outcome_json}, '
    elif hook is not None:
        middle = f'"hook": {_string(hook)}, "kind": {_string(kind)}, '
    else:
        middle = f'"kind": {_string(kind)}, '
    tail = f'"source": {_string(source)}, "time": {_string(time)}, "unit": {_string(unit)}}}'
    return head + middle + tail


def render_markdown(rows: Iterable[Row], title: str) -> str:
    """One section per unit (in order of first appearance), one table row per record."""
    by_unit: dict[str, list[Row]] = {}
    for row in rows:
        by_unit.setdefault(row[0], []).append(row)
    lines = [f"# Hook timeline: {md.text(title)}", ""]
    if not by_unit:
        return "\n".join([*lines, "No hook lines found.", ""])
    # Hook names, kinds, outcomes and times repeat: escape each distinct value once.
    cells: dict[str, str] = {}

    def cell(value: str) -> str:
        escaped = cells.get(value)
        if escaped is None:
            escaped = cells[value] = md.cell(value.replace("\n", " "))
        return escaped

    lines += ["| Unit | Hooks | Not ok |", "|---|---|---|"]
    for unit, unit_rows in by_unit.items():
        hooks = [r for r in unit_rows if r[2] == "hook"]
        bad = sum(1 for r in hooks if r[5] not in (None, "ok"))
        lines.append(f"| {cell(unit)} | {len(hooks)} | {bad} |")
    for unit, unit_rows in by_unit.items():
        lines += [
            "",
            f"## {md.text(unit)}",
            "",
            "| Time | Kind | Hook | Outcome | Detail |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {cell(time)} | {cell(kind)} | {cell(hook or '')} | "
            f"{cell(outcome or '')} | {cell(detail)} |"
            for _, time, kind, _, hook, outcome, detail in unit_rows
        ]
    return "\n".join(lines) + "\n"
