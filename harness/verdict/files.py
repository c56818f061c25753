"""The file findings: each watched path per container per unit, against its layer's survival.

A marker the harness wrote is judged on its content; a ``charm_written`` path on its metadata
(``harness.verdict.file_survival``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.catalogue.model import Expectation, Layer
from harness.common.findings import Finding, Verdict
from harness.common.observations import ABSENT, DIRECTORY, UNLISTED, FileState, Snapshot
from harness.scenario.stack import PROBE_ROOT_INCARNATION, PROBE_WORKLOAD_MARKER, ROUTER_MARKER
from harness.verdict.file_survival import JUDGED_ON, survival

# Where the stack's judged paths live (``Stack.layers`` says the same for a whole stack);
# callers add the probe's charm-dir and storage paths. /etc/mysqlrouter itself is not
# here: it is a directory the router rewrites, so only the harness's marker inside it
# can show whether the container root survived.
DEFAULT_LAYERS: Mapping[tuple[str, str], Layer] = {
    ("mysql-router", ROUTER_MARKER): "container-root",
    ("workload", PROBE_WORKLOAD_MARKER): "container-root",
    ("charm", PROBE_ROOT_INCARNATION): "container-root",
}


def file_findings(
    expectation: Expectation,
    before: Snapshot,
    after: Snapshot,
    units: Sequence[str],
    removed: Sequence[str],
    layers: Mapping[tuple[str, str], Layer],
    target_container: str | None,
    charm_written: frozenset[tuple[str, str]] = frozenset(),
) -> list[Finding]:
    """One finding per watched path of the ``units`` whose layer the expectation judges."""
    keys: list[tuple[str, str, str]] = []
    for state in (*before.files, *after.files):
        key = (state.unit, state.container, state.path)
        if state.unit in units and key not in keys:
            keys.append(key)
    was = {(f.unit, f.container, f.path): f.digest for f in before.files}
    now = {(f.unit, f.container, f.path): f.digest for f in after.files}
    states = {(f.unit, f.container, f.path): f for f in before.files}
    states_after = {(f.unit, f.container, f.path): f for f in after.files}
    findings: list[Finding] = []
    for unit, container, path in keys:
        layer = layers.get((container, path))
        if layer is None or layer not in expectation.survives:
            continue
        survive = expectation.survives[layer]
        scope_note = ""
        restarted_elsewhere = expectation.scope == "container" and container != target_container
        if restarted_elsewhere and layer == "container-root":
            survive, scope_note = True, f", {container} was not restarted"
        expected = f"{'survives' if survive else 'lost'} ({layer}{scope_note})"
        old, new = was.get((unit, container, path)), now.get((unit, container, path))
        detail = ""
        not_listed = _not_listed(before, after, unit, container, path, removed=unit in removed)
        if not_listed is not None:
            findings.append(
                Finding(
                    check="file",
                    subject=f"{unit} {container}:{path}",
                    expected=expected,
                    observed=not_listed,
                    verdict="undetermined",
                    source=expectation.source_for("file"),
                    detail="the container could not be listed: survival could not be tested",
                )
            )
            continue
        if (container, path) in charm_written:
            findings.append(
                _watched_finding(
                    expectation,
                    f"{unit} {container}:{path}",
                    expected,
                    survive,
                    layer,
                    states.get((unit, container, path)),
                    states_after.get((unit, container, path)),
                    removed=unit in removed,
                    started_at=_started(before, unit, container),
                    other_node=_moved(before, after, unit),
                )
            )
            continue
        if old is None or old == ABSENT:
            observed = "absent before the disruption: nothing to survive"
            verdict: Verdict = "deviation"
            detail = "write the marker before disrupting; survival could not be tested"
        elif unit in removed:
            observed, kept = "unit removed", False
            verdict = "match" if kept == survive else "deviation"
        elif new is None:
            observed = "not observed after the disruption"
            verdict = "deviation"
        else:
            kept = new == old
            if kept:
                observed = f"survived ({_short(old)})"
                if old == DIRECTORY:
                    detail = "a directory: only its existence is compared, not its contents"
            elif new == ABSENT:
                observed = f"lost (was {_short(old)}, now absent)"
            else:
                observed = f"lost (replaced: {_short(old)} -> {_short(new)})"
            verdict = "match" if kept == survive else "deviation"
        findings.append(
            Finding(
                check="file",
                subject=f"{unit} {container}:{path}",
                expected=expected,
                observed=observed,
                verdict=verdict,
                source=expectation.source_for("file"),
                detail=detail,
            )
        )
    return findings


def _not_listed(
    before: Snapshot, after: Snapshot, unit: str, container: str, path: str, *, removed: bool
) -> str | None:
    """What was observed when a listing failed: neither absent nor missing after, unknown."""
    key = (unit, container, path)
    old = next((f for f in before.files if (f.unit, f.container, f.path) == key), None)
    new = next((f for f in after.files if (f.unit, f.container, f.path) == key), None)
    if old is None or old.digest == UNLISTED:
        why = before.unlisted(unit, container, path)
        if why is not None:
            return f"not listed before the disruption ({why}); survival undetermined"
    if not removed and (new is None or new.digest == UNLISTED):
        why = after.unlisted(unit, container, path)
        if why is not None:
            return f"not listed after the disruption ({why}); survival undetermined"
    return None


def _short(digest: str) -> str:
    return digest[:15] + "…" if digest.startswith("sha256:") else digest


def _watched_finding(
    expectation: Expectation,
    subject: str,
    expected: str,
    survive: bool,
    layer: Layer,
    old: FileState | None,
    new: FileState | None,
    *,
    removed: bool,
    started_at: str | None,
    other_node: str | None = None,
) -> Finding:
    """A file the charm writes, judged on its metadata (see ``harness.verdict.file_survival``)."""
    verdict: Verdict
    if old is None or old.digest == ABSENT:
        observed = "absent before the disruption: nothing to survive; survival undetermined"
        verdict = "undetermined"
    elif removed:
        observed = "unit removed"
        verdict = "match" if not survive else "deviation"
    elif new is None:
        observed, verdict = "not observed after the disruption", "deviation"
    else:
        got = survival(old, new, layer=layer, started_at=started_at, other_node=other_node)
        observed = got.observed
        if got.outcome == "undetermined":
            verdict = "undetermined"
        else:
            verdict = "match" if (got.outcome == "kept") == survive else "deviation"
    return Finding(
        check="file",
        subject=subject,
        expected=expected,
        observed=observed,
        verdict=verdict,
        source=expectation.source_for("file"),
        detail=JUDGED_ON,
    )


def _moved(before: Snapshot, after: Snapshot, unit: str) -> str | None:
    """The node the unit's pod is on after, when it differs from the one before."""
    old, new = before.pod(unit), after.pod(unit)
    if old is None or new is None or not old.node or not new.node or old.node == new.node:
        return None
    return new.node


def _started(snapshot: Snapshot, unit: str, container: str) -> str | None:
    pod = snapshot.pod(unit)
    status = pod.container(container) if pod is not None else None
    return status.started_at if status is not None else None
