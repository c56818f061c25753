"""Databag digests in the journal: one per readable databag, changing with its content."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from digests import digest
from ops import testing
from probe_testing import ProbeCharm, journal_entries

Ctx = testing.Context[ProbeCharm]
STORAGE = testing.Storage("journal", index=0)


def _sha(data: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _state(*relations: testing.RelationBase, leader: bool = True) -> testing.State:
    return testing.State(
        leader=leader,
        relations=set(relations),
        containers={testing.Container("workload", can_connect=True)},
        storages={STORAGE},
    )


def test_digest_is_sha256_of_sorted_json() -> None:
    assert digest({"b": "2", "a": "1"}) == _sha({"a": "1", "b": "2"})
    assert digest({"a": "1"}) != digest({"a": "2"})


def test_every_readable_databag_has_a_keyed_digest(ctx: Ctx) -> None:
    rel = testing.Relation(
        "probe-provider",
        remote_app_name="probe-peer",
        local_app_data={"x": "1"},
        remote_app_data={"y": "2"},
        remote_units_data={0: {"z": "3"}},
    )

    ctx.run(ctx.on.update_status(), _state(rel))

    [entry] = journal_entries(ctx, STORAGE)
    key = f"probe-provider:{rel.id}"
    assert entry["databags"][f"{key}/probe"] == _sha({"x": "1"})
    assert entry["databags"][f"{key}/probe-peer"] == _sha({"y": "2"})
    assert entry["databags"][f"{key}/probe-peer/0"] == _sha({"z": "3"})
    assert f"{key}/probe/0" in entry["databags"]


def test_follower_has_no_digest_for_its_own_app_databag(ctx: Ctx) -> None:
    rel = testing.Relation("probe-provider", remote_app_name="probe-peer")

    ctx.run(ctx.on.update_status(), _state(rel, leader=False))

    [entry] = journal_entries(ctx, STORAGE)
    assert f"probe-provider:{rel.id}/probe" not in entry["databags"]
    assert f"probe-provider:{rel.id}/probe/0" in entry["databags"]


def test_peer_app_databag_is_listed_once(ctx: Ctx) -> None:
    peers = testing.PeerRelation("probe-peers", local_app_data={"a": "1"}, peers_data={1: {}})

    ctx.run(ctx.on.update_status(), _state(peers, leader=False))

    [entry] = journal_entries(ctx, STORAGE)
    assert sorted(entry["databags"]) == [
        f"probe-peers:{peers.id}/probe",
        f"probe-peers:{peers.id}/probe/0",
        f"probe-peers:{peers.id}/probe/1",
    ]


def test_only_the_changed_databag_changes_digest(ctx: Ctx) -> None:
    rel = testing.Relation(
        "probe-requirer",
        remote_app_name="probe-other",
        remote_app_data={"v": "1"},
        remote_units_data={0: {"u": "1"}},
    )
    state = ctx.run(ctx.on.update_status(), _state(rel))
    changed = replace(state.get_relation(rel.id), remote_app_data={"v": "2"})

    ctx.run(ctx.on.relation_changed(changed, remote_unit=0), replace(state, relations={changed}))

    before, after = (e["databags"] for e in journal_entries(ctx, STORAGE))
    app_key = f"probe-requirer:{rel.id}/probe-other"
    unit_key = f"probe-requirer:{rel.id}/probe-other/0"
    assert before[app_key] != after[app_key]
    assert before[unit_key] == after[unit_key]


def test_digests_are_taken_before_the_probe_writes(ctx: Ctx) -> None:
    # The probe puts its token into its peer databag during the first event; the journal
    # line of that event shows the databag as the event found it.
    peers = testing.PeerRelation("probe-peers")

    state = ctx.run(ctx.on.install(), _state(peers))
    ctx.run(ctx.on.update_status(), state)

    first, second = (e["databags"] for e in journal_entries(ctx, STORAGE))
    key = f"probe-peers:{peers.id}/probe/0"
    assert "probe-token" not in peers.local_unit_data
    assert first[key] == _sha(dict(peers.local_unit_data))
    assert second[key] == _sha(dict(state.get_relation(peers.id).local_unit_data))
    assert second[key] != first[key]
