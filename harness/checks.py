"""Assertions over a run, for the integration suite and for users' own suites.

Each check insists that there is something to judge: a test must never pass because a
source recorded nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.common.findings import Check, Finding
from harness.common.observations import Databag, JournalEntry, PodIdentity, Snapshot
from harness.run.result import RunResult


def findings(run: RunResult, check: Check, subject: str = "") -> tuple[Finding, ...]:
    """The run's findings of one check whose subject starts with ``subject``."""
    return tuple(f for f in run.findings if f.check == check and f.subject.startswith(subject))


def assert_no_deviation(run: RunResult, check: Check, subject: str = "") -> tuple[Finding, ...]:
    """At least one finding of ``check`` for ``subject``, and none of them a deviation."""
    found = findings(run, check, subject)
    assert found, (
        f"no {check} finding for {subject or 'any subject'}: nothing was observed "
        f"(see {run.report})"
    )
    deviations = [f for f in found if f.verdict == "deviation"]
    assert not deviations, (
        "\n".join(
            f"{f.subject}: expected {f.expected}; observed {f.observed}"
            + (f" ({f.detail})" if f.detail else "")
            for f in deviations
        )
        + f"\nevidence: {run.report}"
    )
    return found


def hooks_seen(run: RunResult, unit: str, source: str) -> tuple[str, ...]:
    """Hook names ``unit`` ran inside the disruption window, as one source recorded them."""
    return tuple(
        r.hook
        for r in run.evidence.hooks
        if r.unit == unit and r.source == source and r.kind == "hook" and r.hook
    )


def journal_entry(snapshot: Snapshot | None, unit: str) -> JournalEntry:
    """The latest probe journal entry of ``unit`` in a snapshot (fails if there is none)."""
    entry = (
        None if snapshot is None else next((e for e in snapshot.journal if e.unit == unit), None)
    )
    assert entry is not None, f"no probe journal entry for {unit} in the snapshot"
    return entry


def file_digest(snapshot: Snapshot | None, unit: str, container: str, path: str) -> str:
    """The digest of one watched path (``absent`` included); fails if it was not observed."""
    state = (
        None
        if snapshot is None
        else next(
            (
                f
                for f in snapshot.files
                if (f.unit, f.container, f.path) == (unit, container, path)
            ),
            None,
        )
    )
    assert state is not None, f"{unit} {container}:{path} was not observed"
    return state.digest


def databags(
    snapshot: Snapshot | None, *, apps: tuple[str, ...] = ()
) -> Mapping[tuple[str, str, str, str], Databag]:
    """Every databag in a snapshot (of databags seen by ``apps``' units), by stable key."""
    assert snapshot is not None, "the snapshot was not taken"
    return {
        bag.key: bag for bag in snapshot.relations if not apps or bag.seen_by.split("/")[0] in apps
    }


def pod_pair(run: RunResult, unit: str) -> tuple[PodIdentity, PodIdentity]:
    """The unit's pod before and after the disruption; fails if either was not observed."""
    before, after = run.evidence.before, run.evidence.after
    old = before.pod(unit) if before is not None else None
    new = after.pod(unit) if after is not None else None
    assert old is not None, f"{unit}: no pod observed before the disruption"
    assert new is not None, f"{unit}: no pod observed after the disruption"
    return old, new


def assert_databags_kept(
    before: Mapping[tuple[str, str, str, str], Databag],
    after: Mapping[tuple[str, str, str, str], Databag],
) -> None:
    """Every databag seen before is still there, unchanged."""
    changed = [key for key, bag in before.items() if after.get(key) != bag]
    assert not changed, f"databags changed or lost: {changed}"


def assert_has_credentials(snapshot: Snapshot | None, unit: str, provider: str) -> None:
    """``unit`` sees ``provider``'s application databag with credentials (plain or a secret)."""
    assert snapshot is not None, "the snapshot was not taken"
    bags = [
        bag
        for bag in snapshot.relations
        if bag.seen_by == unit and bag.endpoint == "database" and bag.owner == provider
    ]
    assert bags, f"{unit} sees no application databag from {provider}"
    fields = set(bags[0].data)
    assert {"username", "password"} <= fields or "secret-user" in fields, sorted(fields)
