"""The relation findings: each databag kept, lost or changed; secrets compared by digest only."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

from harness.catalogue.model import Expectation
from harness.catalogue.relation_keys import unit_keys
from harness.common.counts import counted
from harness.common.findings import Finding, Verdict
from harness.common.observations import Databag, Snapshot
from harness.common.redact import comparable, redact, shown
from harness.common.versions import JujuVersion
from harness.verdict.units import app_of


def relation_findings(
    expectation: Expectation,
    before: Snapshot,
    after: Snapshot,
    units: Sequence[str],
    removed: Sequence[str],
    created: Sequence[str],
) -> list[tuple[Databag, Finding]]:
    """Each databag with its finding (the bag tells the known-bug check whose it is)."""
    was = {bag.key: bag for bag in before.relations}
    now = {bag.key: bag for bag in after.relations}
    apps = {app_of(unit) for unit in units}
    findings: list[tuple[Databag, Finding]] = []
    for key in [*was, *(k for k in now if k not in was)]:
        old, new = was.get(key), now.get(key)
        bag = old if old is not None else new
        assert bag is not None  # one of them holds the key
        subject = f"{key[0]} {bag.owner} (seen by {bag.seen_by}, {bag.source})"
        verdict: Verdict
        if bag.owner in removed or bag.seen_by in removed:
            expected, verdict, observed = "gone with the removed unit", "match", "gone"
            if new is not None:
                verdict, observed = "deviation", "still there: " + _describe(new.data)
        elif old is None:
            assert new is not None
            if bag.owner in created or bag.seen_by in created:
                expected, verdict = "new (a new unit)", "match"
            else:
                expected, verdict = "kept (it did not exist before)", "deviation"
            observed = "appeared: " + _describe(new.data)
        else:
            wanted = _wanted(expectation, bag, units, apps)
            expected = f"{wanted} ({counted(len(old.data), 'key')})"
            if wanted == "lost":
                # Juju writes a new unit's network keys itself; the charm's keys are lost.
                # Which keys are Juju's depends on the version (private-address is the
                # charm's own from 4.0); every catalogue range lies within one such span.
                juju = unit_keys(JujuVersion.parse(expectation.juju_min)).owned
                old, new = _charm_keys(old, juju), None if new is None else _charm_keys(new, juju)
                expected = f"lost ({counted(len(old.data), 'key')} the charm wrote)"
            observed, kept = _compare(old, new)
            verdict = "match" if kept == (wanted == "kept") else "deviation"
            if wanted == "kept" and not kept and new is not None and new.data:
                verdict, observed = _rewritten(old, new, observed)
            if wanted == "lost" and not old.data:
                # Only Juju's own keys, which a new unit gets again: nothing to judge here.
                observed, verdict = "only Juju's network keys, set again for the new unit", "match"
        finding = Finding(
            check="relation",
            subject=subject,
            expected=expected,
            observed=observed,
            verdict=verdict,
            source=expectation.source_for("relation"),
            detail=_dump(old, new),
        )
        findings.append((bag, finding))
    return findings


def _wanted(expectation: Expectation, bag: Databag, units: Sequence[str], apps: set[str]) -> str:
    """What the catalogue says about this databag; remote data Juju leaves alone."""
    if bag.scope == "unit" and bag.owner in units:
        return expectation.relation_data
    if bag.scope == "app" and bag.owner in apps:
        return expectation.app_relation_data
    return "kept"


def _charm_keys(bag: Databag, juju: frozenset[str]) -> Databag:
    """The bag without the keys Juju wrote (``juju``)."""
    return replace(bag, data={k: v for k, v in bag.data.items() if k not in juju})


def _compare(old: Databag, new: Databag | None) -> tuple[str, bool]:
    if new is None:
        return "lost (databag gone)", False
    before = {k: comparable(k, v) for k, v in old.data.items()}
    after = {k: comparable(k, v) for k, v in new.data.items()}
    if before == after:
        return "kept", True
    if not after:
        return "lost (emptied)", False
    changes: list[str] = []
    for key in sorted(set(before) | set(after)):
        if key not in after:
            changes.append(f"{key} removed")
        elif key not in before:
            changes.append(f"{key} added = {shown(key, new.data[key])}")
        elif before[key] != after[key]:
            changes.append(f"{key}: {shown(key, old.data[key])} -> {shown(key, new.data[key])}")
    return "changed: " + "; ".join(changes), False


def _rewritten(old: Databag, new: Databag, observed: str) -> tuple[Verdict, str]:
    """A kept databag to which the charm's hooks added keys during the window.

    Every key still there with its value: kept, whatever keys the charm added (charm
    libraries do: rolling-ops writes its lock state into the peer databag). A key gone or a
    value changed stays a deviation: data Juju lost and the charm wrote again (Juju bug
    1830745's new credentials) looks exactly like that.
    """
    before = {k: comparable(k, v) for k, v in old.data.items()}
    after = {k: comparable(k, v) for k, v in new.data.items()}
    if all(key in after and after[key] == value for key, value in before.items()):
        return "match", f"kept; {observed.removeprefix('changed: ')} since, by the charm's hooks"
    return "deviation", observed


def _describe(data: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={shown(k, v)}" for k, v in sorted(data.items())) or "(empty)"


def _dump(old: Databag | None, new: Databag | None) -> str:
    def text(bag: Databag | None) -> str:
        return "absent" if bag is None else json.dumps(redact(bag.data), sort_keys=True)

    return f"before: {text(old)}; after: {text(new)}"
