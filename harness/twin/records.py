"""The controller's records of the simulated model: applications, units, relations and
their databags, how each is found, and how records are made and dropped (no hooks run).

Pod churn never touches these: a relation's databags, an application's config, trust and
secrets outlive every pod. Leadership rules are ``harness.twin.leadership``'s.
"""

from __future__ import annotations

import itertools

from harness.catalogue.relation_keys import unit_keys
from harness.common.errors import UnknownName
from harness.common.versions import JujuVersion
from harness.twin import leadership
from harness.twin.model import App, RelationEnd, TwinRelation, Unit
from harness.twin.names import NAMESPACE


class Records:
    """What the controller holds for one model: its applications and relations."""

    def __init__(self, version: JujuVersion) -> None:
        self.version = version
        self.apps: dict[str, App] = {}
        self.relations: list[TwinRelation] = []
        self._relation_ids = itertools.count()
        self._addresses = itertools.count(1)
        self._freed: dict[tuple[str, int], Unit] = {}  # (app, ordinal) -> the removed unit

    # Lookups ---------------------------------------------------------------------------

    def app(self, name: str) -> App:
        if name not in self.apps:
            known = ", ".join(sorted(self.apps)) or "none deployed"
            raise UnknownName(f"no application {name!r} in the twin model", f"use one of: {known}")
        return self.apps[name]

    def unit(self, name: str) -> Unit:
        app_name, _, number = name.partition("/")
        found = self.app(app_name).unit(int(number)) if number.isdigit() else None
        if found is None:
            known = ", ".join(u.name for a in self.apps.values() for u in a.units)
            raise UnknownName(f"no unit {name!r} in the twin model", f"use one of: {known}")
        return found

    def unit_of_pod(self, pod: str) -> Unit:
        for app in self.apps.values():
            for unit in app.units:
                if unit.pod.name == pod:
                    return unit
        known = ", ".join(u.pod.name for a in self.apps.values() for u in a.units)
        raise UnknownName(f"no pod {pod!r} in namespace {NAMESPACE}", f"use one of: {known}")

    def relation(self, relation_id: int) -> TwinRelation | None:
        return next((r for r in self.relations if r.id == relation_id), None)

    def endpoints(self, unit: Unit) -> tuple[str, ...]:
        """The unit's endpoints that are in a relation, in relation order."""
        found: list[str] = []
        for relation in self.relations:
            if relation.involves(unit.app) and relation.end(unit.app).endpoint not in found:
                found.append(relation.end(unit.app).endpoint)
        return tuple(found)

    def all_units(self) -> list[Unit]:
        return [u for app in self.apps.values() for u in sorted(app.units, key=lambda u: u.number)]

    # Making and dropping records ---------------------------------------------------------

    def add_app(self, app: App) -> None:
        """A deployed application: its service address and its peer relations."""
        self.apps[app.name] = app
        app.address = f"10.152.183.{next(self._addresses)}"
        for peer_endpoint, interface in app.charm.peers:
            end = RelationEnd(app.name, peer_endpoint, interface, "peers")
            self.relations.append(TwinRelation(next(self._relation_ids), end, end))

    def add_unit(self, app: App, unit: Unit) -> None:
        """A new unit of ``app``: it may lead, and each relation gets its unit databag."""
        app.units.append(unit)
        leadership.arrived(app, unit)
        for relation in self.relations:
            if relation.involves(app.name):
                relation.unit_data[unit.name] = self.default_unit_data(app)

    def relate(self, a: RelationEnd, b: RelationEnd) -> TwinRelation:
        """A new relation, with a unit databag for every unit on either side."""
        relation = TwinRelation(next(self._relation_ids), a, b)
        for end in (a, b):
            app = self.apps[end.app]
            for unit in app.units:
                relation.unit_data[unit.name] = self.default_unit_data(app)
        self.relations.append(relation)
        return relation

    def default_unit_data(self, app: App) -> dict[str, str]:
        # What Juju of this version puts in every unit databag
        # (harness.catalogue.relation_keys); on Kubernetes the address is the app's service
        # address, which pod churn keeps.
        return unit_keys(self.version).data(app.address)

    def remove_unit(self, app: App, unit: Unit) -> None:
        """The unit record and its databags are gone; its ordinal remembers it (``freed``)."""
        app.units.remove(unit)
        for relation in self.relations:
            relation.unit_data.pop(unit.name, None)
        leadership.removed(app, unit)
        self._freed[app.name, unit.pod.ordinal] = unit

    def freed(self, app: App, ordinal: int) -> Unit | None:
        """The unit removed from ``ordinal`` of ``app``, once: a new unit takes its place."""
        return self._freed.pop((app.name, ordinal), None)
