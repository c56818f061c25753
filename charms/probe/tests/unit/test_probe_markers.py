"""Incarnation markers, the workload marker and the two kinds of stored state."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from ops import testing
from probe_testing import ProbeCharm, journal_entries, make_context

Ctx = testing.Context[ProbeCharm]
ROOT_MARKER = "tmp/probe/root-incarnation"


@pytest.fixture
def workload_dir(tmp_path: Path) -> Path:
    """The workload container's /probe: a Mount, since ops.testing wipes the rest per run."""
    path = tmp_path / "workload-probe"
    path.mkdir()
    return path


@pytest.fixture
def workload(workload_dir: Path) -> testing.Container:
    mount = testing.Mount(location="/probe", source=workload_dir)
    return testing.Container("workload", can_connect=True, mounts={"probe": mount})


def _state(**extra: object) -> testing.State:
    defaults: dict[str, object] = {
        "containers": {testing.Container("workload", can_connect=True)},
        "storages": {testing.Storage("journal", index=0)},
        "relations": {testing.PeerRelation("probe-peers")},
    }
    defaults.update(extra)
    return testing.State(**defaults)  # type: ignore[arg-type]


def _storage(state: testing.State) -> testing.Storage:
    return next(iter(state.storages))


def test_root_marker_is_new_on_first_event_then_kept(ctx: Ctx, rootfs: Path) -> None:
    state = ctx.run(ctx.on.install(), _state())
    ctx.run(ctx.on.start(), state)

    first, second = journal_entries(ctx, _storage(state))
    assert first["root_incarnation_new"] is True
    assert second["root_incarnation_new"] is False
    assert first["root_incarnation"] == second["root_incarnation"]
    assert (rootfs / ROOT_MARKER).read_text().strip() == first["root_incarnation"]


def test_charm_container_restart_loses_root_marker_only(ctx: Ctx, rootfs: Path) -> None:
    state = ctx.run(ctx.on.install(), _state())
    (rootfs / ROOT_MARKER).unlink()  # a restarted container gets a fresh root filesystem

    ctx.run(ctx.on.start(), state)

    before, after = journal_entries(ctx, _storage(state))
    assert after["root_incarnation_new"] is True
    assert after["root_incarnation"] != before["root_incarnation"]
    assert after["charm_dir_incarnation_new"] is False
    assert after["charm_dir_incarnation"] == before["charm_dir_incarnation"]


def test_new_pod_loses_charm_dir_marker(ctx: Ctx, tmp_path: Path) -> None:
    state = ctx.run(ctx.on.install(), _state())
    new_charm_dir = tmp_path / "new-pod-charm"
    new_charm_dir.mkdir()
    new_pod = make_context(new_charm_dir)
    storage = _storage(state)
    # The storage volume survives the pod: carry the journal over to the new context.
    new_root = storage.get_filesystem(new_pod)
    for item in storage.get_filesystem(ctx).iterdir():
        (new_root / item.name).write_bytes(item.read_bytes())

    new_pod.run(new_pod.on.upgrade_charm(), state)

    before, after = journal_entries(new_pod, storage)
    assert after["seq"] == before["seq"] + 1
    assert after["charm_dir_incarnation_new"] is True
    assert after["charm_dir_incarnation"] != before["charm_dir_incarnation"]
    assert (new_charm_dir / ".probe-charm-dir-incarnation").exists()


def test_workload_marker_absent_then_present_after_write_marker(
    ctx: Ctx, workload: testing.Container, workload_dir: Path
) -> None:
    state = ctx.run(ctx.on.install(), _state(containers={workload}))
    state = ctx.run(ctx.on.action("write-marker"), state)
    assert ctx.action_results is not None
    assert ctx.action_results["path"] == "/probe/workload-marker"

    assert (workload_dir / "workload-marker").exists()

    ctx.run(ctx.on.update_status(), state)

    assert [e["workload_marker"] for e in journal_entries(ctx, _storage(state))] == [
        "absent",
        "present",
    ]


def test_workload_marker_loss_stays_visible(
    ctx: Ctx, workload: testing.Container, workload_dir: Path
) -> None:
    state = ctx.run(ctx.on.action("write-marker"), _state(containers={workload}))
    state = ctx.run(ctx.on.update_status(), state)
    (workload_dir / "workload-marker").unlink()  # the workload container restarted

    state = ctx.run(ctx.on.update_status(), state)
    ctx.run(ctx.on.update_status(), state)

    assert [e["workload_marker"] for e in journal_entries(ctx, _storage(state))] == [
        "present",
        "absent",
        "absent",
    ]
    assert not (workload_dir / "workload-marker").exists()


def test_workload_marker_unreachable_when_pebble_is_down(ctx: Ctx) -> None:
    state = _state(containers={testing.Container("workload", can_connect=False)})

    ctx.run(ctx.on.start(), state)

    [entry] = journal_entries(ctx, _storage(state))
    assert entry["workload_marker"] == "unreachable"


def test_stored_state_survival_flags(ctx: Ctx) -> None:
    first = ctx.run(ctx.on.install(), _state())
    second = ctx.run(ctx.on.start(), first)
    # A new pod: local StoredState (charm dir) is gone, the peer databag (controller) is not.
    ctx.run(ctx.on.upgrade_charm(), replace(second, stored_states=set()))

    a, b, c = journal_entries(ctx, _storage(first))
    assert a["stored_state"]["local"] is False
    assert a["stored_state"]["controller"] is False
    assert b["stored_state"] == {
        "local": True,
        "controller": True,
        "token": a["stored_state"]["token"],
    }
    assert c["stored_state"] == {
        "local": False,
        "controller": True,
        "token": a["stored_state"]["token"],
    }


def test_token_is_kept_in_the_peer_unit_databag(ctx: Ctx) -> None:
    state = ctx.run(ctx.on.install(), _state())

    peers = state.get_relations("probe-peers")[0]
    [entry] = journal_entries(ctx, _storage(state))
    assert peers.local_unit_data["probe-token"] == entry["stored_state"]["token"]


def test_controller_state_lost_when_peer_databag_is_empty(ctx: Ctx) -> None:
    state = ctx.run(ctx.on.install(), _state())
    emptied = testing.PeerRelation("probe-peers", id=state.get_relations("probe-peers")[0].id)

    ctx.run(ctx.on.start(), replace(state, relations={emptied}))

    entry = journal_entries(ctx, _storage(state))[-1]
    assert entry["stored_state"]["local"] is True
    assert entry["stored_state"]["controller"] is False
