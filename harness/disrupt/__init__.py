"""The disruptions, by their kebab-case names (the same in the CLI, catalogue and evidence).

``get(name)`` gives one ready to ``apply(lab, target)`` on either backend: disruptions only
use the Lab's ports. Those that refresh a local charm need its path (``charm_path``).
"""

from __future__ import annotations

from harness.catalogue.names import NAMES
from harness.common.errors import unknown
from harness.disrupt.base import Disruption
from harness.disrupt.charm_pod_spec_change import CharmPodSpecChange
from harness.disrupt.charm_refresh import CharmRefresh
from harness.disrupt.container_restart import ContainerRestart
from harness.disrupt.node_restart import NodeRestart
from harness.disrupt.pod_delete import PodDelete
from harness.disrupt.pod_spec_change import PodSpecChange
from harness.disrupt.resource_refresh import ResourceRefresh
from harness.disrupt.scale_down_up import ScaleDownUp

CLASSES: dict[str, type[Disruption]] = {
    cls.name: cls
    for cls in (
        PodDelete,
        NodeRestart,
        PodSpecChange,
        CharmPodSpecChange,
        ResourceRefresh,
        ContainerRestart,
        CharmRefresh,
        ScaleDownUp,
    )
}

__all__ = ["Disruption", "all_disruptions", "get"]


def get(name: str, *, charm_path: str | None = None) -> Disruption:
    """The disruption called ``name``; ``charm_path`` goes to those that refresh a charm."""
    cls = CLASSES.get(name)
    if cls is None:
        raise unknown("disruption", name, NAMES)
    if cls in (CharmRefresh, ResourceRefresh):
        return cls(charm_path=charm_path)  # type: ignore[call-arg]
    return cls()


def all_disruptions(*, charm_path: str | None = None) -> tuple[Disruption, ...]:
    """One of each, in the order of NAMES."""
    return tuple(get(name, charm_path=charm_path) for name in NAMES)
