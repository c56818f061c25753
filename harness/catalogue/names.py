"""The names a catalogue entry may have: the disruptions' and the lifecycle entries'.

A leaf (it imports nothing): the CLI, the scenarios, the twin, the disruptions and the
catalogue's own validation all need the disruption names, and the catalogue must not
import ``harness.disrupt`` (every disruption, and what they import) only to learn them.
"""

from __future__ import annotations

# The kebab-case names used everywhere: CLI, catalogue keys, pytest ids, evidence.
NAMES: tuple[str, ...] = (
    "pod-delete",
    "node-restart",
    "pod-spec-change",
    "charm-pod-spec-change",
    "resource-refresh",
    "container-restart",
    "charm-refresh",
    "scale-down-up",
)
# Disruptions the catalogue answers for (``repro predict``) that the harness cannot run
# yet: no twin or live disruption exists for them (issue 27). ``repro list`` shows them
# apart from the runnable ones, and ``repro run`` refuses them (``not_runnable``).
PREDICT_ONLY: tuple[str, ...] = (
    "controller-restart",
    "unit-network-cut",
    "container-kill",
    "node-drain",
    "model-upgrade",
)
# Disruptions of a podspec charm (an operator pod running the uniters, workload pods set
# with pod-spec-set): Juju 2.9 and 3.6 run them; Juju 4.0 removed podspec charms, so their
# catalogue entries end there (the catalogue's ``podspec`` section says why).
PODSPEC: tuple[str, ...] = ("pod-spec-set",)
# Catalogue entries that are not disruptions: what Juju runs when a unit is deployed or
# a relation is made (a scale-down-up's new units follow ``deploy``).
LIFECYCLE: tuple[str, ...] = ("deploy", "integrate")


def not_runnable(name: str) -> tuple[str, str] | None:
    """The problem and fix a run of a predict-only disruption is refused with, else None."""
    if name not in PREDICT_ONLY:
        return None
    return (
        f"{name} is catalogued (repro predict) only, not yet runnable",
        f"see what Juju is expected to do: repro predict {name} --juju 3.6",
    )
