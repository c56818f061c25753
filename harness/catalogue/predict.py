"""What ``repro predict`` prints: every branch of a disruption on one Juju version.

The main branch first, with the timing that decides whether ``stop`` completes (the pod's
grace period and the time ``stop`` has before the agent is killed), then each other
branch with the observation that selects it. JSON is the main branch's
``Expectation.to_json()`` with ``branches`` holding every branch's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.catalogue.model import Expectation

SELECTED_BY = {
    "stop-not-completed": "when a stop is terminated or fails (e.g. it outlives the stop time)",
    "second-roll": "when Juju re-applies its StatefulSet and the pods roll again",
    "stateless-deployment": "when the charm's metadata gives a Deployment: no storage and "
    "no `deployment: type: stateful`",
}
PODSPEC_LINE = (
    "a podspec charm: every unit's hooks run in the operator pod (<app>-operator-0); the "
    "workload pods are what the leader's pod-spec-set describes"
)


def predict_json(branches: Sequence[Expectation]) -> dict[str, Any]:
    """The main branch's JSON, plus ``branches``: each branch's, main first."""
    main, *_ = branches
    data = main.to_json()
    data["branches"] = [branch.to_json() for branch in branches]
    return data


def predict_text(branches: Sequence[Expectation], juju: str) -> str:
    """Plain text: the main branch in full, then one paragraph per other branch."""
    main, *others = branches
    lines = [f"{main.disruption} on Juju {juju} ({_span(main)})"]
    if main.summary:
        lines.append(main.summary)
    if main.charm == "podspec":
        lines.append(PODSPEC_LINE)
    lines.append(_timing(main))
    lines += _hooks(main)
    optional = [
        f"{o.hook} ({o.where}" + (f", {o.when}" if o.when != "always" else "") + ")"
        for o in main.optional
        if not o.required
    ]
    if optional:
        lines.append(f"may also run: {', '.join(optional)}")
    if main.background:
        lines.append(f"at any time: {', '.join(main.background)}")
    if main.survives:
        kept = ", ".join(
            f"{layer} {'kept' if ok else 'lost'}" for layer, ok in main.survives.items()
        )
        lines.append(f"files: {kept}")
    lines.append(
        f"pod uid {main.pod_uid}; restart counts {main.restart_count}; relation data "
        f"{main.relation_data}; unit identity {main.unit_identity}"
        + (f"; unit name {main.unit_name}" if main.unit_name != "kept" else "")
        + (f"; Pebble state {main.pebble_state}" if main.pebble_state else "")
    )
    lines.append(f"confidence: {main.confidence}")
    for bug in main.known_bugs:
        lines.append(
            f"known bug {bug.id} ({bug.url}): {bug.title}; reporter expected "
            f"{', '.join(bug.reporter_expected)}; Juju does {', '.join(bug.juju_does)}"
        )
    for branch in others:
        lines += ["", f"branch {branch.branch} ({_selected(branch)}; {_span(branch)})"]
        if branch.summary:
            lines.append(branch.summary)
        lines.append(_timing(branch))
        lines += _hooks(branch)
        lines.append(f"confidence: {branch.confidence}")
    lines.append("")
    for source in main.sources:
        low = (
            f" [confidence {source.confidence}: {source.unverified}]" if source.unverified else ""
        )
        lines.append(f"source: {source.claim} <{source.url}>{low}")
    return "\n".join(lines)


def _span(entry: Expectation) -> str:
    upper = f"to {entry.juju_max}" if entry.juju_max else "and later"
    return f"catalogue entry for Juju {entry.juju_min} {upper}"


def _selected(entry: Expectation) -> str:
    if entry.selected_by is not None:
        return SELECTED_BY[entry.selected_by]
    if entry.container is not None:
        return f"{entry.container} container, signal {'/'.join(entry.signals)}"
    return "chosen by name"


def _timing(entry: Expectation) -> str:
    if entry.charm == "podspec":
        stop = "stop runs in the operator pod" if "stop" in entry.hooks else "no stop runs"
        return f"grace period: not the operator's (its pod stays); {stop}"
    grace = (
        f"grace period {entry.termination_grace_seconds} s"
        if entry.termination_grace_seconds is not None
        else "grace period: not applicable"
    )
    if entry.stop_budget_seconds is not None:
        stop = f"stop has {entry.stop_budget_seconds} s before the agent is killed"
    elif "stop" in entry.hooks:
        stop = "stop has no time limit known"
    else:
        stop = "no stop runs"
    return f"{grace}; {stop}"


def _hooks(entry: Expectation) -> list[str]:
    leader = entry.required_hooks(leader=True)
    follower = entry.required_hooks(leader=False)
    if leader == follower:
        return [f"hooks, in order: {', '.join(leader) or '(none)'}"]
    return [
        f"hooks, in order (leader): {', '.join(leader) or '(none)'}",
        f"hooks, in order (non-leader): {', '.join(follower) or '(none)'}",
    ]
