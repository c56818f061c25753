"""What ``run_disruption`` checks and completes in the test's State before a run.

Every container the charm declares is in the pod, every storage its metadata mounts in a
container is a volume there (``with_storage_volumes``), and each name ``storage_mounts``
gives is a mount of the state; ``check_images`` (``harness.twin.image``) checks the images.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from ops import testing

from harness.common.errors import HarnessError


def with_declared_containers(state: testing.State, declared: Collection[str]) -> testing.State:
    """Every container the charm declares is in its pod, whether or not the test's state
    names it; one the state leaves out is not reachable until it starts again."""
    there = {c.name for c in state.containers}
    missing = [testing.Container(name) for name in declared if name not in there]
    if not missing:
        return state
    return replace(state, containers=frozenset({*state.containers, *missing}))


def check_storage_mounts(storage_mounts: Collection[str], state: testing.State) -> None:
    """A name no mount has would leave the volume a plain directory, lost with the pod."""
    known = {name for c in state.containers for name in c.mounts}
    unknown = sorted(set(storage_mounts) - known)
    if unknown:
        mounts = "; ".join(
            f"{c.name}: {name} at {mount.location}"
            for c in sorted(state.containers, key=lambda c: c.name)
            for name, mount in sorted(c.mounts.items())
        )
        raise HarnessError(
            f"storage_mounts names {', '.join(unknown)}, which no container mount of the "
            "state has (it takes the keys of testing.Container(mounts=...))",
            f"the state's mounts: {mounts or 'none'}",
        )


def storage_locations(meta: Mapping[str, Any]) -> dict[str, dict[str, PurePosixPath]]:
    """container -> storage -> where the metadata mounts it in that container (a mount's
    own ``location``, else the storage's)."""
    storages = meta.get("storage") or {}
    found: dict[str, dict[str, PurePosixPath]] = {}
    for container, spec in (meta.get("containers") or {}).items():
        for mount in (spec or {}).get("mounts") or ():
            name = mount.get("storage")
            location = mount.get("location") or (storages.get(name) or {}).get("location")
            if name and location:
                found.setdefault(str(container), {})[str(name)] = PurePosixPath(location)
    return found


def with_storage_volumes(
    state: testing.State, meta: Mapping[str, Any], workdir: Path
) -> tuple[testing.State, set[str]]:
    """The state with a volume wherever the charm's metadata mounts storage, and the names
    of the mounts that are volumes.

    A mount of the state at a storage's location (or inside it) is that volume. Where the
    state mounts none, the twin makes one (seeded from whatever mount of the state covers
    that place, copied: the test's directories are never changed), as Kubernetes would:
    without it, the storage would be part of the container's root and lost with it.
    """
    declared = storage_locations(meta)
    volumes: set[str] = set()
    containers = []
    for c in state.containers:
        mounts = dict(c.mounts)
        for storage, location in sorted(declared.get(c.name, {}).items()):
            at = {n: PurePosixPath(str(m.location)) for n, m in mounts.items()}
            inside = {
                n for n, where in at.items() if where == location or location in where.parents
            }
            volumes |= inside
            if any(at[n] == location for n in inside):
                continue
            volume = workdir / f"storage-{c.name}-{storage}"
            if volume.exists():
                shutil.rmtree(volume)
            volume.mkdir(parents=True)
            for name, where in sorted(at.items(), key=lambda item: len(item[1].parts)):
                if where in location.parents:
                    seed = Path(mounts[name].source).joinpath(*location.relative_to(where).parts)
                    if seed.is_dir():
                        shutil.copytree(seed, volume, symlinks=True, dirs_exist_ok=True)
            key = storage if storage not in mounts else f"storage-{storage}"
            mounts[key] = testing.Mount(location=str(location), source=volume)
            volumes.add(key)
        containers.append(replace(c, mounts=mounts) if mounts != c.mounts else c)
    return replace(state, containers=frozenset(containers)), volumes
