"""The verdict's output: one finding per check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# ``undetermined``: the run could not tell (a file the charm wrote again after the
# disruption: whether it survived is unknown). Never counted as a match or a deviation.
# ``charm-error``: the charm's own code failed a hook (``harness.common.charm_errors``):
# what follows is the charm's doing, never counted as a match or a Juju deviation.
Verdict = Literal["match", "deviation", "known-bug", "undetermined", "charm-error"]
Check = Literal["hooks", "file", "relation", "pod-identity", "status"]


@dataclass(frozen=True)
class Finding:
    """Expected vs observed for one subject (a unit, a path, a databag), with its source."""

    check: Check
    subject: str  # "probe/0", "probe/0 workload:/probe/workload-marker", "database:3 probe/0"
    expected: str
    observed: str
    verdict: Verdict
    source: str  # URL of the claim (Juju docs page, bug, PR)
    detail: str = ""
