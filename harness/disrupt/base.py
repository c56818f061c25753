"""What every disruption shares: its name, its target, and the steps it records."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from harness.common.observations import Step
from harness.lab.ports import Lab
from harness.scenario.scenarios import Target


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
