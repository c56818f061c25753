"""The podspec probe's hook journal: one JSON object per line, numbered by ``seq``.

It lives in the unit's charm directory, in the operator pod (<app>-operator-0), where every
hook of a podspec charm runs: replacing a workload pod does not touch it. Python 3.8 (the
operator pod's), so no newer syntax or library calls here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

JOURNAL_FILE = "podspec-probe-journal.jsonl"
# Action results travel as command-line arguments (Linux refuses one of 128 KiB or more).
PAGE_BYTES = 64 * 1024


def read(path: Path, since: int = 0) -> list[dict[str, Any]]:
    """Entries with seq > since; a line that is not a whole JSON object is skipped."""
    if not path.exists():
        return []
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").split("\n")[:-1]:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("seq"), int) and entry["seq"] > since:
            found.append(entry)
    return found


def last_seq(path: Path) -> int:
    entries = read(path)
    return max((int(e["seq"]) for e in entries), default=0)


def append(path: Path, entry: Mapping[str, Any]) -> int:
    """Append one entry after the last seq, flushed and fsynced; return its seq."""
    seq = last_seq(path) + 1
    body = dict(entry)
    body["seq"] = seq
    line = json.dumps(body, sort_keys=True) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())
    return seq


def page(path: Path, since: int, limit: int) -> tuple[str, int, bool]:
    """One page after ``since``: its JSON text, the cursor to pass next, whether more."""
    parts: list[str] = []
    size = 2
    cursor = since
    more = False
    for entry in read(path, since):
        text = json.dumps(entry, sort_keys=True)
        if len(parts) >= limit or size + len(text) + 1 > PAGE_BYTES:
            more = True
            break
        parts.append(text)
        size += len(text) + 1
        cursor = int(entry["seq"])
    return "[" + ",".join(parts) + "]", cursor, more
