"""What ``juju`` prints, per version, read from Juju's Go source (juju/juju; the fork
``wallyworld/juju`` at ``juju-2.9.31``, ``3.6`` and ``main`` = 4.0-beta5).

JSON is Go's ``json.Marshal`` plus a newline (juju/cmd output.go ``FormatJson``): compact,
map keys sorted, struct fields in declaration order, ``<``, ``>`` and ``&`` escaped. Each
builder below returns Python dicts in the struct's field order (map-valued fields sorted).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from rehearsal.world.pacing import utcnow

if TYPE_CHECKING:
    from harness.twin.model import App, TwinRelation, Unit
    from rehearsal.world.model import WorldModel
    from rehearsal.world.world import World


def go_json(value: Any) -> str:
    """``json.Marshal`` + newline: compact, HTML characters escaped (encoding/json)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"


def _sorted(mapping: Mapping[str, Any]) -> dict[str, Any]:
    return {k: mapping[k] for k in sorted(mapping)}


def since(moment: datetime) -> str:
    """cmd/juju/common/format.go ``FormatTime`` (non-ISO): ``02 Jan 2006 15:04:05Z07:00``;
    the world's local time is UTC, so ``Z``."""
    return moment.astimezone(timezone.utc).strftime("%d %b %Y %H:%M:%S") + "Z"


def status_info(current: str, message: str, when: datetime, version: str = "") -> dict[str, Any]:
    """statusInfoContents (cmd/juju/status/formatted.go): every field omitempty."""
    info: dict[str, Any] = {"current": current}
    if message:
        info["message"] = message
    info["since"] = since(when)
    if version:
        info["version"] = version
    return info


# juju status --format json -----------------------------------------------------------------


def status(world: World, model: WorldModel) -> dict[str, Any]:
    """formattedStatus (cmd/juju/status/formatted.go@juju-2.9.31, @3.6, @main)."""
    persona = world.persona
    now = utcnow()
    model_status: dict[str, Any] = {
        "name": model.name,
        "type": "caas",
        "controller": "lab",
        "cloud": "microk8s",
        "region": "localhost",
        "version": persona.version,
        "model-status": status_info("available", "", model.created),
    }
    if persona.major < 4:  # meter-status and sla were removed in 4.0 (formatted.go@main)
        model_status["sla"] = "unsupported"
    apps: dict[str, Any] = {}
    twin = model.twin
    for name in sorted(twin.records.apps):
        apps[name] = _application(world, model, twin.records.apps[name], now)
    out: dict[str, Any] = {"model": model_status, "machines": {}, "applications": apps}
    if persona.series == "3.6":
        pass  # branches: only when there are some (omitempty)
    out["controller"] = {"timestamp": now.strftime("%H:%M:%SZ")}
    return out


def charm_url(world: World, model: WorldModel, app: str) -> str:
    info = model.apps.get(app)
    name = info.charm if info else app
    revision = info.revision if info else 0
    if world.persona.major < 3:
        prefix = "local:focal/" if info is None or info.source == "local" else "ch:amd64/focal/"
        return f"{prefix}{name}-{revision}"
    if info is not None and info.source == "local":
        return f"local:{name}-{revision}"
    return f"ch:amd64/{name}-{revision}"


def _application(world: World, model: WorldModel, app: App, now: datetime) -> dict[str, Any]:
    persona = world.persona
    info = model.apps.get(app.name)
    local = info is None or info.source == "local"
    out: dict[str, Any] = {}
    if persona.major < 3:
        out["charm"] = charm_url(world, model, app.name)
        out["series"] = "kubernetes"  # 2.9 prints the series of a k8s app as "kubernetes"
        out["os"] = "kubernetes"
    else:
        out["charm"] = info.charm if info else app.name
        out["base"] = {"name": "ubuntu", "channel": "22.04"}
    out["charm-origin"] = "local" if local else "charmhub"
    out["charm-name"] = info.charm if info else app.name
    out["charm-rev"] = app.revision if info is None else info.revision + app.revision - 1
    if info is not None and info.channel and not local:
        out["charm-channel"] = info.channel
    out["scale"] = len(app.units)
    out["provider-id"] = model.statefulset_uid(app.name)
    out["address"] = app.address
    out["exposed"] = False
    out["application-status"] = status_info(
        str(app.status.name), str(app.status.message), model.created
    )
    relations: dict[str, Any] = {}
    for relation in model.twin.records.relations:
        if not relation.involves(app.name):
            continue
        end, other = relation.end(app.name), relation.other(app.name)
        if persona.major < 3:
            relations.setdefault(end.endpoint, []).append(other.app)
        else:
            relations.setdefault(end.endpoint, []).append(
                {
                    "related-application": other.app,
                    "interface": end.interface,
                    "scope": "global",
                }
            )
    if relations:
        out["relations"] = _sorted(relations)
    units = {}
    for unit in sorted(app.units, key=lambda u: u.number):
        units[unit.name] = _unit(world, model, app, unit, now)
    if units:
        out["units"] = units
    if app.charm.meta:
        bindings = {"": "alpha"}
        for kind in ("provides", "requires", "peers"):
            for endpoint in app.charm.meta.get(kind) or {}:
                bindings[endpoint] = "alpha"
        out["endpoint-bindings"] = _sorted(bindings)
    return out


def _unit(world: World, model: WorldModel, app: App, unit: Unit, now: datetime) -> dict[str, Any]:
    pacer = model.pacer
    agent = pacer.agent_status(unit.name, now)
    out: dict[str, Any] = {
        "workload-status": status_info(
            str(unit.status.name), str(unit.status.message), model.created
        ),
        "juju-status": status_info(agent, "", model.created, world.persona.version),
    }
    if app.leader == unit.number:
        out["leader"] = True
    out["address"] = model.pod_ip(unit.pod)
    out["provider-id"] = unit.pod.name
    return out


