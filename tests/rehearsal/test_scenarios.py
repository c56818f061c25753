"""Every scenario, and so every disruption, through ``harness.live`` on 2.9, 3.6 and 4.0.

Each case runs one integration module as a runner runs it (``tox -e integration``: the
same fixtures, ports, drivers, settle, observers and evidence) against a world whose timing
is hostile in every way it can be (``cases.HOSTILE``). A case passes when the harness's
tests pass there (strict xfails for catalogued Juju bugs included), its evidence says
REHEARSAL, no settle says a hook never ran that the bundle shows ran, and the world
answered every API call made. Then a deliberately broken settle must make a case fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cases import (
    HOSTILE,
    MODULES,
    NOT_REHEARSED,
    SCENARIOS_RUN,
    SERIES,
    explain,
    failed_tests,
    problems,
)

from harness.disrupt import NAMES
from harness.scenario.podspec import PODSPEC_SCENARIOS
from harness.scenario.scenarios import SCENARIOS
from rehearsal.runner import Case, run_case

MUTATIONS = Path(__file__).parent / "mutations"


def test_the_cases_run_every_scenario_and_every_disruption() -> None:
    """What `repro list` lists is what the rehearsal runs, but for the scenarios named in
    NOT_REHEARSED with the reason: no scenario or disruption is left out silently (a new
    one must be given a module here, or a reason there)."""
    run = {name for names in SCENARIOS_RUN.values() for name in names}
    listed = {s.name for s in SCENARIOS} | {p.name for p in PODSPEC_SCENARIOS}
    assert run.isdisjoint(NOT_REHEARSED)
    assert run | set(NOT_REHEARSED) == listed
    assert {s.disruption for s in SCENARIOS if s.name in run} == set(NAMES)
    assert set(SCENARIOS_RUN) == set(MODULES) == set(LONGEST_FIRST)


# The longest cases first, so that the last ones a worker takes are short (pytest-xdist
# hands tests out in this order).
LONGEST_FIRST = ("other-disruptions", "pod-template-change", "node-restart", "pod-delete")


@pytest.mark.parametrize("juju", SERIES)
@pytest.mark.parametrize("module", LONGEST_FIRST)
def test_every_scenario_passes_on_a_hostile_world(juju: str, module: str, tmp_path: Path) -> None:
    outcome = run_case(
        Case(juju, (MODULES[module],), hostility=HOSTILE, name=f"{module} on {juju}"), tmp_path
    )
    found = problems(outcome)
    ran = sorted({b["scenario"] for b in outcome.bundles()})
    if ran != sorted(SCENARIOS_RUN[module]):
        found.append(f"the scenarios run were {ran}, not {sorted(SCENARIOS_RUN[module])}")
    assert not found, explain(outcome, found)


def test_the_jubilant_driver_passes_on_3_6(tmp_path: Path) -> None:
    """Juju 3.x runners may choose jubilant (JUJU_DRIVER=jubilant); 4.0 has no libjuju, so
    its cases above run jubilant already. One scenario module is enough here: the
    drivers differ in how they reach Juju, not in what a scenario asks of it."""
    outcome = run_case(
        Case(
            "3.6",
            (MODULES["pod-delete"],),
            hostility=HOSTILE,
            driver="jubilant",
            name="pod-delete on 3.6 with jubilant",
        ),
        tmp_path,
    )
    found = problems(outcome)
    drivers = {b["versions"].get("juju_driver") for b in outcome.bundles()}
    if drivers != {"jubilant"}:
        found.append(f"the runs used the Juju driver {sorted(map(str, drivers))}, not jubilant")
    assert not found, explain(outcome, found)


def test_a_settle_that_stops_looking_for_required_hooks_fails_the_rehearsal(
    tmp_path: Path,
) -> None:
    """The same case as a passing one, with one live change broken on purpose: the late
    workload pebble-ready of a container restart is no longer awaited, and the run must
    fail on it, not pass."""
    outcome = run_case(
        Case(
            "3.6",
            (
                MODULES["other-disruptions"],
                "-k",
                "[container-restart]",
                "-p",
                "settle_ignores_required_hooks",
            ),
            hostility=HOSTILE,
            pythonpath=(str(MUTATIONS),),
            name="settle ignores required hooks",
        ),
        tmp_path,
    )
    assert outcome.tests, explain(outcome, [f"no test ran: {outcome.output[-2000:]}"])
    failed = failed_tests(outcome)
    assert any("pebble-ready" in f for f in failed), explain(
        outcome, ["the broken settle went unnoticed", *failed]
    )
