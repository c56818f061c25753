"""A hook timeline as text, JSON or Markdown, for ``repro timeline``.

Text and JSON stream: they write each record as it comes and hold nothing, so a 1 GB
debug-log goes through in constant memory. Markdown groups by unit, so it keeps the records
(never the lines).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from harness.evidence import markdown as md
from harness.observations import HookRecord


def record_json(record: HookRecord) -> dict[str, Any]:
    """The JSON object of one record: unit, time, kind, hook and outcome (kind ``hook``)."""
    value: dict[str, Any] = {
        "unit": record.unit,
        "time": record.time,
        "kind": record.kind,
        "source": record.source,
    }
    if record.kind == "hook" or record.hook is not None:
        value["hook"] = record.hook
    if record.kind == "hook":
        value["outcome"] = record.outcome
    if record.detail:
        value["detail"] = record.detail
    return value


def describe(record: HookRecord) -> str:
    """``config-changed``, ``start (failed: exit status 1)``, ``[reboot]``, ops' kinds.

    ``meter-status-changed (not run: charm missing from disk)``; ops' records name their
    source: ``update-status [ops]``, ``[re-emitted] update-status (deferred earlier) [ops]``.
    """
    ops = " [ops]" if record.source == "ops-log" else ""
    if record.kind != "hook":
        name = f" {record.hook}" if record.hook else ""
        if ops:
            detail = f" ({record.detail})" if record.detail else ""
            return f"[{record.kind}]{name}{detail}{ops}"
        return f"[{record.kind}]{name}" + (f" {record.detail}" if record.detail else "")
    name = record.hook or "?"
    if record.outcome == "not-run":
        return f"{name} (not run: {record.detail})" if record.detail else f"{name} (not run)"
    if record.outcome in (None, "ok"):
        return name + (f" ({record.detail})" if record.detail and ops else "") + ops
    return f"{name} ({record.outcome}" + (f": {record.detail})" if record.detail else ")")


def write_text(records: Iterable[HookRecord], out: TextIO) -> int:
    """One line per record, ``time  unit  hook``; returns how many were written."""
    count = 0
    for record in records:
        out.write(f"{record.time:<23} {record.unit:<28} {describe(record)}\n")
        count += 1
    return count


def write_json(records: Iterable[HookRecord], out: TextIO) -> int:
    """A JSON array written element by element; returns how many were written."""
    count = 0
    out.write("[")
    for record in records:
        out.write(",\n  " if count else "\n  ")
        out.write(json.dumps(record_json(record), sort_keys=True, ensure_ascii=False))
        count += 1
    out.write("\n]\n" if count else "]\n")
    return count


def _cell(text: str) -> str:
    return md.cell(text.replace("\n", " "))


def render_markdown(records: Iterable[HookRecord], title: str) -> str:
    """One section per unit (in order of first appearance), one table row per record."""
    by_unit: dict[str, list[HookRecord]] = {}
    for record in records:
        by_unit.setdefault(record.unit, []).append(record)
    lines = [f"# Hook timeline: {md.text(title)}", ""]
    if not by_unit:
        return "\n".join([*lines, "No hook lines found.", ""])
    lines += ["| Unit | Hooks | Not ok |", "|---|---|---|"]
    for unit, unit_records in by_unit.items():
        hooks = [r for r in unit_records if r.kind == "hook"]
        bad = sum(1 for r in hooks if r.outcome not in (None, "ok"))
        lines.append(f"| {_cell(unit)} | {len(hooks)} | {bad} |")
    for unit, unit_records in by_unit.items():
        lines += [
            "",
            f"## {md.text(unit)}",
            "",
            "| Time | Kind | Hook | Outcome | Detail |",
            "|---|---|---|---|---|",
        ]
        for r in unit_records:
            lines.append(
                f"| {_cell(r.time)} | {_cell(r.kind)} | {_cell(r.hook or '')} | "
                f"{_cell(r.outcome or '')} | {_cell(r.detail)} |"
            )
    return "\n".join(lines) + "\n"
