"""What ``run_disruption`` checks and completes in the test's State before a run.

Every container the charm declares is in the pod, and each name ``storage_mounts`` gives is
a mount of the state; ``check_images`` (``harness.twin.image``) checks the images.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

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
