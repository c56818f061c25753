"""The pod-identity finding: a unit's pod uid (new or same), restart counts and identity."""

from __future__ import annotations

from collections.abc import Sequence

from harness.catalogue.model import Expectation
from harness.common.findings import Finding, Verdict
from harness.common.observations import PodIdentity, Snapshot
from harness.verdict.units import app_of


def pod_finding(
    expectation: Expectation,
    unit: str,
    before: Snapshot,
    after: Snapshot,
    created: Sequence[str],
    target_container: str | None,
) -> Finding:
    """The unit's pod before and after against the expectation; ``created`` units are new."""
    old, new = before.pod(unit), after.pod(unit)
    expected = _pod_expected(expectation, target_container)
    verdict: Verdict
    detail = ""
    if new is None and expectation.unit_identity == "new":
        replacements = [u for u in created if app_of(u) == app_of(unit)]
        observed = f"unit removed; new units: {', '.join(replacements) or 'none'}"
        verdict = "match" if replacements else "deviation"
    elif new is None:
        observed, verdict = "unit gone after the disruption", "deviation"
    elif old is None:
        counts = ", ".join(f"{c.name} {c.restart_count}" for c in new.containers)
        observed = f"new pod {new.name} ({new.uid[:8]}); restarts: {counts or 'none'}"
        fresh = all(c.restart_count == 0 for c in new.containers)
        if unit in created or expectation.unit_identity == "new":
            verdict = "match" if fresh or expectation.restart_count != "resets" else "deviation"
        else:
            verdict, detail = "deviation", "the unit's pod was not observed before"
    else:
        uid_new = new.uid != old.uid
        counts_ok, counts_text = _restarts(expectation, old, new, uid_new, target_container)
        observed = (
            f"uid {'new' if uid_new else 'same'} ({old.uid[:8]} -> {new.uid[:8]}); "
            f"restarts: {counts_text}"
        )
        uid_ok = uid_new == (expectation.pod_uid == "new")
        verdict = "match" if uid_ok and counts_ok else "deviation"
        if not uid_ok:
            detail = f"expected a {'new' if expectation.pod_uid == 'new' else 'same'} pod uid"
    return Finding(
        check="pod-identity",
        subject=unit,
        expected=expected,
        observed=observed,
        verdict=verdict,
        source=expectation.source_for("pod-identity"),
        detail=detail,
    )


def _pod_expected(expectation: Expectation, target_container: str | None) -> str:
    if expectation.unit_identity == "new":
        return (
            f"unit replaced by a new unit on a new pod; restart counts {expectation.restart_count}"
        )
    counts: str = expectation.restart_count
    if expectation.scope == "container" and target_container:
        counts = f"{counts} for {target_container}, unchanged for the others"
    return f"uid {expectation.pod_uid}; restart counts {counts}"


def _restarts(
    expectation: Expectation,
    old: PodIdentity,
    new: PodIdentity,
    uid_new: bool,
    target_container: str | None,
) -> tuple[bool, str]:
    names = [c.name for c in old.containers] + [
        c.name for c in new.containers if old.container(c.name) is None
    ]
    pairs: list[tuple[str, int | None, int | None]] = []
    for name in names:
        was, now = old.container(name), new.container(name)
        pairs.append(
            (
                name,
                None if was is None else was.restart_count,
                None if now is None else now.restart_count,
            )
        )
    text = ", ".join(
        f"{n} {'-' if b is None else b}->{'-' if a is None else a}" for n, b, a in pairs
    )
    rule = expectation.restart_count
    ok: bool
    if rule == "resets":
        ok = uid_new and all(a == 0 for _, _, a in pairs if a is not None)
    elif rule == "unchanged":
        ok = all(a == b for _, b, a in pairs)
    elif expectation.scope == "container":
        ok = all(
            (a is not None and b is not None and a > b) if n == target_container else a == b
            for n, b, a in pairs
        )
    else:
        ok = all(a is not None and b is not None and a > b for _, b, a in pairs)
    return ok, text or "no containers reported"
