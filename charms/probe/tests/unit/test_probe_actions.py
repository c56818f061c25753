"""Each action's results (or its one-line failure), as `juju run` would show them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from ops import testing
from probe_testing import ProbeCharm

Ctx = testing.Context[ProbeCharm]


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@pytest.fixture
def workload_dir(tmp_path: Path) -> Path:
    path = tmp_path / "workload-probe"
    path.mkdir()
    return path


@pytest.fixture
def state(workload_dir: Path) -> testing.State:
    mount = testing.Mount(location="/probe", source=workload_dir)
    return testing.State(
        containers={testing.Container("workload", can_connect=True, mounts={"probe": mount})},
        storages={testing.Storage("journal")},
    )


def test_write_marker_in_charm_container_writes_under_its_root(
    ctx: Ctx, state: testing.State, rootfs: Path
) -> None:
    params = {"container": "charm", "path": "/tmp/probe/mark", "content": "hello"}

    ctx.run(ctx.on.action("write-marker", params=params), state)

    assert (rootfs / "tmp/probe/mark").read_text() == "hello"
    assert ctx.action_results == {
        "container": "charm",
        "path": "/tmp/probe/mark",
        "digest": _sha(b"hello"),
    }


def test_write_marker_in_workload_goes_through_pebble(
    ctx: Ctx, state: testing.State, workload_dir: Path
) -> None:
    params = {"path": "/probe/deep/er/mark", "content": "x"}

    ctx.run(ctx.on.action("write-marker", params=params), state)

    assert (workload_dir / "deep/er/mark").read_text() == "x"


def test_write_marker_rejects_a_relative_path(ctx: Ctx, state: testing.State) -> None:
    with pytest.raises(testing.ActionFailed) as failed:
        ctx.run(ctx.on.action("write-marker", params={"path": "probe/mark"}), state)

    assert "not absolute" in failed.value.message


def test_write_marker_fails_clearly_when_pebble_is_down(ctx: Ctx) -> None:
    down = testing.State(containers={testing.Container("workload", can_connect=False)})

    with pytest.raises(testing.ActionFailed) as failed:
        ctx.run(ctx.on.action("write-marker"), down)

    assert failed.value.message.startswith("could not write /probe/workload-marker")


def test_list_files_in_charm_container_recurses_with_digests(
    ctx: Ctx, state: testing.State, rootfs: Path
) -> None:
    (rootfs / "tmp/probe/sub").mkdir(parents=True)
    (rootfs / "tmp/probe/a").write_bytes(b"A")
    (rootfs / "tmp/probe/sub/b").write_bytes(b"B")

    params = {"container": "charm", "paths": "/tmp/probe, /nope"}
    ctx.run(ctx.on.action("list-files", params=params), state)

    assert ctx.action_results is not None
    assert json.loads(ctx.action_results["files"]) == [
        {"path": "/tmp/probe", "digest": "dir"},
        {"path": "/tmp/probe/sub", "digest": "dir"},
        {"path": "/tmp/probe/a", "digest": _sha(b"A")},
        {"path": "/tmp/probe/sub/b", "digest": _sha(b"B")},
        {"path": "/nope", "digest": "absent"},
    ]
    assert "truncated" not in ctx.action_results


def test_list_files_in_workload_reads_through_pebble(
    ctx: Ctx, state: testing.State, workload_dir: Path
) -> None:
    (workload_dir / "workload-marker").write_bytes(b"M")
    (workload_dir / "d").mkdir()
    (workload_dir / "d" / "f").write_bytes(b"F")

    params = {"container": "workload", "paths": "/probe/workload-marker /probe/d /probe/gone"}
    ctx.run(ctx.on.action("list-files", params=params), state)

    assert ctx.action_results is not None
    assert json.loads(ctx.action_results["files"]) == [
        {"path": "/probe/workload-marker", "digest": _sha(b"M")},
        {"path": "/probe/d", "digest": "dir"},
        {"path": "/probe/d/f", "digest": _sha(b"F")},
        {"path": "/probe/gone", "digest": "absent"},
    ]


def test_list_files_needs_paths(ctx: Ctx, state: testing.State) -> None:
    with pytest.raises(testing.ActionFailed) as failed:
        ctx.run(ctx.on.action("list-files", params={"paths": " , "}), state)

    assert "no paths given" in failed.value.message


# Relations.

PROVIDER = testing.Relation(
    "probe-provider",
    remote_app_name="probe-peer",
    local_app_data={"mine": "app"},
    local_unit_data={"mine": "unit"},
    remote_app_data={"theirs": "app"},
    remote_units_data={0: {"theirs": "unit0"}, 1: {"theirs": "unit1"}},
)


def _with(**fields: Any) -> testing.State:
    return testing.State(containers={testing.Container("workload", can_connect=True)}, **fields)


def test_dump_relations_as_leader_shows_every_databag(ctx: Ctx) -> None:
    ctx.run(ctx.on.action("dump-relations"), _with(leader=True, relations={PROVIDER}))

    assert ctx.action_results is not None
    [relation] = json.loads(ctx.action_results["relations"])
    assert relation["relation_id"] == PROVIDER.id
    assert relation["endpoint"] == "probe-provider"
    assert relation["remote_app"] == "probe-peer"
    assert relation["app"]["mine"] == "app"
    assert relation["unit"]["mine"] == "unit"
    assert relation["remote_app_data"] == {"theirs": "app"}
    assert relation["remote_units"] == {
        "probe-peer/0": {"theirs": "unit0"},
        "probe-peer/1": {"theirs": "unit1"},
    }


def test_dump_relations_as_follower_cannot_read_own_app_databag(ctx: Ctx) -> None:
    ctx.run(ctx.on.action("dump-relations"), _with(leader=False, relations={PROVIDER}))

    assert ctx.action_results is not None
    [relation] = json.loads(ctx.action_results["relations"])
    assert relation["app"] is None
    assert relation["unit"]["mine"] == "unit"


def test_set_databag_unit_scope(ctx: Ctx) -> None:
    params = {"endpoint": "probe-provider", "key": "k", "value": "v"}

    out = ctx.run(ctx.on.action("set-databag", params=params), _with(relations={PROVIDER}))

    assert out.get_relation(PROVIDER.id).local_unit_data["k"] == "v"
    assert ctx.action_results is not None
    assert ctx.action_results["scope"] == "unit"


def test_set_databag_app_scope_as_leader(ctx: Ctx) -> None:
    params = {"endpoint": "probe-provider", "scope": "app", "key": "k", "value": "v"}
    state = _with(leader=True, relations={PROVIDER})

    out = ctx.run(ctx.on.action("set-databag", params=params), state)

    assert out.get_relation(PROVIDER.id).local_app_data["k"] == "v"


def test_set_databag_empty_value_deletes_the_key(ctx: Ctx) -> None:
    params = {"endpoint": "probe-provider", "key": "mine", "value": ""}

    out = ctx.run(ctx.on.action("set-databag", params=params), _with(relations={PROVIDER}))

    assert "mine" not in out.get_relation(PROVIDER.id).local_unit_data


def test_set_databag_app_scope_without_leadership_fails_clearly(ctx: Ctx) -> None:
    params = {"endpoint": "probe-provider", "scope": "app", "key": "k", "value": "v"}

    with pytest.raises(testing.ActionFailed) as failed:
        ctx.run(
            ctx.on.action("set-databag", params=params),
            _with(leader=False, relations={PROVIDER}),
        )

    assert failed.value.message == (
        "scope=app needs leadership and probe/0 is not the leader; run the action on probe/leader"
    )


def test_set_databag_unknown_endpoint_names_the_known_ones(ctx: Ctx) -> None:
    params = {"endpoint": "nope", "key": "k", "value": "v"}

    with pytest.raises(testing.ActionFailed) as failed:
        ctx.run(ctx.on.action("set-databag", params=params), _with())

    assert failed.value.message.startswith("no endpoint 'nope'; use one of: database,")


def test_set_databag_needs_relation_id_with_two_relations(ctx: Ctx) -> None:
    other = testing.Relation("probe-provider", remote_app_name="third")
    params = {"endpoint": "probe-provider", "key": "k", "value": "v"}
    state = _with(relations={PROVIDER, other})

    with pytest.raises(testing.ActionFailed) as failed:
        ctx.run(ctx.on.action("set-databag", params=params), state)
    assert "relation-id" in failed.value.message

    out = ctx.run(ctx.on.action("set-databag", params={**params, "relation-id": other.id}), state)
    assert out.get_relation(other.id).local_unit_data["k"] == "v"
    assert "k" not in out.get_relation(PROVIDER.id).local_unit_data
