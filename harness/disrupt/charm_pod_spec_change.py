"""charm-pod-spec-change: the probe patches its own StatefulSet pod template.

``juju config probe pod-template-annotation=<token>``: the probe charm (trusted) writes the
token as a pod template annotation, the sidecar-era ``pod-spec-set``. Only the probe has
that option, and it needs ``juju trust``.
"""

from __future__ import annotations

import logging
from typing import ClassVar

from harness.common.errors import WaitTimeout
from harness.common.observations import Step
from harness.disrupt.base import Disruption
from harness.disrupt.pod_spec_change import token, zero_pods_moment
from harness.disrupt.steps import (
    WAIT_TIMEOUT,
    existing_pods,
    timed,
    wait_all_replaced,
    waited_step,
)
from harness.lab.ports import Lab
from harness.lab.waiting import Waited, wait_for
from harness.observe.debug_log import parse_lines
from harness.observe.log_cursor import LogCursor
from harness.scenario.scenarios import Target

log = logging.getLogger(__name__)

OPTION = "pod-template-annotation"
TRUST_WAIT = 180.0


async def _trust_seen(lab: Lab, app: str, cursor: LogCursor, timeout: float) -> Waited[bool]:
    """True once a unit of ``app`` ran config-changed after the trust; False at the bound."""
    seen = [False]

    async def look() -> bool:
        for record in parse_lines(await cursor.new_lines()):
            if record.unit.rpartition("/")[0] == app and record.hook == "config-changed":
                seen[0] = True
        return seen[0]

    try:
        return await wait_for(
            f"a config-changed hook of {app} after juju trust",
            look,
            bool,
            timeout=timeout,
            clock=lab.clock,
            describe=lambda found: "seen" if found else "none yet",
        )
    except WaitTimeout as error:
        log.info("%s; it may have been trusted already", error)
        return Waited(error.condition, False, error.waited, 0)


class CharmPodSpecChange(Disruption):
    name: ClassVar[str] = "charm-pod-spec-change"
    summary: ClassVar[str] = (
        "the probe patches its own pod template (config option, needs trust): pods replaced"
    )
    for_any_charm: ClassVar[bool] = False

    def __init__(
        self, *, timeout: float = WAIT_TIMEOUT, trust_timeout: float = TRUST_WAIT
    ) -> None:
        self.timeout = timeout
        self.trust_timeout = trust_timeout

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        before = await existing_pods(lab, target.app)
        # The patch needs cluster-scoped trust; without it the probe only blocks, so grant it
        # as part of the disruption (idempotent) rather than fail after a long wait.
        cursor = LogCursor(lab.juju, since=lab.clock.now())
        await cursor.new_lines()  # where the log ends before trust
        trust, _ = await timed(
            lab,
            f"juju trust {target.app} --scope=cluster",
            lambda: lab.juju.trust(target.app),
        )
        # Trust reaches the units as a config-changed hook (lifecycle-sources.md): set the
        # option only after it, or the probe's patch is refused and it blocks until the
        # next update-status. Already trusted: no hook comes, so the wait is bounded.
        trusted, _ = await waited_step(
            lab,
            f"wait for {target.app} to see the trust (config-changed)",
            lambda: _trust_seen(lab, target.app, cursor, self.trust_timeout),
        )
        value = token(lab, self.name)
        config, _ = await timed(
            lab,
            f"juju config {target.app} {OPTION}",
            lambda: lab.juju.set_config(target.app, {OPTION: value}),
            f"{OPTION}={value}",
        )
        zero = await zero_pods_moment(lab, target, self.timeout)
        wait, _ = await waited_step(
            lab,
            f"wait for every {target.app} pod to be replaced",
            lambda: wait_all_replaced(lab, target.app, before, self.timeout),
        )
        return (trust, trusted, config, *zero, wait)

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        return (
            f"juju trust -m {lab_model} {target.app} --scope=cluster",
            f"juju config -m {lab_model} {target.app} {OPTION}=charm-pod-spec-change-<time>",
            f"kubectl -n {namespace} rollout status statefulset/{target.app} "
            f"--timeout={self.timeout:.0f}s",
        )
