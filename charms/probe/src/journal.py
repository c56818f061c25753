"""The probe's journal: one JSON object per line, appended durably, read tolerantly.

A power loss can leave the last line torn (unterminated, or cut mid-JSON). Readers skip
such lines and report their line numbers; writers terminate a torn tail before appending,
so a new line never glues onto a torn one. ``seq`` is monotonic for the life of the
journal, across clear-journal too (see ``clear``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import durable
from paths import BUFFER_FILE, JOURNAL_FILE, JOURNAL_FLOOR_FILE

Entry = dict[str, Any]
_TAIL_BLOCK = 8192


@dataclass(frozen=True)
class JournalRead:
    """What a read found: entries with seq > since, skipped line numbers, highest seq."""

    entries: tuple[Entry, ...]
    torn: tuple[int, ...]  # 1-based numbers of lines skipped as torn/invalid
    last_seq: int  # highest seq in the text (0 when there is none)


def _parse(line: str) -> Entry | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("seq"), int):
        return None
    return value


def read_journal(source: str | Path, since: int = 0) -> JournalRead:
    """Read journal text (a ``str``) or a journal file (a ``Path``; absent means empty).

    Only newline-terminated lines that are JSON objects with an integer ``seq`` count.
    An unterminated last line is torn even when it parses: the writer may have died
    before the newline, and the next append terminates it (it is then read normally).
    """
    if isinstance(source, Path):
        text = source.read_text(encoding="utf-8", errors="replace") if source.exists() else ""
    else:
        text = source
    lines = text.split("\n")
    entries: list[Entry] = []
    torn: list[int] = []
    last_seq = 0
    for number, line in enumerate(lines[:-1], start=1):
        if not line.strip():
            continue
        entry = _parse(line)
        if entry is None:
            torn.append(number)
            continue
        last_seq = max(last_seq, entry["seq"])
        if entry["seq"] > since:
            entries.append(entry)
    if lines[-1]:
        torn.append(len(lines))
    return JournalRead(tuple(entries), tuple(torn), last_seq)


def _repair_tail(path: Path) -> None:
    """Terminate a torn last line so the next line starts on its own."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as f:
        f.seek(-1, 2)
        last = f.read(1)
    if last != b"\n":
        durable.append_bytes(path, b"\n")


def _last_seq_in_file(path: Path) -> int:
    """Highest seq among the last valid lines, reading backwards from the end."""
    if not path.exists():
        return 0
    with path.open("rb") as f:
        f.seek(0, 2)
        pos = f.tell()
        buf = b""
        while pos > 0:
            step = min(_TAIL_BLOCK, pos)
            pos -= step
            f.seek(pos)
            buf = f.read(step) + buf
            lines = buf.split(b"\n")[:-1]  # the remainder after the last newline is torn
            if pos > 0:
                lines = lines[1:]  # may be cut by the block boundary
            for raw in reversed(lines):
                entry = _parse(raw.decode("utf-8", errors="replace"))
                if entry is not None:
                    return int(entry["seq"])
    return 0


