"""Writes that survive power loss: flushed and fsynced, with the directory entry fsynced too."""

from __future__ import annotations

import os
from pathlib import Path


def fsync_dir(directory: Path) -> None:
    """Persist a directory entry (a new, renamed or removed file)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def append_bytes(path: Path, data: bytes) -> None:
    """Append and fsync; fsync the directory too when the file is new."""
    created = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    if created:
        fsync_dir(path.parent)


def replace_bytes(path: Path, data: bytes) -> None:
    """Replace a file atomically: a reader sees the old content or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def remove(path: Path) -> None:
    if path.exists():
        path.unlink()
        fsync_dir(path.parent)
