"""Three defects of the live path that no unit test saw, each shown by a rehearsal first.

Each test isolates one: a kind world but for the one hostile thing that exposes it.

1. Settle and a late ``{container}-pebble-ready`` (issue 23 point 1): the catalogue's hook
   names reach settle with the placeholder unexpanded, and settle skips names it cannot
   match, so a workload container restart settles awaiting no hook at all. The world runs
   pebble-ready long after the container is Ready (the uniter polls pebble every 5 s and
   runs the hook when it gets to it, worker/uniter/pebblepoller.go).
2. Teardown after a controller that stays down (issue 23 points 2 and 3): the libjuju
   driver then destroys the model through the CLI without asking whose it is, and
   pytest-operator's own teardown reads ``model.info.name``, which real python-libjuju
   refuses on a disconnected model (``JujuModelError`` on 3.6.1.3, ``AttributeError`` on
   2.9.49.1, its ``_info`` being None).
3. A debug-log record stored after later ones (issue 23 point 4): Juju 2.9 and 3.6 keep
   the log in MongoDB sorted by the agent's time, so a record that reaches the store late
   (a held log connection) sorts before lines a reader has already seen, and the settle's
   cursor, which resumes after its last line, never reads it. Juju 4.0 appends in arrival
   order (internal/logtailer/tailer.go): the same world on 4.0 passes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cases import MODULES, SERIES, api_calls, commands_run, explain, problems

from rehearsal.runner import Case, run_case

CONTAINER_RESTART = (MODULES["other-disruptions"], "-k", "[container-restart]")
NODE_RESTART = (MODULES["node-restart"], "-k", "runs_only_start")
POD_DELETE = (MODULES["pod-delete"], "-k", "router_runs_the_catalogued_hooks")
# A controller that stays down: the node-restart run waits for it in vain (900 s on the
# Lab's clock), so these cases run at 30x.
STAYS_DOWN = "kind,stays-down"
STAYS_DOWN_SCALE = 30.0

SETTLE_PLACEHOLDER = (
    "issue 23 point 1: harness/run/scenario.py hands settle the catalogue's "
    "`{container}-pebble-ready` unexpanded and settle skips names it cannot match, so a "
    "workload container restart settles on its restart count and the quiet window, "
    "awaiting no hook, and the late pebble-ready is judged missing"
)
TEARDOWN_DESTROYS = (
    "issue 23 point 2: harness/live/juju_port.py ready_for_teardown runs `juju "
    "destroy-model --force` when libjuju cannot reconnect, without asking whether the "
    "harness made the model or pytest-operator was told to keep it"
)
TEARDOWN_INFO = (
    "issue 23 point 3: with the controller still down, pytest-operator's forget_model "
    "reads model.info.name, which real python-libjuju raises on for a disconnected model "
    "(JujuModelError on 3.6.1.3, AttributeError on 2.9.49.1): its teardown errors"
)
CURSOR_ORDER = (
    "issue 23 point 4: harness/observe/log_cursor.py resumes after the last line it saw; "
    "on Juju 2.9 and 3.6 a record stored late sorts before it (MongoDB, by agent time), "
    "so settle never reads it and says it never ran"
)


@pytest.mark.parametrize("juju", SERIES)
def test_settle_waits_for_a_late_pebble_ready(juju: str, tmp_path: Path) -> None:
    outcome = run_case(
        Case(juju, CONTAINER_RESTART, hostility="kind,late=300", name=f"late pebble-ready {juju}"),
        tmp_path,
    )
    found = problems(outcome)
    assert not found, explain(outcome, found)


@pytest.mark.parametrize("juju", ["2.9", "3.6"])
def test_teardown_after_a_controller_that_stays_down_completes(juju: str, tmp_path: Path) -> None:
    """The run itself fails (the controller never answers again); its teardown must not."""
    outcome = run_case(
        Case(juju, NODE_RESTART, hostility=STAYS_DOWN, scale=STAYS_DOWN_SCALE),
        tmp_path,
    )
    assert outcome.tests, explain(outcome, [f"no test ran: {outcome.output[-2000:]}"])
    assert not outcome.teardown_errors, explain(
        outcome, [f"{t}: {m[:1500]}" for t, m in outcome.teardown_errors.items()]
    )


@pytest.mark.parametrize(
    ("juju", "keep"), [("3.6", "--model"), ("3.6", "--keep-models"), ("2.9", "--model")]
)
def test_teardown_never_destroys_a_model_it_must_keep(
    juju: str, keep: str, tmp_path: Path
) -> None:
    """The user's own model (``--model``, made before the run) and a model pytest-operator
    was told to keep are never destroyed, even when the controller will not reconnect."""
    setup: tuple[tuple[str, ...], ...] = ()
    argv = (*NODE_RESTART, "--keep-models")
    if keep == "--model":
        setup = (("juju", "add-model", "users-model", "--no-switch"),)
        argv = (*NODE_RESTART, "--model", "users-model")
    outcome = run_case(
        Case(juju, argv, hostility=STAYS_DOWN, scale=STAYS_DOWN_SCALE, setup=setup), tmp_path
    )
    assert outcome.tests, explain(outcome, [f"no test ran: {outcome.output[-2000:]}"])
    destroyed = [c for c in commands_run(outcome) if c.startswith("juju destroy-model")]
    destroyed += [c for c in api_calls(outcome) if c == "ModelManager.DestroyModels"]
    assert not destroyed, explain(outcome, [f"tried to destroy the model: {destroyed}"])


@pytest.mark.parametrize("juju", SERIES)
def test_a_record_stored_late_is_read(juju: str, tmp_path: Path) -> None:
    outcome = run_case(Case(juju, POD_DELETE, hostility="kind,hold=start:300"), tmp_path)
    found = problems(outcome)
    assert not found, explain(outcome, found)
