"""Relation databags as this unit can read them, and their digests."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import ops


def digest(data: Mapping[str, str]) -> str:
    """sha256 hex of the databag as sorted JSON: equal content, equal digest."""
    return hashlib.sha256(json.dumps(dict(data), sort_keys=True).encode()).hexdigest()


def _read(relation: ops.Relation, owner: ops.Application | ops.Unit) -> dict[str, str] | None:
    """The databag's content, or None when Juju or ops will not let this unit read it."""
    try:
        return dict(relation.data[owner])
    except (ops.ModelError, KeyError):
        return None


@dataclass(frozen=True)
class RelationView:
    """One relation as this unit sees it; None means "not readable by this unit"."""

    relation_id: int
    endpoint: str
    remote_app: str | None
    app: dict[str, str] | None
    unit: dict[str, str] | None
    remote_app_data: dict[str, str] | None
    remote_units: dict[str, dict[str, str]] = field(default_factory=dict)

    def databags(self, local_app: str, local_unit: str) -> Iterator[tuple[str, dict[str, str]]]:
        """(owner, data) for every readable databag, each once (peers share the app bag)."""
        if self.app is not None:
            yield local_app, self.app
        if self.unit is not None:
            yield local_unit, self.unit
        if self.remote_app_data is not None and self.remote_app not in (None, local_app):
            yield str(self.remote_app), self.remote_app_data
        yield from sorted(self.remote_units.items())


def view(model: ops.Model, relation: ops.Relation) -> RelationView:
    remote_units: dict[str, dict[str, str]] = {}
    for unit in relation.units:
        data = _read(relation, unit)
        if data is not None:
            remote_units[unit.name] = data
    remote_app = relation.app
    return RelationView(
        relation_id=relation.id,
        endpoint=relation.name,
        remote_app=remote_app.name if remote_app is not None else None,
        app=_read(relation, model.app),
        unit=_read(relation, model.unit),
        remote_app_data=_read(relation, remote_app) if remote_app is not None else None,
        remote_units=remote_units,
    )


def views(model: ops.Model) -> list[RelationView]:
    """Every relation of every endpoint, ordered by endpoint then relation id."""
    found = [
        view(model, relation)
        for endpoint in sorted(model.relations)
        for relation in model.relations[endpoint]
    ]
    return sorted(found, key=lambda v: (v.endpoint, v.relation_id))


def relation_digests(model: ops.Model) -> dict[str, str]:
    """{"<endpoint>:<relation id>/<owner>": sha256 hex} for every databag it can read."""
    result: dict[str, str] = {}
    for rel in views(model):
        for owner, data in rel.databags(model.app.name, model.unit.name):
            result[f"{rel.endpoint}:{rel.relation_id}/{owner}"] = digest(data)
    return result
