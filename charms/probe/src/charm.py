#!/usr/bin/env python3
"""The probe charm: it observes honestly and journals every hook it receives.

This module only wires events to the small modules next to it; see README.md for the
journal format and the actions.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import database
import digests
import files
import journal
import markers
import ops
import template_patch
from paths import (
    DATABASE_ENDPOINT,
    JOURNAL_FILE,
    JOURNAL_STORAGE,
    PEER_ENDPOINT,
    PEER_TOKEN_KEY,
    WORKLOAD_CONTAINER,
    WORKLOAD_MARKER,
)

logger = logging.getLogger(__name__)

# collect-metrics runs with a restricted hook-tool set (no relation-get) and never fires
# on Kubernetes; every other hook event is journaled.
_NOT_JOURNALED: tuple[type[ops.EventBase], ...] = (ops.CollectMetricsEvent,)


_DB_STATUS = {
    "ok": "db creds ok",
    "waiting": "db creds waiting",
    "no-relation": "no db relation",
    "secret-unreadable": "db secret unreadable",
}


def _journaled(event_type: type[ops.EventBase]) -> bool:
    return issubclass(event_type, ops.HookEvent) and not issubclass(event_type, _NOT_JOURNALED)


def _now() -> str:
    # "+00:00" rather than "Z": datetime.fromisoformat reads it on Python 3.10 too.
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class ProbeCharm(ops.CharmBase):
    """Journals every hook event; actions read the journal and poke at the unit."""

    _stored = ops.StoredState()  # type: ignore[no-untyped-call]

    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        self._stored.set_default(token="", template_applied="", template_error="")
        self._marker_state: markers.MarkerState | None = None
        for bound in self.on.events().values():
            if _journaled(bound.event_type):
                framework.observe(bound, self._on_hook)
        framework.observe(self.on.collect_unit_status, self._on_collect_unit_status)
        framework.observe(self.on.journal_action, self._on_journal_action)
        framework.observe(self.on.write_marker_action, self._on_write_marker_action)
        framework.observe(self.on.list_files_action, self._on_list_files_action)
        framework.observe(self.on.dump_relations_action, self._on_dump_relations_action)
        framework.observe(self.on.set_databag_action, self._on_set_databag_action)
        framework.observe(self.on.clear_journal_action, self._on_clear_journal_action)

    # Where things live.

    @property
    def _charm_dir(self) -> Path:
        return Path(self.framework.charm_dir)

    @property
    def _workload(self) -> ops.Container:
        return self.unit.get_container(WORKLOAD_CONTAINER)

    def _journal_dir(self) -> Path | None:
        """The journal storage's location, or None while it is not attached."""
        try:
            storages = self.model.storages[JOURNAL_STORAGE]
            location = storages[0].location if storages else None
        except (ops.ModelError, KeyError):
            return None
        return location if location is not None and location.is_dir() else None

    def _peer_bag(self) -> ops.RelationDataContent | None:
        relation = self.model.get_relation(PEER_ENDPOINT)
        return relation.data[self.unit] if relation is not None else None

    # The journal.

    def _on_hook(self, event: ops.HookEvent) -> None:
        entry = self._observe(event.handle.kind.replace("_", "-"))
        self._record(entry)
        self._keep_token(entry["stored_state"]["token"])
        if self.unit.is_leader():
            self._request_database()
        if isinstance(event, ops.ConfigChangedEvent) or (
            isinstance(event, ops.UpdateStatusEvent) and self._stored.template_error
        ):
            self._patch_template()

    def _observe(self, hook: str) -> dict[str, Any]:
        """One journal entry: what this unit sees as the event begins, before it acts."""
        now = _now()
        root = markers.root_incarnation()
        charm_dir = markers.charm_dir_incarnation(self._charm_dir)
        self._marker_state = markers.workload_marker(self._workload)
        local_token = str(self._stored.token)
        controller_token = self._read_peer_token()
        return {
            "time": now,
            "event": hook,
            "unit": self.unit.name,
            "juju_version": os.environ.get("JUJU_VERSION"),
            "dispatch_path": os.environ.get("JUJU_DISPATCH_PATH"),
            # A StatefulSet pod's hostname is its name, should the hook env lack HOSTNAME.
            "pod": os.environ.get("HOSTNAME") or socket.gethostname(),
            "root_incarnation": root.id,
            "root_incarnation_new": root.new,
            "charm_dir_incarnation": charm_dir.id,
            "charm_dir_incarnation_new": charm_dir.new,
            "workload_marker": self._marker_state,
            "leader": self.unit.is_leader(),
            "databags": digests.relation_digests(self.model),
            "stored_state": {
                "local": bool(local_token),
                "controller": bool(controller_token),
                "token": controller_token or local_token or uuid.uuid4().hex,
            },
            "buffered": False,
        }

    def _record(self, entry: dict[str, Any]) -> None:
        """Append to the journal, flushing older buffered entries first; else buffer."""
        directory = self._journal_dir()
        if directory is None:
            journal.buffer_add(self._charm_dir, {**entry, "buffered": True})
            return
        journal.flush_buffer(self._charm_dir, directory)
        journal.append(directory, [entry])

    def _read_peer_token(self) -> str:
        try:
            bag = self._peer_bag()
            return bag.get(PEER_TOKEN_KEY, "") if bag is not None else ""
        except ops.ModelError:
            return ""

    def _keep_token(self, token: str) -> None:
        """Put the unit's token back wherever it is missing (local and controller)."""
        if self._stored.token != token:
            self._stored.token = token
        try:
            bag = self._peer_bag()
            if bag is not None and bag.get(PEER_TOKEN_KEY) != token:
                bag[PEER_TOKEN_KEY] = token
        except ops.ModelError as e:  # e.g. the peer relation is going away
            logger.info("could not keep the token in the peer databag: %s", e)

    def _request_database(self) -> None:
        name = str(self.config.get("database-name") or "probe")
        for relation in self.model.relations.get(DATABASE_ENDPOINT, []):
            try:
                database.request(relation, self.app, name)
            except ops.ModelError as e:
                logger.info("could not request database on relation %d: %s", relation.id, e)

    def _patch_template(self) -> None:
        token = str(self.config.get("pod-template-annotation") or "")
        if not self.unit.is_leader() or not token or token == self._stored.template_applied:
            self._stored.template_error = ""  # nothing (left) to patch from this unit
            return
        result = template_patch.patch(self.app.name, self.model.name, token)
        if result.ok:
            self._stored.template_applied = token
            self._stored.template_error = ""
        else:
            self._stored.template_error = result.message
        logger.info("pod template patch: %s", result.message)

    # Status.

    def _on_collect_unit_status(self, event: ops.CollectStatusEvent) -> None:
        if self._stored.template_error:
            event.add_status(ops.BlockedStatus(str(self._stored.template_error)))
        directory = self._journal_dir()
        if directory is None:
            pending = len(journal.buffer_entries(self._charm_dir))
            journal_text = f"journal storage not attached ({pending} buffered)"
        else:
            journal_text = f"journal {journal.last_seq(directory)} events"
        creds = _DB_STATUS[database.credentials_state(self.model, DATABASE_ENDPOINT)]
        if self._marker_state is None:
            self._marker_state = markers.workload_marker(self._workload)
        event.add_status(ops.ActiveStatus(f"{journal_text}; {creds}; marker {self._marker_state}"))

    # Actions.

    def _on_journal_action(self, event: ops.ActionEvent) -> None:
        since = int(event.params.get("since", 0))
        limit = int(event.params.get("limit", 200))
        directory = self._journal_dir()
        if directory is None:
            pending = len(journal.buffer_entries(self._charm_dir))
            event.set_results({"entries": "[]", "cursor": str(since), "pending": str(pending)})
            return
        journal.flush_buffer(self._charm_dir, directory)
        # One page, under action-set's argument limit (see journal.PAGE_BYTES).
        found, torn = journal.read_after(directory / JOURNAL_FILE, since, limit)
        cursor = found.cursor if found.count else journal.last_seq(directory)
        results = {"entries": found.text, "cursor": str(cursor)}
        if found.more:
            results["more"] = "true"
        if torn:
            results["torn"] = json.dumps(list(torn))
        event.set_results(results)

    def _on_write_marker_action(self, event: ops.ActionEvent) -> None:
        container = str(event.params.get("container", "workload"))
        path = str(event.params.get("path") or WORKLOAD_MARKER)
        content = str(event.params.get("content") or f"{self.unit.name} {_now()}")
        problem = files.check_absolute(path)
        if problem:
            event.fail(problem)
            return
        try:
            if container == "charm":
                digest = files.write_charm(path, content)
            else:
                digest = files.write_workload(self._workload, path, content)
        except (ops.pebble.Error, OSError) as e:
            event.fail(f"could not write {path} in the {container} container: {e}")
            return
        event.set_results({"container": container, "path": path, "digest": digest})

    def _on_list_files_action(self, event: ops.ActionEvent) -> None:
        container = str(event.params.get("container", "workload"))
        paths = files.split_paths(str(event.params.get("paths", "")))
        problem = next(filter(None, map(files.check_absolute, paths)), None)
        if not paths or problem:
            event.fail(problem or "no paths given; pass paths='/probe /tmp/probe'")
            return
        try:
            if container == "charm":
                rows, truncated = files.list_charm(paths)
            else:
                rows, truncated = files.list_workload(self._workload, paths)
        except (ops.pebble.Error, OSError) as e:
            event.fail(f"could not list files in the {container} container: {e}")
            return
        results = {"container": container, "files": json.dumps(rows)}
        if truncated:
            results["truncated"] = "true"
        event.set_results(results)

    def _on_dump_relations_action(self, event: ops.ActionEvent) -> None:
        rows = [
            {
                "relation_id": view.relation_id,
                "endpoint": view.endpoint,
                "remote_app": view.remote_app,
                "app": view.app,
                "unit": view.unit,
                "remote_app_data": view.remote_app_data,
                "remote_units": view.remote_units,
            }
            for view in digests.views(self.model)
        ]
        event.set_results({"relations": json.dumps(rows)})

    def _on_set_databag_action(self, event: ops.ActionEvent) -> None:
        endpoint = str(event.params["endpoint"])
        scope = str(event.params.get("scope", "unit"))
        key, value = str(event.params["key"]), str(event.params.get("value", ""))
        relations = self.model.relations.get(endpoint)
        if relations is None:
            known = ", ".join(sorted(self.model.relations))
            event.fail(f"no endpoint {endpoint!r}; use one of: {known}")
            return
        wanted = event.params.get("relation-id")
        chosen = [r for r in relations if wanted is None or r.id == int(wanted)]
        if len(chosen) != 1:
            ids = ", ".join(str(r.id) for r in relations) or "none"
            event.fail(f"pick one relation of {endpoint!r} with relation-id (ids: {ids})")
            return
        if scope == "app" and not self.unit.is_leader():
            event.fail(
                f"scope=app needs leadership and {self.unit.name} is not the leader; "
                f"run the action on {self.app.name}/leader"
            )
            return
        relation = chosen[0]
        bag = relation.data[self.app if scope == "app" else self.unit]
        try:
            if value:
                bag[key] = value
            else:
                bag.pop(key, None)  # Juju deletes a key set to ""
        except ops.ModelError as e:
            event.fail(f"could not set {key!r} on {endpoint}:{relation.id}: {e}")
            return
        digest = digests.digest(dict(bag))
        event.set_results({"relation-id": str(relation.id), "scope": scope, "digest": digest})

    def _on_clear_journal_action(self, event: ops.ActionEvent) -> None:
        directory = self._journal_dir()
        pending = len(journal.buffer_entries(self._charm_dir))
        journal.remove_buffer(self._charm_dir)
        if directory is None:
            event.set_results({"cleared": str(pending), "cursor": "0"})
            return
        cleared, cursor = journal.clear(directory)
        event.set_results({"cleared": str(cleared + pending), "cursor": str(cursor)})


if __name__ == "__main__":  # pragma: nocover
    ops.main(ProbeCharm)