# juju show-unit UNIT --format json -----------------------------------------------------------


def show_unit(world: World, model: WorldModel, unit: Unit) -> dict[str, Any]:
    """UnitInfo and RelationData (cmd/juju/application/showunit.go, the same struct on
    every version), filled as the application facade's ``relationData`` does
    (apiserver/facades/client/application/application.go@3.6): ``application-data`` is the
    related application's databag, ``related-units`` the related application's units (for
    a peer relation, the unit's own goes to ``local-unit``). Juju 4.0 prints the unit's own
    application's databag as ``application-data`` (juju/juju
    docs/howto/upgrade-your-juju-deployment-from-36-to-40.md)."""
    app = model.twin.records.apps[unit.app]
    info: dict[str, Any] = {
        "opened-ports": None,
        "charm": charm_url(world, model, app.name),
        "leader": app.leader == unit.number,
        "life": "alive",
    }
    relations = [
        _relation_data(world, model, relation, unit)
        for relation in model.twin.records.relations
        if relation.involves(unit.app)
    ]
    relations = [r for r in relations if r is not None]
    if relations:
        info["relation-info"] = relations
    info["provider-id"] = unit.pod.name
    info["address"] = model.pod_ip(unit.pod)
    return {unit.name: info}


def _relation_data(
    world: World, model: WorldModel, relation: TwinRelation, unit: Unit
) -> dict[str, Any] | None:
    end, other = relation.end(unit.app), relation.other(unit.app)
    own_side = world.persona.major >= 4
    app_bag = relation.app_data.get(unit.app if own_side else other.app, {})
    related_app = model.twin.records.apps[other.app]
    mine: dict[str, Any] = {"in-scope": False, "data": None}
    others: dict[str, Any] = {}
    for remote in sorted(related_app.units, key=lambda u: u.number):
        data = dict(relation.unit_data.get(remote.name, {}))
        entry = {"in-scope": True, "data": _sorted(data)}
        if remote.name == unit.name:
            mine = entry
        else:
            others[remote.name] = entry
    out: dict[str, Any] = {
        "relation-id": relation.id,
        "endpoint": end.endpoint,
        "related-endpoint": other.endpoint,
        "application-data": _sorted(app_bag),
        "local-unit": mine,
    }
    if others:
        out["related-units"] = others
    if not (app_bag or others or mine["data"]):
        return None
    return out


# juju models / show-controller / model-config -----------------------------------------------


def models(world: World, current: str | None) -> dict[str, Any]:
    """ModelSummarySet (cmd/juju/controller/listmodels.go; 4.x dropped ``owner``, ``sla``,
    ``sla-owner``: listmodels.go@main)."""
    persona = world.persona
    listed = []
    names = [("controller", world.controller_model_uuid, True)] + [
        (m.name, m.uuid, False) for m in world.models.values()
    ]
    for name, model_uuid, is_controller in names:
        summary: dict[str, Any] = {
            "name": f"admin/{name}",
            "short-name": name,
            "model-uuid": model_uuid,
            "model-type": "caas",
            "controller-uuid": world.controller_uuid,
            "controller-name": "lab",
            "is-controller": is_controller,
        }
        if persona.major < 4:
            summary["owner"] = "admin"
        summary.update(
            {
                "cloud": "microk8s",
                "region": "localhost",
                "type": "kubernetes",
                "life": "alive",
                "status": {"current": "available", "since": "just now"},
                "access": "admin",
                "last-connection": "just now",
            }
        )
        if persona.major < 4:
            summary["sla-owner"] = "admin"
        summary["agent-version"] = persona.version
        listed.append(summary)
    out: dict[str, Any] = {"models": listed}
    if current:
        out["current-model"] = current
    return out


def show_controller(world: World, *, reachable: bool) -> dict[str, Any]:
    """ShowControllerDetails (cmd/juju/controller/showcontroller.go): ``details.uuid`` in
    JSON; ``agent-version`` only from a controller that answered, else an ``errors`` entry."""
    details: dict[str, Any] = {
        "uuid": world.controller_uuid,
        "api-endpoints": [f"127.0.0.1:{world.ports.juju}"],
        "cloud": "microk8s",
        "region": "localhost",
    }
    if reachable:
        details["agent-version"] = world.persona.version
        details["agent-git-commit"] = "rehearsal"
        details["controller-model-version"] = world.persona.version
    out: dict[str, Any] = {"details": details}
    out["models"] = {
        "controller": {"uuid": world.controller_model_uuid, "unit-count": 1},
        **{
            m.name: {
                "uuid": m.uuid,
                "unit-count": sum(len(a.units) for a in m.twin.records.apps.values()),
            }
            for m in world.models.values()
        },
    }
    out["account"] = {"user": "admin", "access": "superuser"}
    if not reachable:
        out["errors"] = [
            f"unable to connect to API: dial tcp 127.0.0.1:{world.ports.juju}: "
            "connect: connection refused"
        ]
    return {"lab": out}


def model_config(model: WorldModel) -> dict[str, Any]:
    """config.ConfigValue has no JSON tags: ``Value`` and ``Source`` (environs/config/
    source.go; cmd/juju/model/config.go), the same on 2.9, 3.6 and 4.0."""
    return {
        key: {"Value": value, "Source": source}
        for key, (value, source) in sorted(model.config.items())
    }


def now_utc() -> datetime:
    return utcnow()
