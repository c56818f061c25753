"""The twin's Kubernetes answer to an untrusted charm is what lightkube builds from a real
API server's 403, whichever lightkube the environment holds (0.22 speaks httpx, 1.0 httpx2)."""

from __future__ import annotations

import pytest
from lightkube.core.exceptions import ApiError

from harness.twin.charms import HookEnv, TwinClient


def test_an_untrusted_patch_is_refused_as_a_real_api_server_refuses_it() -> None:
    patched: list[str] = []
    env = HookEnv(
        "probe", "probe/0", "2026-12-03T00:00:00Z", False, lambda name, _: patched.append(name)
    )
    with pytest.raises(ApiError) as refused:
        TwinClient(env).patch(None, "probe", {}, namespace="lab")
    # lightkube 1.0 reads the Status from the response only: a bare dict made ApiError
    # itself fail with AttributeError there.
    assert refused.value.response is not None
    assert refused.value.response.status_code == 403
    assert (refused.value.status.code, refused.value.status.reason) == (403, "Forbidden")
    assert patched == []
