"""The pod-template patch (the sidecar pod-spec-set), against an autospec'd AppsV1Api."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from unittest.mock import MagicMock, create_autospec

import kubernetes.client
import kubernetes.config
import pytest
import template_patch
from kubernetes.client.exceptions import ApiException
from ops import testing
from probe_testing import ProbeCharm, journal_entries

Ctx = testing.Context[ProbeCharm]
STORAGE = testing.Storage("journal", index=0)
BODY = {
    "spec": {"template": {"metadata": {"annotations": {"probe.juju.is/template-token": "t1"}}}}
}
UNTRUSTED = testing.BlockedStatus("needs `juju trust probe --scope=cluster`")


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> MagicMock:
    mock: MagicMock = create_autospec(kubernetes.client.AppsV1Api, instance=True)
    monkeypatch.setattr(template_patch, "make_apps_api", lambda: mock)
    return mock


def _state(token: str = "t1", **fields: Any) -> testing.State:
    defaults: dict[str, Any] = {
        "leader": True,
        "config": {"pod-template-annotation": token},
        "model": testing.Model(name="lab"),
        "containers": {testing.Container("workload", can_connect=True)},
        "storages": {STORAGE},
    }
    return testing.State(**{**defaults, **fields})


def test_trusted_leader_patches_its_statefulset_on_config_changed(
    ctx: Ctx, api: MagicMock
) -> None:
    out = ctx.run(ctx.on.config_changed(), _state())

    api.patch_namespaced_stateful_set.assert_called_once_with("probe", "lab", BODY)
    assert out.unit_status.name == "active"
    assert [e["event"] for e in journal_entries(ctx, STORAGE)] == ["config-changed"]


def test_same_value_is_not_patched_twice(ctx: Ctx, api: MagicMock) -> None:
    out = ctx.run(ctx.on.config_changed(), _state())
    ctx.run(ctx.on.config_changed(), out)

    assert api.patch_namespaced_stateful_set.call_count == 1


def test_a_new_value_is_patched_again(ctx: Ctx, api: MagicMock) -> None:
    out = ctx.run(ctx.on.config_changed(), _state())
    ctx.run(ctx.on.config_changed(), replace(out, config={"pod-template-annotation": "t2"}))

    tokens = [
        c.args[2]["spec"]["template"]["metadata"]["annotations"]["probe.juju.is/template-token"]
        for c in api.patch_namespaced_stateful_set.call_args_list
    ]
    assert tokens == ["t1", "t2"]


def test_untrusted_is_blocked_with_the_trust_command(ctx: Ctx, api: MagicMock) -> None:
    api.patch_namespaced_stateful_set.side_effect = ApiException(status=403, reason="Forbidden")

    out = ctx.run(ctx.on.config_changed(), _state())

    assert out.unit_status == UNTRUSTED
    assert [e["event"] for e in journal_entries(ctx, STORAGE)] == ["config-changed"]


def test_after_juju_trust_the_patch_is_retried_and_status_clears(ctx: Ctx, api: MagicMock) -> None:
    api.patch_namespaced_stateful_set.side_effect = ApiException(status=403, reason="Forbidden")
    out = ctx.run(ctx.on.config_changed(), _state())
    api.patch_namespaced_stateful_set.side_effect = None  # `juju trust probe --scope=cluster`

    out = ctx.run(ctx.on.update_status(), out)

    assert api.patch_namespaced_stateful_set.call_count == 2
    assert out.unit_status.name == "active"


def test_clearing_the_option_clears_the_block(ctx: Ctx, api: MagicMock) -> None:
    api.patch_namespaced_stateful_set.side_effect = ApiException(status=403, reason="Forbidden")
    out = ctx.run(ctx.on.config_changed(), _state())

    out = ctx.run(ctx.on.config_changed(), replace(out, config={"pod-template-annotation": ""}))

    assert api.patch_namespaced_stateful_set.call_count == 1
    assert out.unit_status.name == "active"


def test_other_api_errors_are_reported(ctx: Ctx, api: MagicMock) -> None:
    api.patch_namespaced_stateful_set.side_effect = ApiException(status=404, reason="Not Found")

    out = ctx.run(ctx.on.config_changed(), _state())

    assert out.unit_status == testing.BlockedStatus("template patch failed: 404 Not Found")


@pytest.mark.parametrize(
    ("token", "leader"), [("t1", False), ("", True)], ids=["follower", "empty-value"]
)
def test_no_patch_from_followers_or_for_an_empty_value(
    ctx: Ctx, api: MagicMock, token: str, leader: bool
) -> None:
    ctx.run(ctx.on.config_changed(), _state(token, leader=leader))

    api.patch_namespaced_stateful_set.assert_not_called()


def test_other_events_do_not_patch(ctx: Ctx, api: MagicMock) -> None:
    ctx.run(ctx.on.update_status(), _state())

    api.patch_namespaced_stateful_set.assert_not_called()


def test_make_apps_api_uses_in_cluster_config(monkeypatch: pytest.MonkeyPatch) -> None:
    load = create_autospec(kubernetes.config.load_incluster_config)
    apps_class = create_autospec(kubernetes.client.AppsV1Api)
    monkeypatch.setattr(kubernetes.config, "load_incluster_config", load)
    monkeypatch.setattr(kubernetes.client, "AppsV1Api", apps_class)

    assert template_patch.make_apps_api() is apps_class.return_value
    load.assert_called_once_with()


def test_outside_a_cluster_the_failure_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)

    result = template_patch.patch("probe", "lab", "t1")

    assert not result.ok
    assert not result.untrusted
    assert result.message.startswith("template patch failed: no in-cluster config")
