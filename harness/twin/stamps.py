"""Simulated file metadata for the twin's layers (SIMULATED): size, times, inode numbers.

The layers are real directories, but their real inode numbers and times would differ from
one twin run to the next, and the host's clock is not the twin's. So every file and
directory a layer holds gets simulated metadata, as a kernel would stamp it: an inode
number from a counter when the file is created, and ctime/mtime from the twin's clock when
it is written. The twin notices a write after each hook, action and harness write (and at
each listing) by the real file's inode, size or content (a directory's entries) changing; the
container's "own clock" is the twin's clock, read at each listing.

What an image ships is stamped as unpacked before any container started, with one inode
number per (application, container, path): overlayfs shows a file of a lower layer alike
in every container of that image on one node, which is exactly what makes an unchanged
image file look "kept" in a new container root (``harness.verdict.file_survival``).
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from harness.twin.layer_paths import in_layer

# Real-file signature: (inode, device, size, content digest; for a directory, its entries).
# The real times are left out on purpose: they would make the twin's output depend on how
# fast the host ran (two writes inside one kernel clock tick look alike), and twin runs
# must be byte-identical. The cost: a file rewritten in place with the same content, or
# deleted and re-created inside one hook on a reused inode, is not noticed.
Signature = tuple[int, int, int, str]


@dataclass(frozen=True)
class SimStat:
    size: int
    mtime: float
    ctime: float
    inode: int
    birth: float


def _signature(path: Path) -> Signature | None:
    try:
        st = path.stat()
        if path.is_dir():
            content = "\n".join(sorted(entry.name for entry in path.iterdir()))
        else:
            content = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return (st.st_ino, st.st_dev, 0 if path.is_dir() else st.st_size, content)


class FileStamps:
    """Each real file's simulated metadata, keyed by its resolved real path."""

    def __init__(self, unpacked: datetime) -> None:
        self._unpacked = unpacked.timestamp()
        self._seen: dict[Path, tuple[Signature, SimStat]] = {}
        self._inodes = itertools.count(1000)
        self._image_inodes: dict[tuple[str, str, str], int] = {}

    def image(self, root: Path, app: str, container: str, paths: Iterable[str]) -> None:
        """``paths`` an image just laid down in ``root``: as unpacked, one inode each."""
        for path in paths:
            real = in_layer(root, path).resolve()
            signature = _signature(real)
            if signature is None:
                continue
            key = (app, container, path)
            if key not in self._image_inodes:
                self._image_inodes[key] = next(self._inodes)
            inode = self._image_inodes[key]
            stat = SimStat(signature[2], self._unpacked, self._unpacked, inode, self._unpacked)
            self._seen[real] = (signature, stat)

    def note(self, path: Path, now: datetime) -> SimStat | None:
        """The file's metadata, stamped ``now`` if it changed since last seen."""
        real = path.resolve()
        signature = _signature(real)
        if signature is None:
            return None
        known = self._seen.get(real)
        if known is not None and known[0] == signature:
            return known[1]
        moment = now.timestamp()
        if known is not None and known[0][:2] == signature[:2]:
            # The same real file written again: same inode, new times.
            stat = SimStat(signature[2], moment, moment, known[1].inode, known[1].birth)
        else:
            stat = SimStat(signature[2], moment, moment, next(self._inodes), moment)
        self._seen[real] = (signature, stat)
        return stat

    def sweep(self, roots: Iterable[Path], now: datetime) -> None:
        """Notice every write under ``roots`` (following the volumes mounted in them)."""
        for root in roots:
            if not root.is_dir():
                continue
            for here, dirs, files in os.walk(root, followlinks=True):
                dirs.sort()
                for name in (*dirs, *sorted(files)):
                    self.note(Path(here) / name, now)
