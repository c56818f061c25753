"""What every rehearsal case must show, and the integration modules a runner runs.

A case passes when the harness's own tests passed against the world (strict xfails for
the known Juju bugs count as passing: that is how the suite says Juju behaved as
catalogued) and its evidence is honest: every bundle, report and timeline says REHEARSAL
with the world's name and the time scale, and no settle step says a hook "never ran" that
the same bundle shows ran.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rehearsal.runner import Outcome

SERIES = ("2.9", "3.6", "4.0")
MODULES = {
    "pod-delete": "tests/integration/test_lp2021891_pod_delete.py",
    "node-restart": "tests/integration/test_lp2021891_node_restart.py",
    "pod-template-change": "tests/integration/test_lp1830745_pod_template_change.py",
    "other-disruptions": "tests/integration/test_other_disruptions.py",
}
GOOD = ("passed", "xfailed", "skipped")
# The scenarios each module runs (``repro list``): together, every scenario, and through
# them every disruption (test_scenarios.py checks both against the harness's own lists).
SCENARIOS_RUN = {
    "pod-delete": ("lp2021891-pod-delete",),
    "node-restart": ("lp2021891-node-restart",),
    "pod-template-change": ("lp1830745-pod-spec-change", "lp1830745-charm-pod-spec-change"),
    "other-disruptions": (
        "container-restart",
        "container-restart-charm",
        "resource-refresh",
        "charm-refresh",
        "scale-down-up",
    ),
}
# What `repro list` lists and the rehearsal does not run, and why (test_scenarios.py checks
# that every scenario is in one list or the other).
NOT_REHEARSED = {
    "lp1830745-pod-spec-set": (
        "a podspec charm (operator pod, pod-spec-set, its live path through kubectl): the "
        "world models sidecar charms only; a real 2.9 or 3.6 runner runs it"
    ),
}
# The timing every scenario case plays: all of the world's hostilities (a late required
# hook, pods lingering Terminating, log records in batches, a controller away after a node
# restart, a `juju` that hangs once) and one disrupted unit's start record held back 30 s.
HOSTILE = "hostile,hold=start:30"


def failed_tests(outcome: Outcome) -> list[str]:
    """The harness's tests that did not pass (with their messages), or why none ran."""
    if not outcome.tests:
        return [f"no test ran (exit {outcome.returncode}): {outcome.output[-1500:]}"]
    return [
        f"{test}: {outcome.failures.get(test, result)[:800]}"
        for test, result in outcome.tests.items()
        if result not in GOOD
    ]


def never_ran_but_ran(bundle: dict[str, Any]) -> list[str]:
    """Hooks a settle step gave up on ("never ran: probe/0 start") that the bundle's own
    hook records show the unit ran: a cursor that missed a record."""
    ran = {(h["unit"], h["hook"]) for h in bundle["hooks"] if h.get("hook")}
    found = []
    for step in bundle["steps"]:
        match = re.search(r"never ran: (.*)$", step.get("detail", ""))
        if not match:
            continue
        for part in match.group(1).split("; "):
            unit, _, hooks = part.partition(" ")
            found.extend(
                f'{step["name"]}: {unit} {hook} "never ran", yet the bundle shows it ran'
                for hook in hooks.split(", ")
                if (unit, hook) in ran
            )
    return found


def labelled_problems(outcome: Outcome) -> list[str]:
    """Where the evidence fails to say REHEARSAL (every bundle, report and timeline)."""
    problems = []
    bundles = outcome.bundles()
    if not bundles:
        problems.append("the run wrote no evidence")
    identity = outcome.world["identity"]
    for bundle in bundles:
        folder = Path(bundle["_path"]).parent
        label = bundle.get("rehearsal") or {}
        if label.get("label") != "REHEARSAL" or label.get("world") != identity:
            problems.append(f"{folder}: bundle.json does not carry the world's REHEARSAL label")
        if label.get("time_scale") != outcome.case.scale:
            problems.append(f"{folder}: bundle.json's time scale is {label.get('time_scale')}")
        report = (folder / "report.md").read_text().splitlines()
        if not report or not report[0].startswith("# REHEARSAL reproduction"):
            problems.append(f"{folder}: report.md's title does not say REHEARSAL")
        svg = (folder / "timeline.svg").read_text()
        if "<title>REHEARSAL" not in svg or ">REHEARSAL</text>" not in svg:
            problems.append(f"{folder}: timeline.svg does not say REHEARSAL")
    return problems


def unanswered(outcome: Outcome) -> list[str]:
    """Juju API calls the world does not answer (``unknown method``): a gap in the
    rehearsal, said as one, never a pass over it."""
    calls = re.findall(
        r'"call": "([^"]+)"[^\n]*"error": "unknown method',
        outcome.world_file("juju-api-trace.jsonl"),
    )
    return [f"the world does not answer the Juju API call {c}" for c in sorted(set(calls))]


def problems(outcome: Outcome) -> list[str]:
    found = failed_tests(outcome) + labelled_problems(outcome) + unanswered(outcome)
    for bundle in outcome.bundles():
        found.extend(never_ran_but_ran(bundle))
    return found


def explain(outcome: Outcome, found: Iterable[str]) -> str:
    lines = list(found)
    return f"{len(lines)} problems in {outcome.folder}:\n" + "\n".join(f"- {p}" for p in lines)


def commands_run(outcome: Outcome) -> list[str]:
    """Every command the world answered (its commands.log), without timings."""
    found = []
    for line in outcome.world_file("commands.log").splitlines():
        match = re.match(r"^\s*\S+s rc=\S+ (.*)$", line)
        if match:
            found.append(match.group(1))
    return found


def api_calls(outcome: Outcome) -> list[str]:
    """Every Juju API request the world answered, as Facade.Method (its trace)."""
    return re.findall(r'"call": "([^"]+)"', outcome.world_file("juju-api-trace.jsonl"))
