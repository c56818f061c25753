"""The catalogue branch a run is judged against, chosen from what the run showed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.catalogue.model import Expectation
from harness.common.errors import HarnessError
from harness.common.observations import HookRecord
from harness.verdict.hooks import ran_hooks


@dataclass(frozen=True)
class BranchChoice:
    """The catalogue branch a run is judged against, and what in the run chose it."""

    expectation: Expectation
    sign: str = ""  # what was observed that chose it; empty for the default branch

    @property
    def name(self) -> str:
        return self.expectation.branch

    @property
    def reason(self) -> str:
        return f"{self.name}: {self.sign or 'the default branch; no sign of another'}"


def choose_branch(
    branches: Sequence[Expectation], hooks: Sequence[HookRecord], units: Sequence[str]
) -> BranchChoice:
    """Pick the branch from what was observed; the main branch unless a branch's sign shows.

    ``branches`` are ``Catalogue.branches(disruption, version)`` (main first). A stop that
    did not complete (terminated, failed) on a disrupted unit selects ``stop-not-completed``
    branches (interrupted-stop); a unit that ran ``upgrade-charm`` twice in one source
    selects ``second-roll``. The reason names the unit and what it showed.
    """
    if not branches:
        raise HarnessError("no catalogue branch to judge against", "pass Catalogue.branches()")
    main = branches[0]
    signs = {
        "stop-not-completed": _stop_not_completed(hooks, units),
        "second-roll": _second_roll(hooks, units),
    }
    for branch in branches[1:]:
        sign = signs.get(branch.selected_by or "")
        if sign:
            return BranchChoice(branch, sign)
    return BranchChoice(main)


def describe_branches(choices: Mapping[str, BranchChoice]) -> str:
    """``main for probe/0; interrupted-stop for probe/1 (probe/1's stop was terminated)``."""
    groups: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for unit, choice in choices.items():
        groups.setdefault(choice.name, []).append(unit)
        if choice.sign:
            reasons.setdefault(choice.name, choice.sign)
    return "; ".join(
        f"{name} for {', '.join(units)}" + (f" ({reasons[name]})" if name in reasons else "")
        for name, units in groups.items()
    )


def _stop_not_completed(hooks: Sequence[HookRecord], units: Sequence[str]) -> str:
    for record in hooks:
        stop = record.unit in units and record.kind == "hook" and record.hook == "stop"
        if stop and record.outcome not in (None, "ok"):
            return f"{record.unit}'s stop was {record.outcome} ({record.source})"
    return ""


def _second_roll(hooks: Sequence[HookRecord], units: Sequence[str]) -> str:
    for unit in units:
        for source in dict.fromkeys(r.source for r in hooks if r.unit == unit):
            ran, _ = ran_hooks(hooks, unit, source)
            if ran.count("upgrade-charm") >= 2:
                return f"{unit} ran upgrade-charm twice ({source}): its pod was replaced again"
    return ""
