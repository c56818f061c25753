"""After a hook fails, the twin does what Juju does (harness/twin/retry.py cites where):
the unit is in error, later hooks wait, and the failed hook is retried with Juju's backoff
on the simulated clock."""

from __future__ import annotations

import itertools
from datetime import datetime
from pathlib import Path

import ops

from harness.lab.ports import AppSpec
from harness.twin import make_lab
from harness.twin.charms import CharmSource
from harness.twin.retry import RETRY_DELAYS

META = {"name": "flaky", "containers": {"app": {"resource": "app-image"}}}


class FailsOnce(ops.CharmBase):
    """config-changed fails the first time (it leaves a mark in the charm directory)."""

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.config_changed, self._config_changed)

    def _config_changed(self, event: ops.EventBase) -> None:
        mark = self.charm_dir / "tried"
        if not mark.exists():
            mark.write_text("once")
            raise RuntimeError("not yet")


class AlwaysFails(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        framework.observe(self.on.config_changed, self._config_changed)

    def _config_changed(self, event: ops.EventBase) -> None:
        raise RuntimeError("never")


def dispatched(lab: object) -> list[tuple[str, str, datetime]]:
    twin = lab.juju._twin  # type: ignore[attr-defined]
    return [(d.hook, d.outcome, d.time) for d in twin.uniter.dispatched]


async def test_a_failed_hook_is_retried_after_5s_and_later_hooks_wait_for_it(
    tmp_path: Path,
) -> None:
    lab = make_lab(workdir=tmp_path, charms={"flaky": CharmSource("flaky", FailsOnce, META)})
    await lab.juju.deploy(AppSpec("flaky", "flaky"))

    hooks = dispatched(lab)
    names = [(h, o) for h, o, _ in hooks]
    first = names.index(("config-changed", "failed"))
    assert names[first + 1] == ("config-changed", "ok")  # the retry, before anything else
    assert names.index(("start", "ok")) > first + 1
    waited = (hooks[first + 1][2] - hooks[first][2]).total_seconds()
    assert 5 <= waited < 7  # 5 s of backoff (and the retry's own 1 s hook time)
    (error,) = lab.juju.charm_errors()  # type: ignore[attr-defined]
    assert (error.hook, error.attempts, error.recovered) == ("config-changed", 2, True)
    assert (await lab.juju.statuses())[0].workload != "error"


async def test_a_hook_that_keeps_failing_leaves_the_unit_in_error_and_holds_later_hooks(
    tmp_path: Path,
) -> None:
    lab = make_lab(workdir=tmp_path, charms={"flaky": CharmSource("flaky", AlwaysFails, META)})
    await lab.juju.deploy(AppSpec("flaky", "flaky"))

    hooks = dispatched(lab)
    failed = [t for h, o, t in hooks if h == "config-changed" and o == "failed"]
    assert len(failed) == 1 + len(RETRY_DELAYS)
    gaps = [(b - a).total_seconds() - 1 for a, b in itertools.pairwise(failed)]
    assert gaps == list(RETRY_DELAYS) == [5, 10, 20, 40, 80, 160, 300]
    assert ("start", "ok") not in [(h, o) for h, o, _ in hooks]
    assert ("start", "skipped") in [(h, o) for h, o, _ in hooks]
    (error,) = lab.juju.charm_errors()  # type: ignore[attr-defined]
    assert error.recovered is False
    assert "start" in error.held
    status = (await lab.juju.statuses())[0]
    assert (status.workload, status.workload_message) == ("error", 'hook failed: "config-changed"')
