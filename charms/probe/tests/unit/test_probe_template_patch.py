"""The pod-template patch (the sidecar pod-spec-set), against an autospec'd lightkube Client.

Errors are what lightkube raises: ``ApiError`` built from a real HTTP response carrying a
Kubernetes ``Status`` body, and httpx transport errors when the API server is not there.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any
from unittest.mock import MagicMock, create_autospec

import httpx
import lightkube
import pytest
import template_patch
from lightkube.core.exceptions import ApiError
from lightkube.resources.apps_v1 import StatefulSet
from ops import testing
from probe_testing import ProbeCharm, journal_entries

Ctx = testing.Context[ProbeCharm]
STORAGE = testing.Storage("journal", index=0)
BODY = {
    "spec": {"template": {"metadata": {"annotations": {"probe.juju.is/template-token": "t1"}}}}
}
UNTRUSTED = testing.BlockedStatus("needs `juju trust probe --scope=cluster`")
URL = "https://10.152.183.1/apis/apps/v1/namespaces/lab/statefulsets/probe"


def api_error(code: int, reason: str, message: str) -> ApiError:
    """What lightkube raises for an error answer: the Status body the API server sends."""
    request = httpx.Request("PATCH", URL)
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    return ApiError(request=request, response=httpx.Response(code, json=status, request=request))


FORBIDDEN = api_error(
    403,
    "Forbidden",
    'statefulsets.apps "probe" is forbidden: User "system:serviceaccount:lab:probe" cannot '
    'patch resource "statefulsets" in API group "apps" in the namespace "lab"',
)


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> MagicMock:
    mock: MagicMock = create_autospec(lightkube.Client, instance=True)
    monkeypatch.setattr(template_patch, "make_client", lambda: mock)
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

    api.patch.assert_called_once_with(StatefulSet, "probe", BODY, namespace="lab")
    assert out.unit_status.name == "active"
    assert [e["event"] for e in journal_entries(ctx, STORAGE)] == ["config-changed"]


def test_same_value_is_not_patched_twice(ctx: Ctx, api: MagicMock) -> None:
    out = ctx.run(ctx.on.config_changed(), _state())
    ctx.run(ctx.on.config_changed(), out)

    assert api.patch.call_count == 1


def test_a_new_value_is_patched_again(ctx: Ctx, api: MagicMock) -> None:
    out = ctx.run(ctx.on.config_changed(), _state())
    ctx.run(ctx.on.config_changed(), replace(out, config={"pod-template-annotation": "t2"}))

    tokens = [
        c.args[2]["spec"]["template"]["metadata"]["annotations"]["probe.juju.is/template-token"]
        for c in api.patch.call_args_list
    ]
    assert tokens == ["t1", "t2"]


def test_untrusted_is_blocked_with_the_trust_command(ctx: Ctx, api: MagicMock) -> None:
    api.patch.side_effect = FORBIDDEN

    out = ctx.run(ctx.on.config_changed(), _state())

    assert out.unit_status == UNTRUSTED
    assert [e["event"] for e in journal_entries(ctx, STORAGE)] == ["config-changed"]


def test_after_juju_trust_the_patch_is_retried_and_status_clears(ctx: Ctx, api: MagicMock) -> None:
    api.patch.side_effect = FORBIDDEN
    out = ctx.run(ctx.on.config_changed(), _state())
    api.patch.side_effect = None  # `juju trust probe --scope=cluster`

    out = ctx.run(ctx.on.update_status(), out)

    assert api.patch.call_count == 2
    assert out.unit_status.name == "active"


def test_clearing_the_option_clears_the_block(ctx: Ctx, api: MagicMock) -> None:
    api.patch.side_effect = FORBIDDEN
    out = ctx.run(ctx.on.config_changed(), _state())

    out = ctx.run(ctx.on.config_changed(), replace(out, config={"pod-template-annotation": ""}))

    assert api.patch.call_count == 1
    assert out.unit_status.name == "active"


def test_other_api_errors_are_reported(ctx: Ctx, api: MagicMock) -> None:
    api.patch.side_effect = api_error(404, "NotFound", 'statefulsets.apps "probe" not found')

    out = ctx.run(ctx.on.config_changed(), _state())

    assert out.unit_status == testing.BlockedStatus("template patch failed: 404 NotFound")


def test_an_api_server_that_is_starting_is_retried_on_update_status(
    ctx: Ctx, api: MagicMock
) -> None:
    api.patch.side_effect = [
        httpx.ConnectError("[Errno 111] Connection refused"),
        api_error(503, "ServiceUnavailable", "the server is currently unable to handle it"),
        None,
    ]
    out = ctx.run(ctx.on.config_changed(), _state())
    assert out.unit_status == testing.BlockedStatus(
        "template patch failed: ConnectError: [Errno 111] Connection refused"
    )
    out = ctx.run(ctx.on.update_status(), out)
    assert out.unit_status == testing.BlockedStatus(
        "template patch failed: 503 ServiceUnavailable"
    )

    out = ctx.run(ctx.on.update_status(), out)

    assert api.patch.call_count == 3
    assert out.unit_status.name == "active"


@pytest.mark.parametrize(
    ("token", "leader"), [("t1", False), ("", True)], ids=["follower", "empty-value"]
)
def test_no_patch_from_followers_or_for_an_empty_value(
    ctx: Ctx, api: MagicMock, token: str, leader: bool
) -> None:
    ctx.run(ctx.on.config_changed(), _state(token, leader=leader))

    api.patch.assert_not_called()


def test_other_events_do_not_patch(ctx: Ctx, api: MagicMock) -> None:
    ctx.run(ctx.on.update_status(), _state())

    api.patch.assert_not_called()


def test_make_client_uses_the_pods_service_account_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from_service_account = create_autospec(lightkube.KubeConfig.from_service_account)
    client_class = create_autospec(lightkube.Client)
    monkeypatch.setattr(lightkube.KubeConfig, "from_service_account", from_service_account)
    monkeypatch.setattr(lightkube, "Client", client_class)

    assert template_patch.make_client() is client_class.return_value
    from_service_account.assert_called_once_with()
    client_class.assert_called_once_with(config=from_service_account.return_value)


def test_outside_a_cluster_the_failure_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)

    result = template_patch.patch("probe", "lab", "t1")

    assert not result.ok
    assert not result.untrusted
    assert result.message.startswith("template patch failed: no in-cluster config")


def test_a_transport_error_is_caught_where_lightkube_uses_httpx2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # lightkube 1.0 speaks httpx2 and brings no httpx: in a twin or a charm venv holding it,
    # `import httpx` failed and the patch raised instead of reporting a retryable error.
    from lightkube.core import generic_client

    monkeypatch.setitem(sys.modules, "httpx", None)  # as where only httpx2 is installed
    api = MagicMock()
    api.patch.side_effect = generic_client.httpx.ConnectError("connection refused")

    result = template_patch.patch("probe", "lab", "t1", client=api)

    assert not result.ok
    assert "ConnectError: connection refused" in result.message