def _floor(directory: Path) -> int:
    floor_file = directory / JOURNAL_FLOOR_FILE
    try:
        return int(json.loads(floor_file.read_text())["last_seq"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def last_seq(directory: Path) -> int:
    """The last seq handed out in this journal directory (kept across clear-journal)."""
    return max(_last_seq_in_file(directory / JOURNAL_FILE), _floor(directory))


def _line(seq: int, entry: Mapping[str, Any]) -> bytes:
    body = {"seq": seq, **{k: v for k, v in entry.items() if k != "seq"}}
    return (json.dumps(body) + "\n").encode("utf-8")


def append(directory: Path, entries: Iterable[Mapping[str, Any]]) -> list[int]:
    """Append entries in order, numbering them after the last seq; one fsync for all."""
    path = directory / JOURNAL_FILE
    _repair_tail(path)
    seq = last_seq(directory)
    data = b""
    numbers: list[int] = []
    for entry in entries:
        seq += 1
        numbers.append(seq)
        data += _line(seq, entry)
    if data:
        durable.append_bytes(path, data)
    return numbers


def clear(directory: Path) -> tuple[int, int]:
    """Empty the journal; return (entries removed, last seq). Later seqs continue after it."""
    path = directory / JOURNAL_FILE
    removed = len(read_journal(path).entries)
    floor = last_seq(directory)
    durable.replace_bytes(directory / JOURNAL_FLOOR_FILE, json.dumps({"last_seq": floor}).encode())
    durable.replace_bytes(path, b"")
    return removed, floor


# The buffer: events seen before the journal storage was attached, kept in the charm dir.


def buffer_path(charm_dir: Path) -> Path:
    return charm_dir / BUFFER_FILE


def buffer_add(charm_dir: Path, entry: Mapping[str, Any]) -> None:
    """Keep an entry until the storage is attached; its seq is given when it is flushed."""
    path = buffer_path(charm_dir)
    _repair_tail(path)
    body = {"seq": None, **{k: v for k, v in entry.items() if k != "seq"}}
    durable.append_bytes(path, (json.dumps(body) + "\n").encode("utf-8"))


def buffer_entries(charm_dir: Path) -> list[Entry]:
    """Buffered entries in arrival order; torn lines (power loss) are skipped."""
    path = buffer_path(charm_dir)
    if not path.exists():
        return []
    entries: list[Entry] = []
    for line in path.read_text(encoding="utf-8", errors="replace").split("\n")[:-1]:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            entries.append(value)
    return entries


def flush_buffer(charm_dir: Path, directory: Path) -> list[int]:
    """Move buffered entries into the journal, in order; return the seqs they got.

    At-least-once: a crash between the append and the removal repeats them next time.
    """
    entries = buffer_entries(charm_dir)
    numbers = append(directory, entries) if entries else []
    remove_buffer(charm_dir)
    return numbers


def remove_buffer(charm_dir: Path) -> None:
    durable.remove(buffer_path(charm_dir))


# Paging for the journal action. ops hands action results to `action-set` as command-line
# arguments, and Linux refuses any single argument of 128 KiB or more (MAX_ARG_STRLEN), so
# one page of entries, as JSON, stays well under that whatever `limit` asks for.
PAGE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Page:
    """One page of entries after a cursor: their JSON text, the next cursor, whether more."""

    text: str
    cursor: int
    more: bool
    count: int


def page(entries: Iterable[Entry], limit: int, budget: int = PAGE_BYTES) -> Page:
    """Entries in order, at most ``limit`` and at most ``budget`` bytes of JSON array.

    An entry too big for a page on its own is cut to its identity (``seq``, ``event``,
    ``unit``, ``time``) with ``"oversized": true``, so the cursor always moves on.
    """
    parts: list[str] = []
    size = 2  # the brackets
    cursor = 0
    more = False
    for entry in entries:
        if len(parts) >= limit:
            more = True
            break
        text = json.dumps(entry)
        if len(text.encode()) + 2 > budget:
            keep = {k: entry.get(k) for k in ("seq", "event", "unit", "time")}
            text = json.dumps({**keep, "oversized": True})
        extra = len(text.encode()) + (1 if parts else 0)
        if parts and size + extra > budget:
            more = True
            break
        parts.append(text)
        size += extra
        cursor = int(entry["seq"])
    return Page("[" + ",".join(parts) + "]", cursor, more, len(parts))


_SEQ_PREFIX = '{"seq": '


def _cheap_seq(line: str) -> int | None:
    """The seq of a line this module wrote (``{"seq": N, ...``) without parsing the JSON."""
    if not line.startswith(_SEQ_PREFIX):
        return None
    digits = line[len(_SEQ_PREFIX) : line.find(",", len(_SEQ_PREFIX))]
    return int(digits) if digits.isdigit() else None


def read_after(
    path: Path, since: int, limit: int, budget: int = PAGE_BYTES
) -> tuple[Page, tuple[int, ...]]:
    """One page of the journal file after ``since``, reading only as far as the page needs.

    Lines at or before the cursor are skipped by their ``seq`` prefix, unparsed, so paging
    through a long journal does not parse it once per page. Returns the page and the line
    numbers of torn lines met on the way.
    """
    torn: list[int] = []
    wanted: list[Entry] = []
    size = 0
    if not path.exists():
        return page([], limit, budget), ()
    with path.open(encoding="utf-8", errors="replace") as f:
        for number, raw in enumerate(f, start=1):
            if not raw.endswith("\n"):
                torn.append(number)  # unterminated: the writer may have died mid-line
                break
            line = raw[:-1]
            if not line.strip():
                continue
            seq = _cheap_seq(line)
            if seq is not None and seq <= since:
                continue
            entry = _parse(line)
            if entry is None:
                torn.append(number)
                continue
            if entry["seq"] <= since:
                continue
            wanted.append(entry)
            size += len(line)
            if len(wanted) > limit or size > budget:
                break  # enough to fill the page and to know there is more
    return page(wanted, limit, budget), tuple(torn)
