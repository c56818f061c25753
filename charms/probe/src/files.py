"""Marker writes and file listings in either container, with sha256 digests.

The charm container is this machine's filesystem under PROBE_ROOTFS; the workload
container is reached through Pebble. Listed paths are container paths either way.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path, PurePosixPath

import ops
from paths import in_rootfs

ABSENT = "absent"
DIRECTORY = "dir"
MAX_ENTRIES = 1000  # keeps the action output bounded; "truncated" says when it was hit

FileRow = dict[str, str]


def split_paths(text: str) -> list[str]:
    """Comma- or whitespace-separated absolute paths, in order, without duplicates."""
    found = [p for p in re.split(r"[,\s]+", text) if p]
    return list(dict.fromkeys(found))


def check_absolute(path: str) -> str | None:
    """A problem with the path for a one-line action failure, or None when fine."""
    if not path.startswith("/"):
        return f"path {path!r} is not absolute; give a path like /probe/workload-marker"
    if ".." in PurePosixPath(path).parts:
        return f"path {path!r} contains '..'; give a plain absolute path"
    return None


def sha256_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def write_charm(path: str, content: str) -> str:
    target = in_rootfs(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode()
    with target.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return sha256_digest(data)


def write_workload(container: ops.Container, path: str, content: str) -> str:
    container.push(path, content, make_dirs=True)
    return sha256_digest(content.encode())


def list_charm(paths: list[str], limit: int = MAX_ENTRIES) -> tuple[list[FileRow], bool]:
    """Rows for each path (recursing into directories); True when cut at ``limit``."""
    rows: list[FileRow] = []
    for path in paths:
        local = in_rootfs(path)
        if local.is_dir():
            rows.append({"path": path, "digest": DIRECTORY})
            for dirpath, dirnames, filenames in os.walk(local):
                dirnames.sort()
                here = Path(dirpath)
                base = PurePosixPath(path) / here.relative_to(local).as_posix()
                rows.extend({"path": str(base / n), "digest": DIRECTORY} for n in dirnames)
                rows.extend(
                    {"path": str(base / n), "digest": _file_digest(here / n)}
                    for n in sorted(filenames)
                )
        elif local.exists() or local.is_symlink():
            rows.append({"path": path, "digest": _file_digest(local)})
        else:
            rows.append({"path": path, "digest": ABSENT})
        if len(rows) >= limit:
            return rows[:limit], True
    return rows, False


def _file_digest(local: Path) -> str:
    try:
        return sha256_digest(local.read_bytes())
    except OSError:
        return ABSENT  # a dangling symlink, or gone since it was listed


def list_workload(
    container: ops.Container, paths: list[str], limit: int = MAX_ENTRIES
) -> tuple[list[FileRow], bool]:
    """Like list_charm, through Pebble; raises ops.pebble errors when Pebble is down."""
    rows: list[FileRow] = []
    pending = list(paths)
    while pending:
        path = pending.pop(0)
        infos = container.list_files(path, itself=True) if container.exists(path) else []
        if not infos:
            rows.append({"path": path, "digest": ABSENT})
        elif infos[0].type == ops.pebble.FileType.DIRECTORY:
            rows.append({"path": path, "digest": DIRECTORY})
            children = sorted(container.list_files(path), key=lambda i: i.path)
            pending[:0] = [child.path for child in children]
        else:
            data = container.pull(path, encoding=None).read()
            rows.append({"path": path, "digest": sha256_digest(data)})
        if len(rows) >= limit:
            return rows[:limit], True
    return rows, False
