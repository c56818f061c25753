"""The db relation's credentials, as the partner gives them (named as discourse-k8s's is)."""

from __future__ import annotations

import ops


def host(relation: ops.Relation | None) -> str:
    if relation is None or relation.app is None:
        return ""
    return relation.data[relation.app].get("host", "")
