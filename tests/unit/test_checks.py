"""The run checks the integration suite asserts with: each must be able to fail."""

from __future__ import annotations

import pytest

from harness.checks import assert_databags_kept, assert_has_credentials
from harness.common.observations import Databag, Snapshot


def bag(data: dict[str, str], *, seen_by: str = "probe/0") -> Databag:
    return Databag(
        5, "database", "database", "mysql-router-k8s", "app", seen_by, "show-unit", data
    )


def test_a_changed_or_lost_databag_fails_and_is_named() -> None:
    old = bag({"database": "probe"})
    assert_databags_kept({old.key: old}, {old.key: bag({"database": "probe"})})
    with pytest.raises(AssertionError, match="changed or lost"):
        assert_databags_kept({old.key: old}, {old.key: bag({"database": "other"})})
    with pytest.raises(AssertionError, match="changed or lost"):
        assert_databags_kept({old.key: old}, {})


@pytest.mark.parametrize(
    "data", [{"username": "u", "password": "p"}, {"secret-user": "secret://abc"}]
)
def test_credentials_plain_or_as_a_secret_are_accepted(data: dict[str, str]) -> None:
    assert_has_credentials(Snapshot("t", relations=(bag(data),)), "probe/0", "mysql-router-k8s")


def test_missing_credentials_or_databag_fail() -> None:
    with pytest.raises(AssertionError):
        assert_has_credentials(
            Snapshot("t", relations=(bag({"database": "probe"}),)), "probe/0", "mysql-router-k8s"
        )
    with pytest.raises(AssertionError, match="sees no application databag"):
        assert_has_credentials(
            Snapshot("t", relations=(bag({"username": "u"}, seen_by="probe/1"),)),
            "probe/0",
            "mysql-router-k8s",
        )
