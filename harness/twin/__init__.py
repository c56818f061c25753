"""The twin: an in-process, SIMULATED Juju model on Kubernetes behind the harness's ports.

- ``make_lab(...)``: a Lab (backend ``twin``) on which every scenario, observer, verdict and
  evidence path runs without a cluster; it runs the real probe charm through ops.testing
  and simulated stand-ins for mysql-k8s and mysql-router-k8s.
- ``run_disruption(ctx, state, disruption)``: put any ops charm's unit (an ops.testing
  Context and State) through a disruption in a unit test.

What Kubernetes does on each port call (pods, uids, restart counts, filesystem layers) is
modelled here; which hooks Juju runs in reaction comes from the expectation catalogue.
Everything the twin reports says it is simulated.
"""

from __future__ import annotations

from harness.twin.charms import CharmSource
from harness.twin.clock import TwinClock
from harness.twin.disruption import run_disruption
from harness.twin.image import LINUX, Image
from harness.twin.lab import make_lab
from harness.twin.result import CharmHookError, TwinResult
from harness.twin.trace import HookTrace
from harness.twin.workload import CommandRun, ExecCall, ExecHandler, ExecResult

__all__ = [
    "LINUX",
    "CharmHookError",
    "CharmSource",
    "CommandRun",
    "ExecCall",
    "ExecHandler",
    "ExecResult",
    "HookTrace",
    "Image",
    "TwinClock",
    "TwinResult",
    "make_lab",
    "run_disruption",
]
