#!/usr/bin/env python3
"""The podspec probe: a podspec charm that sets its pod spec and journals every hook.

Juju 2.9 and 3.6 only (Juju 4.0 removed podspec charms). Every hook runs in the operator
pod, <app>-operator-0 (Juju's worker/uniter/runner/runner.go RunHook: runOnLocal), so the
journal is in the unit's charm directory there. Its leader sets the pod spec with
``Model.pod.set_spec`` (the pod-spec-set hook tool) on config-changed, leader-elected and
upgrade-charm; only a leader may (ops raises ModelError otherwise, as Juju refuses it).
Python 3.8 (the operator pod's) and ops 2.x.
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import ops
import podspec_journal
import podspec_spec

logger = logging.getLogger(__name__)

RESOURCE = "workload-image"
RELATION = "probe-requirer"
PEERS = "podspec-probe-peers"
UNIT_KEY = "podspec-probe-unit"
APP_KEY = "podspec-probe-app"
# collect-metrics never fires on Kubernetes and has no relation-get.
_NOT_JOURNALED = (ops.CollectMetricsEvent,)
# The hooks after which the leader (re)sets the spec.
_SETS_SPEC = (ops.ConfigChangedEvent, ops.LeaderElectedEvent, ops.UpgradeCharmEvent)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class PodspecProbeCharm(ops.CharmBase):
    """Journals every hook; its leader sets the pod spec from the config."""

    _stored = ops.StoredState()

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        self._stored.set_default(spec_problem="")
        for bound in self.on.events().values():
            kind = bound.event_type
            if issubclass(kind, ops.HookEvent) and not issubclass(kind, _NOT_JOURNALED):
                framework.observe(bound, self._on_hook)
        framework.observe(self.on.journal_action, self._on_journal_action)

    @property
    def _journal(self) -> Path:
        return Path(self.framework.charm_dir) / podspec_journal.JOURNAL_FILE

    def _on_hook(self, event: ops.HookEvent) -> None:
        token = str(self.config.get("spec-token") or "")
        seq = podspec_journal.append(self._journal, self._observe(event, token))
        self._write_databags()
        if isinstance(event, _SETS_SPEC):
            self._stored.spec_problem = self._set_spec(token) if self.unit.is_leader() else ""
        if self._stored.spec_problem:  # the last try to set the spec failed
            self.unit.status = ops.BlockedStatus(str(self._stored.spec_problem))
        else:
            self.unit.status = ops.ActiveStatus(f"journal {seq} events; spec-token {token}")

    def _observe(self, event: ops.HookEvent, token: str) -> dict[str, Any]:
        """One journal entry: what this unit sees as the hook begins, before it acts."""
        return {
            "time": _now(),
            "event": event.handle.kind.replace("_", "-"),
            "unit": self.unit.name,
            "juju_version": os.environ.get("JUJU_VERSION"),
            "dispatch_path": os.environ.get("JUJU_DISPATCH_PATH"),
            # The operator pod's name: every unit's hooks run there.
            "pod": os.environ.get("HOSTNAME") or socket.gethostname(),
            "leader": self.unit.is_leader(),
            "spec_token": token,
            "databags": self._databags(),
        }

    def _databags(self) -> dict[str, dict[str, dict[str, str]]]:
        """Every databag this unit may read, per relation (``endpoint:id``), by owner."""
        found: dict[str, dict[str, dict[str, str]]] = {}
        for endpoint, relations in self.model.relations.items():
            for relation in relations:
                owners = [self.unit, *sorted(relation.units, key=lambda u: u.name)]
                if relation.app is not None:
                    owners.append(relation.app)
                if self.unit.is_leader():
                    owners.append(self.app)
                bags: dict[str, dict[str, str]] = {}
                for owner in owners:
                    try:
                        bags[owner.name] = dict(relation.data[owner])
                    except ops.ModelError:  # not readable from here
                        continue
                found[f"{endpoint}:{relation.id}"] = bags
        return found

    def _write_databags(self) -> None:
        """Our unit's databag, and as leader our app's, on every relation of ours."""
        for endpoint in (RELATION, PEERS):
            for relation in self.model.relations.get(endpoint, []):
                try:
                    if relation.data[self.unit].get(UNIT_KEY) != self.unit.name:
                        relation.data[self.unit][UNIT_KEY] = self.unit.name
                    if self.unit.is_leader() and relation.data[self.app].get(APP_KEY) != (
                        self.app.name
                    ):
                        relation.data[self.app][APP_KEY] = self.app.name
                except ops.ModelError as e:  # e.g. the relation is going away
                    logger.info("could not write databags on %s: %s", relation, e)

    def _set_spec(self, token: str) -> str:
        """Set the pod spec; return what stopped it ("" when it was set)."""
        try:
            image = podspec_spec.image_details(self.model.resources.fetch(RESOURCE))
        except (ops.ModelError, NameError, OSError, ValueError) as e:
            return f"no {RESOURCE} resource: {e}"
        self.model.pod.set_spec(podspec_spec.build(token, image))
        logger.info("pod spec set with spec-token %r", token)
        return ""

    def _on_journal_action(self, event: ops.ActionEvent) -> None:
        since = int(event.params.get("since", 0))
        limit = int(event.params.get("limit", 200))
        text, cursor, more = podspec_journal.page(self._journal, since, limit)
        results = {"entries": text, "cursor": str(cursor)}
        if more:
            results["more"] = "true"
        event.set_results(results)


if __name__ == "__main__":  # pragma: nocover
    ops.main(PodspecProbeCharm)
