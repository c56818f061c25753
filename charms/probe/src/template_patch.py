"""Patch our own StatefulSet's pod template: the sidecar-era ``pod-spec-set``.

The client is lightkube, as charms use for this: it and everything it needs build from
source without a compiler or Rust, which ``charmcraft pack`` requires (requirements.txt).
It is imported only here, and only when a patch is made, so every other hook stays fast
and the unit tests can autospec ``lightkube.Client``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paths import TEMPLATE_ANNOTATION


@dataclass(frozen=True)
class PatchResult:
    ok: bool
    untrusted: bool = False
    message: str = ""


def trust_command(app: str) -> str:
    return f"juju trust {app} --scope=cluster"


def make_client() -> Any:
    """A lightkube Client with the pod's service-account credentials (in-cluster only).

    Never a kubeconfig: the probe must patch the cluster it runs in, with its own rights.
    """
    from lightkube import Client, KubeConfig

    return Client(config=KubeConfig.from_service_account())


def transport_error() -> type[Exception]:
    """The transport error of the HTTP library lightkube itself uses: httpx up to lightkube
    0.22, httpx2 from 1.0 (a twin or a charm venv may hold either; the packed charm pins 0.22)."""
    from lightkube.core import generic_client

    error: type[Exception] = generic_client.httpx.TransportError
    return error


def body(token: str) -> dict[str, Any]:
    return {"spec": {"template": {"metadata": {"annotations": {TEMPLATE_ANNOTATION: token}}}}}


def patch(app: str, namespace: str, token: str, client: Any | None = None) -> PatchResult:
    """Set the annotation on StatefulSet ``app`` in ``namespace``; 403 means untrusted."""
    from lightkube.core.exceptions import ApiError, ConfigError
    from lightkube.resources.apps_v1 import StatefulSet

    try:
        api = client if client is not None else make_client()
        api.patch(StatefulSet, app, body(token), namespace=namespace)
    except ApiError as e:
        if e.status.code == 403:
            return PatchResult(False, untrusted=True, message=f"needs `{trust_command(app)}`")
        return PatchResult(
            False, message=f"template patch failed: {e.status.code} {e.status.reason}"
        )
    except ConfigError as e:
        return PatchResult(False, message=f"template patch failed: no in-cluster config ({e})")
    except transport_error() as e:
        # The API server restarting with the node, or not answering yet: retried later.
        return PatchResult(False, message=f"template patch failed: {type(e).__name__}: {e}")
    return PatchResult(True, message=f"template token {token}")
