"""Charm-directory and storage survival, judged from the probe's journal.

The container root is judged on watched files (the verdict's ``file`` findings). The other
two layers hold no file the harness can list from outside, so the probe says it itself:
its journal entry carries the incarnation id it keeps in the charm directory (on the pod's
``charm-data`` EmptyDir: a new pod means a new id), and the journal itself lives on the
storage volume (a fresh volume starts its sequence again at 1). Each finding says what it
was judged on, in its detail.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.catalogue.model import Expectation
from harness.common.findings import Finding, Verdict
from harness.common.observations import JournalEntry, Snapshot

JUDGED_ON = {
    "charm-dir": "the probe's charm-dir incarnation id (kept in the charm directory on the "
    "pod's charm-data EmptyDir), before and after, from its journal",
    "storage": "the probe's journal on its storage volume: a kept volume continues its "
    "sequence, a fresh one starts again at 1",
}


def _latest(snapshot: Snapshot) -> dict[str, JournalEntry]:
    return {entry.unit: entry for entry in snapshot.journal}


def layer_findings(
    expectation: Expectation, before: Snapshot, after: Snapshot, units: Sequence[str]
) -> list[Finding]:
    """One ``file`` finding per probe unit for each of charm-dir and storage."""
    was, now = _latest(before), _latest(after)
    findings: list[Finding] = []
    for unit in units:
        old, new = was.get(unit), now.get(unit)
        if old is None or new is None:
            continue  # not a probe unit, or one that cannot answer now (removed)
        for layer, kept, seen in (
            (
                "charm-dir",
                old.charm_dir_incarnation == new.charm_dir_incarnation,
                f"incarnation {old.charm_dir_incarnation[:8]} -> {new.charm_dir_incarnation[:8]}",
            ),
            ("storage", new.seq > old.seq, f"journal seq {old.seq} -> {new.seq}"),
        ):
            if layer not in expectation.survives:
                continue
            survive = expectation.survives[layer]  # type: ignore[index]
            verdict: Verdict = "match" if kept == survive else "deviation"
            findings.append(
                Finding(
                    check="file",
                    subject=f"{unit} {layer}",
                    expected=f"{'survives' if survive else 'lost'} ({layer})",
                    observed=f"{'survived' if kept else 'lost'} ({seen})",
                    verdict=verdict,
                    source=expectation.source_for("file"),
                    detail=f"judged on {JUDGED_ON[layer]}",
                )
            )
    return findings
