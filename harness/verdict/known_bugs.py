"""Known bugs: whether Juju still does what a bug's reporter did not want."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.catalogue.model import Expectation, KnownBug
from harness.common.findings import Finding, Verdict
from harness.common.observations import Databag
from harness.verdict.units import app_of


def judge_known_bug(known_bug: KnownBug, observed: Sequence[str], *, subject: str = "") -> Finding:
    """Whether the reporter's expectation is met by what was observed.

    ``observed`` is the unit's hook names in order (``hooks`` bugs; only the hooks the bug
    talks about are compared) or one word, ``kept``/``lost`` (``relation-data`` bugs).
    ``known-bug`` while Juju does what the catalogue says it does (the integration suite
    makes that a strict xfail); ``match`` once the reporter's expectation holds (fixed, or
    not reproduced); ``deviation`` when it is neither.
    """
    if known_bug.kind == "hooks":
        named = set(known_bug.reporter_expected) | set(known_bug.juju_does)
        seen = tuple(hook for hook in observed if hook in named)
    else:
        seen = tuple(observed)
    verdict: Verdict
    if seen == known_bug.reporter_expected:
        verdict = "match"
    elif seen == known_bug.juju_does:
        verdict = "known-bug"
    else:
        verdict = "deviation"
    fixed = f"fixed in Juju {known_bug.fixed_in}" if known_bug.fixed_in else "not fixed"
    arrow = " -> " if known_bug.kind == "hooks" else ", "
    detail = (
        f"{known_bug.title} ({fixed}); Juju is catalogued to do: "
        f"{arrow.join(known_bug.juju_does) or '(nothing)'}"
    )
    if known_bug.quote:
        detail += f'; the report says: "{known_bug.quote}"'
    if known_bug.notes:
        detail += f"; {known_bug.notes}"
    return Finding(
        check="hooks" if known_bug.kind == "hooks" else "relation",
        subject=f"{known_bug.id} {subject}".strip(),
        expected="reporter: " + (arrow.join(known_bug.reporter_expected) or "(nothing)"),
        observed=arrow.join(seen) or "(none)",
        verdict=verdict,
        source=known_bug.url,
        detail=detail,
    )


def known_bug_findings(
    expectation: Expectation,
    runs: Mapping[tuple[str, str], list[str]],
    relations: Sequence[tuple[Databag, Finding]],
    units: Sequence[str],
) -> list[Finding]:
    """One finding per known bug of the expectation: per unit and source for a ``hooks`` bug,
    one for the disrupted units' relation data for a ``relation-data`` bug.

    ``runs`` are the hooks each (unit, source) ran; ``relations`` each databag with its
    ``relation`` finding.
    """
    apps = {app_of(unit) for unit in units}
    findings: list[Finding] = []
    for bug in expectation.known_bugs:
        if bug.kind == "hooks":
            for (unit, source), ran in runs.items():
                findings.append(judge_known_bug(bug, ran, subject=f"{unit} [{source}]"))
        else:
            # The disrupted units' own databags and their applications' databags.
            mine = [f for bag, f in relations if bag.owner in units or bag.owner in apps]
            word = "kept" if all(f.verdict == "match" for f in mine) else "lost"
            findings.append(
                judge_known_bug(bug, (word,), subject=f"relation data of {', '.join(units)}")
            )
    return findings
