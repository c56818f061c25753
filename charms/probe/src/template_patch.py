"""Patch our own StatefulSet's pod template: the sidecar-era ``pod-spec-set``.

The kubernetes client is imported only here, and only when a patch is made, so every
other hook stays fast and the unit tests can autospec ``kubernetes.client.AppsV1Api``.
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


def make_apps_api() -> Any:
    """An AppsV1Api with the pod's service-account credentials (in-cluster config)."""
    import kubernetes.client
    import kubernetes.config

    kubernetes.config.load_incluster_config()
    return kubernetes.client.AppsV1Api()


def body(token: str) -> dict[str, Any]:
    return {"spec": {"template": {"metadata": {"annotations": {TEMPLATE_ANNOTATION: token}}}}}


def patch(app: str, namespace: str, token: str, api: Any | None = None) -> PatchResult:
    """Set the annotation on StatefulSet ``app`` in ``namespace``; 403 means untrusted."""
    from kubernetes.client.exceptions import ApiException
    from kubernetes.config.config_exception import ConfigException

    try:
        client = api if api is not None else make_apps_api()
        client.patch_namespaced_stateful_set(app, namespace, body(token))
    except ApiException as e:
        if e.status == 403:
            return PatchResult(False, untrusted=True, message=f"needs `{trust_command(app)}`")
        return PatchResult(False, message=f"template patch failed: {e.status} {e.reason}")
    except ConfigException as e:
        return PatchResult(False, message=f"template patch failed: no in-cluster config ({e})")
    return PatchResult(True, message=f"template token {token}")
