"""The three filesystem layers of a simulated pod, as real directories on disk.

- a container's root filesystem: a fresh directory on every container (re)start;
- the ``charm-data`` EmptyDir (the charm directory and agent state): one per pod;
- storage volumes: outlive pods (ops.testing keeps them per Context and storage index).

ops.testing mounts directories into a simulated container with ``Mount``s, but cannot
mount ``/`` itself, so a root layer is offered as one mount per top-level entry, and
whatever the charm creates beside them is moved into the layer after the hook (see
``harvest``).
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ops.testing import Mount

from harness.common.observations import ABSENT, DIRECTORY, FileState
from harness.twin.layer_paths import in_layer

if TYPE_CHECKING:
    from harness.twin.stamps import FileStamps


def fresh_dir(path: Path) -> Path:
    """An empty directory at ``path`` (whatever was there is gone: a new layer)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def link(root: Path, container_path: str, target: Path) -> None:
    """Mount ``target`` at ``container_path`` inside a root layer (a storage volume, the
    charm-data EmptyDir), as a symlink: the root layer stays replaceable on its own."""
    where = in_layer(root, container_path)
    where.parent.mkdir(parents=True, exist_ok=True)
    if where.is_symlink() or where.exists():
        return
    target.mkdir(parents=True, exist_ok=True)
    where.symlink_to(target, target_is_directory=True)


# What the kernel lists in every container's /proc/mounts (proc_pid_mounts(5), the fstab
# format): the root overlay, proc, and each volume at its location. Device names and
# options are SIMULATED: a charm reads the mount points (wordpress-k8s looks for its
# uploads storage there before anything else).
MOUNTS_FILE = "/proc/mounts"


def mount_table(root: Path, locations: Iterable[str]) -> None:
    """Write the container's ``/proc/mounts``: ``/``, ``/proc`` and each volume."""
    lines = [
        "overlay / overlay rw,relatime 0 0",
        "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0",
        *(
            f"/dev/twin-volume{n} {where} ext4 rw,relatime 0 0"
            for n, where in enumerate(locations)
        ),
    ]
    target = in_layer(root, MOUNTS_FILE)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(f"{line}\n" for line in lines))


def mounts(root: Path) -> dict[str, Mount]:
    """ops.testing mounts offering the layer ``root`` as the container's whole filesystem:
    one per top-level entry. A top-level directory the charm creates during a hook is
    moved into the layer afterwards (``harvest``) and mounted from the next hook on."""
    return {
        f"twin-root-{entry.name}": Mount(location=f"/{entry.name}", source=entry)
        for entry in sorted(root.iterdir(), key=lambda p: p.name)
    }


def lay_out(simulated_root: Path, offered: Mapping[str, Mount]) -> None:
    """Lay the mounts out in ops.testing's directory for the container, so that
    ``Container.get_filesystem(ctx)`` shows what the charm sees after the twin's last hook.

    A mount is a symlink there, as ops.testing makes it; where another mount lies inside
    (a volume at ``/tmp/agent/data`` under the root layer's ``/tmp``), its place is a
    directory of symlinks instead, so that nothing is written into the layers themselves
    (ops.testing's next run would find the inner symlink there and fail).
    """
    fresh_dir(simulated_root)
    locations = {PurePosixPath(str(m.location)): Path(m.source) for m in offered.values()}

    def place(where: Path, path: PurePosixPath, source: Path | None) -> None:
        source = locations.get(path, source)
        deeper = [loc for loc in locations if path in loc.parents]
        if not deeper:
            if source is not None and (source.is_symlink() or source.exists()):
                where.symlink_to(source)
            return
        where.mkdir(parents=True, exist_ok=True)
        leading = sorted({loc.relative_to(path).parts[0] for loc in deeper})
        if source is not None and source.is_dir():
            for entry in sorted(source.iterdir(), key=lambda p: p.name):
                if entry.name not in leading:
                    (where / entry.name).symlink_to(entry)
        for name in leading:
            place(where / name, path / name, None if source is None else source / name)

    place(simulated_root, PurePosixPath("/"), None)


def mount_points(root: Path, locations: Iterable[str]) -> set[str]:
    """Make room in a root layer for volumes mounted at ``locations``; returns the
    top-level locations, whose root mount a volume replaces.

    ops.testing mounts a volume by creating a symlink at its location, going through the
    root layer's top-level mount when the location is below one (a volume at
    ``/tmp/agent/data`` lands inside the layer's ``/tmp``). What is at that place in the
    layer (the symlink of the previous hook, or the image's own directory) is removed: on
    a real node the volume is mounted over it and hides it.
    """
    top: set[str] = set()
    for location in locations:
        parts = PurePosixPath(location).relative_to("/").parts
        if len(parts) < 2:
            top.add(f"/{parts[0]}" if parts else "/")
            continue
        where = root.joinpath(*parts)
        if where.is_symlink() or where.is_file():
            where.unlink()
        elif where.is_dir():
            shutil.rmtree(where)
    return top


def harvest(simulated_root: Path, layer: Path) -> None:
    """Move what a charm created outside the offered mounts into the layer.

    ``simulated_root`` is ``Container.get_filesystem(ctx)``: ops.testing's own directory for
    the container, holding our mounts as symlinks. It is emptied here, so the next hook
    does not find (and warn about) a leftover filesystem there.
    """
    if not simulated_root.is_dir():
        return
    for entry in simulated_root.iterdir():
        if entry.is_symlink():
            entry.unlink()
            continue
        destination = layer / entry.name
        if destination.is_symlink() or destination.is_file():
            destination.unlink()
        elif destination.exists():
            shutil.rmtree(destination)
        shutil.move(str(entry), str(destination))


def digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(65536), b""):
            sha.update(block)
    return f"sha256:{sha.hexdigest()}"


def file_states(
    unit: str,
    container: str,
    root: Path,
    paths: Sequence[str],
    stamps: FileStamps | None = None,
    now: datetime | None = None,
) -> tuple[FileState, ...]:
    """Each path and everything below it: ``sha256:<hex>``, ``dir`` or ``absent``; with
    ``stamps``, each with its SIMULATED metadata and ``now`` as the container's clock."""
    clock = now.timestamp() if now is not None else None

    def state(shown: str, local: Path, digest_text: str) -> FileState:
        found = stamps.note(local, now) if stamps is not None and now is not None else None
        if found is None:
            return FileState(unit, container, shown, digest_text, clock=clock)
        return FileState(
            unit,
            container,
            shown,
            digest_text,
            size=found.size,
            mtime=found.mtime,
            ctime=found.ctime,
            inode=found.inode,
            birth=found.birth,
            clock=clock,
        )

    found: list[FileState] = []
    for path in paths:
        local = in_layer(root, path)
        if not local.exists():
            found.append(FileState(unit, container, path, ABSENT, clock=clock))
            continue
        if local.is_file():
            found.append(state(path, local, digest(local)))
            continue
        found.append(state(path, local, DIRECTORY))
        for below in _walk(local):
            rel = below.relative_to(local).as_posix()
            shown = f"{path.rstrip('/')}/{rel}"
            found.append(state(shown, below, DIRECTORY if below.is_dir() else digest(below)))
    return tuple(found)


def _walk(directory: Path) -> Iterable[Path]:
    """Everything below ``directory`` in sorted order (following mounts, as ``find -L``)."""
    for entry in sorted(directory.iterdir(), key=lambda p: p.name):
        yield entry
        if entry.is_dir():
            yield from _walk(entry)
