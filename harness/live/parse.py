"""The parsers at the edge of the live backend, in one place for the ports to import.

Each turns what ``juju`` or the ``kubernetes`` client returns into the frozen values of
``harness.common.observations`` (and ``harness.lab.ports.ActionResult``); malformed input raises
``harness.common.errors.HarnessError`` with a one-line message.
"""

from __future__ import annotations

from harness.live.actions import parse_action_output, parse_action_outputs
from harness.live.pods import pod_identity, unit_for_pod
from harness.live.show_unit import parse_show_unit
from harness.live.status import parse_app_charms, parse_model_version, parse_status

__all__ = [
    "parse_action_output",
    "parse_action_outputs",
    "parse_app_charms",
    "parse_model_version",
    "parse_show_unit",
    "parse_status",
    "pod_identity",
    "unit_for_pod",
]
