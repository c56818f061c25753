"""``juju show-unit UNIT --format json|yaml`` as Databag values (Juju 2.9 YAML, 3.x JSON).

Each ``relation-info[]`` entry gives, as the shown unit sees it:

- ``application-data``: before Juju 4.0 the databag of the *other* application (of the
  unit's own application on a peer relation); from 4.0 on the unit's *own* application's
  (``local_app_data=True``; juju/juju docs/howto/upgrade-your-juju-deployment-from-36-to-40.md).
  Before 4.0: show-unit does not name that application, so the owner
  is derived: the application of the ``related-units`` that is not the unit's own; on a peer
  relation (only own-application units, or ``local-unit`` with data, which Juju prints for
  peers only) the unit's own application; with no related unit at all, ``UNKNOWN_APP``
  (the endpoint name is not an application name, so guessing from it would mislead).
- ``related-units.<unit>.data``: each remote unit's databag (peers' on a peer relation);
  a null ``data`` gives no databag, as for ``local-unit``.
- ``local-unit.data``: the unit's own databag, printed for peer relations; Juju 3.x prints
  ``data: null`` for other relations, which is "not shown", not "empty", so no databag.

Cross-model relations (``cross-model: true``) list the remote units under the name the
offer has in this model (``remote-<hash>/0``), and that is the owner recorded.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal

from harness.common.errors import HarnessError
from harness.common.observations import Databag, DatabagSource
from harness.live.cli_documents import (
    as_int,
    as_mapping,
    as_text,
    excerpt,
    is_null,
    load_mapping,
)

UNKNOWN_APP = "<unknown>"
"""Owner of an application databag whose application show-unit does not reveal."""

_FIX = "pass the output of `juju show-unit UNIT --format json` (or yaml)"


def parse_show_unit(
    text: str, source: DatabagSource = "show-unit", *, local_app_data: bool = False
) -> tuple[Databag, ...]:
    """Every databag each shown unit can see, one per (relation, owner, scope).

    ``local_app_data``: ``application-data`` is the shown unit's own application's (Juju
    4.0 and later) rather than the other side's.
    """
    document = load_mapping(text, "juju show-unit output", _FIX)
    bags: list[Databag] = []
    for unit, info in document.items():
        if "/" not in str(unit) or not isinstance(info, Mapping):
            raise HarnessError(
                f"juju show-unit output has no unit at the top level: {excerpt(text)}", _FIX
            )
        relations = info.get("relation-info")
        if is_null(relations):
            continue  # a unit in no relation
        if not isinstance(relations, list):
            raise HarnessError(f"relation-info of {unit} in juju show-unit is not a list", _FIX)
        for relation in relations:
            bags.extend(_relation_bags(str(unit), relation, source, local_app_data))
    return tuple(bags)


def _relation_bags(
    seen_by: str, relation: object, source: DatabagSource, local_app_data: bool
) -> Iterator[Databag]:
    if not isinstance(relation, Mapping):
        raise HarnessError(f"a relation-info entry of {seen_by} is not a mapping", _FIX)
    relation_id = as_int(relation.get("relation-id"))
    endpoint = relation.get("endpoint")
    if relation_id is None or not isinstance(endpoint, str):
        raise HarnessError(
            f"a relation-info entry of {seen_by} lacks relation-id or endpoint", _FIX
        )
    remote_endpoint = relation.get("related-endpoint")
    remote_endpoint = remote_endpoint if isinstance(remote_endpoint, str) else None
    related = as_mapping(relation.get("related-units"))
    local = relation.get("local-unit")
    local_data = None if not isinstance(local, Mapping) else local.get("data")

    def bag(owner: str, scope: Literal["app", "unit"], data: object) -> Databag:
        return Databag(
            relation_id=relation_id,
            endpoint=endpoint,
            remote_endpoint=remote_endpoint,
            owner=owner,
            scope=scope,
            seen_by=seen_by,
            source=source,
            data=_data(data),
        )

    if "application-data" in relation:
        owner = (
            _app(seen_by)
            if local_app_data
            else _app_data_owner(seen_by, related, peer_hint=not is_null(local_data))
        )
        yield bag(owner, "app", relation["application-data"])
    if not is_null(local_data):
        yield bag(seen_by, "unit", local_data)
    for unit, unit_info in related.items():
        data = as_mapping(unit_info).get("data")
        if not is_null(data):  # null: Juju did not show it, which is not "empty"
            yield bag(str(unit), "unit", data)


def _app_data_owner(seen_by: str, related: Mapping[str, Any], *, peer_hint: bool) -> str:
    own_app = _app(seen_by)
    apps = {_app(str(unit)) for unit in related}
    others = sorted(apps - {own_app})
    if others:
        return others[0]  # a relation joins two applications: there is one other
    if apps or peer_hint:
        return own_app
    return UNKNOWN_APP


def _app(unit: str) -> str:
    return unit.rpartition("/")[0]


def _data(raw: object) -> dict[str, str]:
    return {str(key): as_text(value) for key, value in as_mapping(raw).items()}
