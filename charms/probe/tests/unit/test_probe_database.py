"""Our minimal mysql_client requirer: the request, plain credentials, secret credentials."""

from __future__ import annotations

from typing import Any

from ops import testing
from probe_testing import ProbeCharm

Ctx = testing.Context[ProbeCharm]
CREDS = {"username": "u", "password": "p", "endpoints": "mysql-router-k8s-0:6446"}


def _state(relation: testing.Relation, **fields: Any) -> testing.State:
    return testing.State(
        relations={relation},
        containers={testing.Container("workload", can_connect=True)},
        storages={testing.Storage("journal")},
        **fields,
    )


def test_leader_requests_the_configured_database_on_relation_created(ctx: Ctx) -> None:
    db = testing.Relation("database", remote_app_name="mysql-router-k8s")

    out = ctx.run(
        ctx.on.relation_created(db), _state(db, leader=True, config={"database-name": "lab"})
    )

    assert out.get_relation(db.id).local_app_data == {"database": "lab"}
    assert "requested-secrets" not in out.get_relation(db.id).local_app_data


def test_follower_does_not_write_the_request(ctx: Ctx) -> None:
    db = testing.Relation("database", remote_app_name="mysql-router-k8s")

    out = ctx.run(ctx.on.relation_joined(db, remote_unit=0), _state(db, leader=False))

    assert out.get_relation(db.id).local_app_data == {}


def test_plain_credentials_show_in_status(ctx: Ctx) -> None:
    db = testing.Relation("database", remote_app_name="mysql-router-k8s", remote_app_data=CREDS)

    out = ctx.run(ctx.on.relation_changed(db, remote_unit=0), _state(db, leader=True))

    assert "db creds ok" in out.unit_status.message


def test_waiting_until_the_provider_answers(ctx: Ctx) -> None:
    db = testing.Relation("database", remote_app_name="mysql-router-k8s")

    out = ctx.run(ctx.on.relation_joined(db, remote_unit=0), _state(db, leader=True))

    assert "db creds waiting" in out.unit_status.message


def test_credentials_from_a_shared_secret(ctx: Ctx) -> None:
    secret = testing.Secret({"username": "u", "password": "p"})
    db = testing.Relation(
        "database",
        remote_app_name="mysql-router-k8s",
        remote_app_data={"secret-user": secret.id, "endpoints": "e:6446"},
    )

    out = ctx.run(ctx.on.relation_changed(db, remote_unit=0), _state(db, secrets={secret}))

    assert "db creds ok" in out.unit_status.message


def test_unreadable_secret_is_reported_not_raised(ctx: Ctx) -> None:
    db = testing.Relation(
        "database",
        remote_app_name="mysql-router-k8s",
        remote_app_data={"secret-user": "secret:cj0000000000000000000000"},
    )

    out = ctx.run(ctx.on.relation_changed(db, remote_unit=0), _state(db))

    assert "db secret unreadable" in out.unit_status.message
