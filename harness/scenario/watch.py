"""``--watch``/``--mark APP:CONTAINER:PATH``: files whose survival a run records.

A ``--mark`` file is written by the harness before each run and judged on its content
against the survival its layer is catalogued with. A ``--watch`` file (one the charm or
workload writes) is judged against the same prediction on its content *and* metadata
(size, mtime, ctime, inode): the charm may write it again after the disruption, which a
digest cannot tell from survival, so a rewritten file comes out ``undetermined``, never
"kept" (``harness.verdict.file_survival``).

The layer is inferred from the charm's metadata, as Kubernetes lays a sidecar pod out
(DESIGN.md, "The facts the harness encodes"):

- in a workload container, a path at or under a storage mount's ``location`` is on the
  storage volume (``storage``); any other path is the container's root filesystem;
- in the ``charm`` container, ``/var/lib/juju`` and below is the ``charm-data`` EmptyDir
  that holds the charm directory (``charm-dir``); anything else is its root filesystem.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.catalogue.model import Layer
from harness.common.errors import HarnessError
from harness.scenario.charm_meta import CHARM_CONTAINER, CHARM_DATA, CharmMeta, is_under
from harness.scenario.stack import WatchedPath

FORMAT_FIX = "write it as APP:CONTAINER:/absolute/path, e.g. postgresql-k8s:postgresql:/etc/hosts"


def parse_watch(text: str) -> tuple[str, str, str]:
    """``APP:CONTAINER:PATH`` as its three parts (the path may itself hold colons)."""
    app, _, rest = text.partition(":")
    container, _, path = rest.partition(":")
    if not app or not container or not path:
        raise HarnessError(f"--watch {text!r} is not APP:CONTAINER:PATH", FORMAT_FIX)
    if not path.startswith("/"):
        raise HarnessError(f"--watch {text!r}: {path} is not an absolute path", FORMAT_FIX)
    return app, container, path


def layer_of(meta: CharmMeta, container: str, path: str) -> Layer:
    if container == CHARM_CONTAINER:
        return "charm-dir" if is_under(path, CHARM_DATA) else "container-root"
    declared = meta.container(container)
    mounts = declared.mounts if declared else ()
    if any(is_under(path, location) for _, location in mounts):
        return "storage"
    return "container-root"


def watched_path(
    text: str, metas: Mapping[str, CharmMeta | None], *, seed: bool = False
) -> WatchedPath:
    """One ``--watch`` (or ``--mark``, with ``seed``) checked against the app's metadata.

    ``metas`` maps each application of the stack to its metadata (None when unknown: the
    path is then recorded but its layer not judged).
    """
    app, container, path = parse_watch(text)
    if app not in metas:
        raise HarnessError(
            f"--watch {text!r}: no application {app!r} in the stack",
            f"choose one of: {', '.join(metas)}",
        )
    meta = metas[app]
    if meta is None:
        return WatchedPath(app, container, path, None, seed=seed)
    if container != CHARM_CONTAINER and meta.container(container) is None:
        declared = ", ".join((CHARM_CONTAINER, *meta.container_names))
        raise HarnessError(
            f"--watch {text!r}: {meta.name} declares no container {container!r}",
            f"its containers are: {declared}",
        )
    layer = layer_of(meta, container, path)
    # A marker is judged on its content; a file the charm writes on its metadata too.
    return WatchedPath(app, container, path, layer, seed=seed, charm_written=not seed)
