"""Did a file the charm writes (``--watch``) survive a disruption? Judged on its metadata.

A file the harness writes once (``--mark``) is judged on its content: nobody writes it
again, so the same digest after means it survived. A file the charm writes may be written
again after the disruption (on ``pebble-ready``, say): the same digest then proves nothing.
So a watched file is compared before and after on existence, content, size, mtime, ctime
and inode (and birth time where the observer reads it), and the answer is one of:

- **lost**: absent after; or the file there now is *older* than the one seen before
  (its ctime went back). The kernel sets ctime to the current time on every write, chmod,
  link or rename and nothing can set it back, so an older ctime means another copy took
  the path (typically the image's own file in a new container root).
- **kept**: present and unchanged in content and all metadata. Inode numbers alone are
  no proof (a filesystem reuses freed ones; an overlay copy-up gives a new one), but an
  equal inode *and* equal ctime and mtime are: a re-created file gets the time of writing.
- **undetermined**: present but changed (content, size, a newer ctime or mtime, another
  inode or birth time): it was written again since the snapshot before the disruption,
  and whether the layer kept the old file or lost it cannot be told. Also undetermined:
  no metadata could be read (content alone cannot tell), the container's clock went back
  between the snapshots (times cannot be ordered), and, in a container root, a file whose
  ctime is older than its container's start: it is the image's own file, which a new
  container root holds again, identical.

Times are only compared with readings of the same clock. A file's times are stamped by
the node's kernel, which is also what the container's ``date`` reads (``FileState.clock``)
and what the kubelet stamps a container's start with (single-node MicroK8s); the harness's
own clock never enters, so a skewed harness clock cannot turn "rewritten" into "kept". A pod
that moved to another node is judged without ordering times across the two clocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Literal

from harness.catalogue.model import Layer
from harness.common.observations import ABSENT, FileState
from harness.common.times import parse_instant

Outcome = Literal["kept", "lost", "undetermined"]

JUDGED_ON = (
    "judged on existence, content, size, mtime, ctime and inode of a file the charm writes "
    "(--watch), times against the container's own clock; a file written again after the "
    "disruption cannot show survival: --mark APP:CONTAINER:PATH has the harness write a "
    "file it owns"
)


@dataclass(frozen=True)
class Survival:
    outcome: Outcome
    observed: str


def _short(digest: str) -> str:
    return digest[:15] + "…" if digest.startswith("sha256:") else digest


def _when(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    moment = datetime.fromtimestamp(seconds, timezone.utc)
    spec = "seconds" if seconds == int(seconds) else "microseconds"
    return moment.isoformat(timespec=spec).replace("+00:00", "Z")


def changes(before: FileState, after: FileState) -> list[str]:
    """What differs, as ``name a -> b`` (content by digest)."""
    found: list[str] = []
    if before.digest != after.digest:
        found.append(f"content {_short(before.digest)} -> {_short(after.digest)}")
    for name in ("size", "mtime", "ctime", "inode", "birth"):
        a, b = getattr(before, name), getattr(after, name)
        if name == "birth" and (a is None or b is None):
            continue  # read on one side only: not a change
        if a != b:
            shown = (_when(a), _when(b)) if name in ("mtime", "ctime", "birth") else (a, b)
            found.append(f"{name} {shown[0]} -> {shown[1]}")
    return found


def unchanged(before: FileState, after: FileState) -> bool:
    """Same content and, where both sides were read, the same metadata."""
    return before.digest == after.digest and not [
        c for c in changes(before, after) if not c.startswith("content")
    ]


def _start_bound(started_at: str | None) -> float | None:
    """The latest instant the container could have started, as epoch seconds.

    Kubernetes reports start times in whole seconds; a time without a fraction is taken
    to mean "within that second", so a file stamped inside it counts as older."""
    if not started_at:
        return None
    moment: datetime | None = parse_instant(started_at)
    if moment is None:
        return None
    whole_second = "." not in started_at and "," not in started_at
    return moment.timestamp() + (1.0 if whole_second else 0.0)


def survival(
    before: FileState,
    after: FileState,
    *,
    layer: Layer,
    started_at: str | None,
    other_node: str | None = None,
) -> Survival:
    """``before`` present, ``after`` observed; ``started_at`` is the container's start
    (before the disruption) as Kubernetes reported it. ``other_node`` names the node the
    pod moved to, if it moved: times stamped by two nodes' clocks are not ordered."""
    if after.digest == ABSENT:
        return Survival("lost", f"lost (was {_short(before.digest)}, now absent)")
    old_ctime, new_ctime = before.ctime, after.ctime
    if old_ctime is None or new_ctime is None or before.inode is None or after.inode is None:
        return Survival(
            "undetermined",
            "present after, but its metadata could not be read (no stat in the container): "
            "content alone cannot tell survival from re-creation",
        )
    if before.clock is not None and after.clock is not None and after.clock < before.clock:
        return Survival(
            "undetermined",
            f"the container's clock went back ({_when(before.clock)} -> {_when(after.clock)}): "
            "file times cannot be ordered",
        )
    differs = changes(before, after)
    if not differs:
        start = _start_bound(started_at) if layer == "container-root" else None
        if layer == "container-root" and (start is None or old_ctime < start):
            why = (
                f"its ctime {_when(before.ctime)} is older than the container's start "
                f"({started_at})"
                if start is not None
                else "the container's start time is unknown"
            )
            return Survival(
                "undetermined",
                f"unchanged, but as the image ships it ({why}): a new container root "
                "would hold the same file",
            )
        return Survival(
            "kept",
            f"kept (unchanged: content, size, mtime, ctime, inode; ctime {_when(before.ctime)})",
        )
    if new_ctime < old_ctime and other_node:
        return Survival(
            "undetermined",
            f"replaced by a file with an older ctime, but the pod moved to node {other_node}: "
            "two nodes' clocks cannot order file times",
        )
    if new_ctime < old_ctime:
        return Survival(
            "lost",
            f"lost: the file there now is older (ctime {_when(before.ctime)} -> "
            f"{_when(after.ctime)}; a ctime cannot be set back), another copy took the path "
            f"({'; '.join(differs)})",
        )
    when = (
        f", after the container's clock read {_when(before.clock)} at the snapshot before"
        if before.clock is not None and new_ctime > before.clock
        else ""
    )
    shown = [c for c in differs if c.startswith(("content", "ctime", "inode"))]
    also = [c.split(" ", 1)[0] for c in differs if c not in shown]
    return Survival(
        "undetermined",
        "rewritten after the snapshot before the disruption: survival undetermined "
        f"({'; '.join(shown)}{when}" + (f"; {', '.join(also)} changed too" if also else "") + ")",
    )
