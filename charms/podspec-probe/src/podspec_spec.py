"""The pod spec the podspec probe's leader sets (pod-spec-set, spec version 3).

Its one moving part is the ``spec-token`` config value, put in the workload container's
environment: a new value is a new pod template, so Juju re-applies the workload
StatefulSet and Kubernetes replaces its pods. Python 3.8 (the operator pod's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CONTAINER = "workload"
TOKEN_ENV = "PROBE_SPEC_TOKEN"


def image_details(resource_file: Path) -> dict[str, str]:
    """What Juju's oci-image resource file says (registrypath, username, password), in the
    spec's ``imageDetails`` form."""
    data = yaml.safe_load(resource_file.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not data.get("registrypath"):
        raise ValueError(f"{resource_file} names no registrypath")
    details = {"imagePath": str(data["registrypath"])}
    if data.get("username"):
        details["username"] = str(data["username"])
        details["password"] = str(data.get("password") or "")
    return details


def build(token: str, image: dict[str, str]) -> dict[str, Any]:
    """The whole spec: one container, the token in its environment."""
    return {
        "version": 3,
        "containers": [
            {
                "name": CONTAINER,
                "imageDetails": dict(image),
                "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}],
                "envConfig": {TOKEN_ENV: token},
            }
        ],
    }


def token_of(spec: dict[str, Any]) -> str:
    """The token a spec carries ("" when it carries none)."""
    for container in spec.get("containers") or []:
        if container.get("name") == CONTAINER:
            return str((container.get("envConfig") or {}).get(TOKEN_ENV, ""))
    return ""
