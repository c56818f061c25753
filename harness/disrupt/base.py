"""What every disruption shares: its name, its target, and the steps it records."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from harness.common.observations import Step
from harness.lab.ports import Lab


@dataclass(frozen=True)
class Target:
    """What a disruption acts on: units of one application (all of them when empty)."""

    app: str
    units: tuple[str, ...] = ()
    container: str | None = None  # for container-restart
    signal: str | None = None  # for container-restart: TERM (default), KILL or OOM
    # For pod template changes: also delete every pod at once, so that for a moment the
    # application has zero running pods (the race of Juju bug 1830745).
    zero_pods: bool = False
    resource: str | None = None  # for resource-refresh: "name=image-reference"


class Disruption(ABC):
    """One disruption; ``apply`` drives the ports and returns its timed steps."""

    name: ClassVar[str]
    summary: ClassVar[str]
    # False for disruptions that need the live cluster or the probe charm's own config.
    for_any_charm: ClassVar[bool] = True
    # True when the disruption takes the node (and the controller) down.
    takes_node_down: ClassVar[bool] = False

    @abstractmethod
    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]: ...

    @abstractmethod
    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        """The exact commands (juju, kubectl equivalents) ``apply`` will run, for --dry-run."""
