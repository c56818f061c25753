"""The evidence of one run as a value, and its folder: bundle.json + report.md + timeline.svg.

``bundle.json`` is deterministic (sorted keys, snapshot collections in a stable order) so the
same twin run gives byte-identical files, and it validates against ``schema.json`` shipped
beside this module. What is written has been through ``harness.evidence.redaction``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, cast

from harness.common.charm_errors import CharmError
from harness.common.errors import HarnessError
from harness.common.findings import Check, Finding, Verdict
from harness.common.observations import (
    ContainerStatus,
    Databag,
    FileState,
    HookRecord,
    HookSource,
    JournalEntry,
    Outcome,
    PodIdentity,
    Snapshot,
    Step,
    UnitStatus,
)
from harness.common.versions import CharmVersion, Versions
from harness.evidence.model import BUNDLE_FILE, SCHEMA_VERSION, Evidence
from harness.evidence.user_bundle import UserBundle

# --- to JSON ---------------------------------------------------------------------------


def _container_json(c: ContainerStatus) -> dict[str, Any]:
    return {
        "name": c.name,
        "restart_count": c.restart_count,
        "ready": c.ready,
        "container_id": c.container_id,
        "started_at": c.started_at,
        "last_termination": c.last_termination,
    }


def _pod_json(p: PodIdentity) -> dict[str, Any]:
    return {
        "unit": p.unit,
        "name": p.name,
        "uid": p.uid,
        "phase": p.phase,
        "node": p.node,
        "start_time": p.start_time,
        "containers": [_container_json(c) for c in sorted(p.containers, key=lambda c: c.name)],
    }


def _databag_json(b: Databag) -> dict[str, Any]:
    return {
        "relation_id": b.relation_id,
        "endpoint": b.endpoint,
        "remote_endpoint": b.remote_endpoint,
        "owner": b.owner,
        "scope": b.scope,
        "seen_by": b.seen_by,
        "source": b.source,
        "data": dict(b.data),
    }


def _journal_json(j: JournalEntry) -> dict[str, Any]:
    return {
        "seq": j.seq,
        "time": j.time,
        "event": j.event,
        "unit": j.unit,
        "juju_version": j.juju_version,
        "dispatch_path": j.dispatch_path,
        "pod": j.pod,
        "root_incarnation": j.root_incarnation,
        "root_incarnation_new": j.root_incarnation_new,
        "charm_dir_incarnation": j.charm_dir_incarnation,
        "charm_dir_incarnation_new": j.charm_dir_incarnation_new,
        "workload_marker": j.workload_marker,
        "leader": j.leader,
        "databags": dict(j.databags),
        "local_state_survived": j.local_state_survived,
        "controller_state_survived": j.controller_state_survived,
        "buffered": j.buffered,
    }


def _databag_order(b: Databag) -> tuple[str, str, str, str, str]:
    return (*b.key, b.scope)


FILE_METADATA = ("size", "mtime", "ctime", "inode", "birth", "clock", "reason")


def _file_json(f: FileState) -> dict[str, Any]:
    """A file's digest and, where the observer read it, its metadata (older bundles and
    observers without ``stat`` have none: the keys are left out)."""
    out: dict[str, Any] = {
        "unit": f.unit,
        "container": f.container,
        "path": f.path,
        "digest": f.digest,
    }
    out.update({k: getattr(f, k) for k in FILE_METADATA if getattr(f, k) is not None})
    return out


def _file_from(f: Mapping[str, Any]) -> FileState:
    def number(key: str) -> float | None:
        value = f.get(key)
        return None if value is None else float(value)

    def whole(key: str) -> int | None:
        value = f.get(key)
        return None if value is None else int(value)

    return FileState(
        unit=f["unit"],
        container=f["container"],
        path=f["path"],
        digest=f["digest"],
        size=whole("size"),
        mtime=number("mtime"),
        ctime=number("ctime"),
        inode=whole("inode"),
        birth=number("birth"),
        clock=number("clock"),
        reason=None if f.get("reason") is None else str(f["reason"]),
    )


def snapshot_to_json(s: Snapshot) -> dict[str, Any]:
    return {
        "taken_at": s.taken_at,
        "pods": [_pod_json(p) for p in sorted(s.pods, key=lambda p: (p.unit, p.name))],
        "files": [
            _file_json(f) for f in sorted(s.files, key=lambda f: (f.unit, f.container, f.path))
        ],
        "relations": [_databag_json(b) for b in sorted(s.relations, key=_databag_order)],
        "statuses": [
            {
                "unit": u.unit,
                "workload": u.workload,
                "workload_message": u.workload_message,
                "agent": u.agent,
                "leader": u.leader,
            }
            for u in sorted(s.statuses, key=lambda u: u.unit)
        ],
        "journal": [_journal_json(j) for j in sorted(s.journal, key=lambda j: (j.unit, j.seq))],
    }


def hook_to_json(h: HookRecord) -> dict[str, Any]:
    return {
        "unit": h.unit,
        "time": h.time,
        "kind": h.kind,
        "source": h.source,
        "hook": h.hook,
        "outcome": h.outcome,
        "detail": h.detail,
    }


def versions_to_json(v: Versions) -> dict[str, Any]:
    # juju_driver came later: written only when known, so twin bundles stay as they were.
    driver = {"juju_driver": v.juju_driver} if v.juju_driver else {}
    settings: dict[str, Any] = {"model_config": dict(v.model_config)} if v.model_config else {}
    if v.model_config_from:
        settings["model_config_from"] = v.model_config_from
    return {
        **driver,
        **settings,
        "juju_client": v.juju_client,
        "juju_controller": v.juju_controller,
        "juju_agent": v.juju_agent,
        "microk8s": v.microk8s,
        "kubernetes": v.kubernetes,
        "charms": [
            {"app": c.app, "charm": c.charm, "channel": c.channel, "revision": c.revision}
            for c in sorted(v.charms, key=lambda c: c.app)
        ],
    }


def to_json_dict(evidence: Evidence) -> dict[str, Any]:
    e = evidence
    data: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "scenario": e.scenario,
        "disruption": e.disruption,
        "backend": e.backend,
        "simulated": e.simulated,
        "juju_version": e.juju_version,
        "juju_notes": list(e.juju_notes),
        "versions": versions_to_json(e.versions),
        "steps": [
            {"name": s.name, "start": s.start, "end": s.end, "detail": s.detail} for s in e.steps
        ],
        "before": snapshot_to_json(e.before) if e.before else None,
        "after": snapshot_to_json(e.after) if e.after else None,
        "hooks": [hook_to_json(h) for h in e.hooks],
        "expected_hooks": list(e.expected_hooks),
        "branch": e.branch,
        "disruption_detail": e.disruption_detail,
        "findings": [
            {
                "check": f.check,
                "subject": f.subject,
                "expected": f.expected,
                "observed": f.observed,
                "verdict": f.verdict,
                "source": f.source,
                "detail": f.detail,
            }
            for f in e.findings
        ],
        "commands": list(e.commands),
        "error": e.error,
        "interrupted": e.interrupted,
        "charm_errors": [c.to_json() for c in e.charm_errors],
    }
    if e.bundle is not None:  # additive: bundles from the default stack do not carry it
        data["bundle"] = e.bundle.to_json()
    if e.redact:  # additive: only runs given --redact carry it
        data["redact"] = list(e.redact)
    if e.disrupted:  # additive: bundles written before it do not carry it
        data["disrupted"] = list(e.disrupted)
    return data


def to_json(evidence: Evidence) -> str:
    """Deterministic JSON text (the exact content of bundle.json)."""
    text = json.dumps(to_json_dict(evidence), sort_keys=True, indent=2, ensure_ascii=False)
    return text + "\n"


# --- from JSON -------------------------------------------------------------------------


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _snapshot_from(raw: Mapping[str, Any]) -> Snapshot:
    return Snapshot(
        taken_at=raw["taken_at"],
        pods=tuple(
            PodIdentity(
                unit=p["unit"],
                name=p["name"],
                uid=p["uid"],
                phase=p["phase"],
                node=p.get("node"),
                start_time=p.get("start_time"),
                containers=tuple(
                    ContainerStatus(
                        name=c["name"],
                        restart_count=int(c["restart_count"]),
                        ready=bool(c["ready"]),
                        container_id=c.get("container_id"),
                        started_at=c.get("started_at"),
                        last_termination=c.get("last_termination"),
                    )
                    for c in p.get("containers", ())
                ),
            )
            for p in raw.get("pods", ())
        ),
        files=tuple(_file_from(f) for f in raw.get("files", ())),
        relations=tuple(
            Databag(
                relation_id=int(b["relation_id"]),
                endpoint=b["endpoint"],
                remote_endpoint=b.get("remote_endpoint"),
                owner=b["owner"],
                scope=b["scope"],
                seen_by=b["seen_by"],
                source=b["source"],
                data={str(k): str(v) for k, v in b.get("data", {}).items()},
            )
            for b in raw.get("relations", ())
        ),
        statuses=tuple(
            UnitStatus(
                unit=u["unit"],
                workload=u["workload"],
                workload_message=u["workload_message"],
                agent=u["agent"],
                leader=bool(u["leader"]),
            )
            for u in raw.get("statuses", ())
        ),
        journal=tuple(
            JournalEntry(
                seq=int(j["seq"]),
                time=j["time"],
                event=j["event"],
                unit=j["unit"],
                juju_version=j.get("juju_version"),
                dispatch_path=j.get("dispatch_path"),
                pod=j.get("pod"),
                root_incarnation=j["root_incarnation"],
                root_incarnation_new=bool(j["root_incarnation_new"]),
                charm_dir_incarnation=j["charm_dir_incarnation"],
                charm_dir_incarnation_new=bool(j["charm_dir_incarnation_new"]),
                workload_marker=j["workload_marker"],
                leader=bool(j["leader"]),
                databags={str(k): str(v) for k, v in j.get("databags", {}).items()},
                local_state_survived=bool(j["local_state_survived"]),
                controller_state_survived=bool(j["controller_state_survived"]),
                buffered=bool(j.get("buffered", False)),
            )
            for j in raw.get("journal", ())
        ),
    )


def from_json_dict(raw: Mapping[str, Any]) -> Evidence:
    """The inverse of ``to_json_dict``; validate ``raw`` first (``validate``)."""
    v = raw["versions"]
    return Evidence(
        scenario=raw["scenario"],
        backend=raw["backend"],
        simulated=bool(raw["simulated"]),
        versions=Versions(
            juju_client=_opt_str(v.get("juju_client")),
            juju_controller=_opt_str(v.get("juju_controller")),
            juju_agent=_opt_str(v.get("juju_agent")),
            microk8s=_opt_str(v.get("microk8s")),
            kubernetes=_opt_str(v.get("kubernetes")),
            juju_driver=_opt_str(v.get("juju_driver")),
            model_config=tuple(
                (str(k), str(val)) for k, val in sorted((v.get("model_config") or {}).items())
            ),
            model_config_from=_opt_str(v.get("model_config_from")),
            charms=tuple(
                CharmVersion(
                    app=c["app"],
                    charm=c["charm"],
                    channel=c.get("channel"),
                    revision=c.get("revision"),
                )
                for c in v.get("charms", ())
            ),
        ),
        steps=tuple(
            Step(name=s["name"], start=s["start"], end=s["end"], detail=s.get("detail", ""))
            for s in raw["steps"]
        ),
        before=_snapshot_from(raw["before"]) if raw.get("before") else None,
        after=_snapshot_from(raw["after"]) if raw.get("after") else None,
        hooks=tuple(
            HookRecord(
                unit=h["unit"],
                time=h["time"],
                kind=h["kind"],
                source=cast(HookSource, h["source"]),
                hook=h.get("hook"),
                outcome=cast("Outcome | None", h.get("outcome")),
                detail=h.get("detail", ""),
            )
            for h in raw["hooks"]
        ),
        findings=tuple(
            Finding(
                check=cast(Check, f["check"]),
                subject=f["subject"],
                expected=f["expected"],
                observed=f["observed"],
                verdict=cast(Verdict, f["verdict"]),
                source=f["source"],
                detail=f.get("detail", ""),
            )
            for f in raw["findings"]
        ),
        commands=tuple(raw["commands"]),
        disruption=raw.get("disruption"),
        juju_version=raw.get("juju_version"),
        juju_notes=tuple(raw.get("juju_notes", ())),
        expected_hooks=tuple(raw.get("expected_hooks", ())),
        branch=raw.get("branch", ""),
        disruption_detail=raw.get("disruption_detail", ""),
        error=raw.get("error"),
        bundle=UserBundle.from_json(raw["bundle"]) if raw.get("bundle") else None,
        interrupted=bool(raw.get("interrupted", False)),
        redact=tuple(str(k) for k in raw.get("redact", ())),
        disrupted=tuple(str(a) for a in raw.get("disrupted", ())),
        charm_errors=tuple(CharmError.from_json(c) for c in raw.get("charm_errors", ())),
    )


# --- schema ----------------------------------------------------------------------------


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema bundle.json follows, as shipped in the package."""
    text = resources.files("harness.evidence").joinpath("schema.json").read_text("utf-8")
    return cast(dict[str, Any], json.loads(text))


def schema_errors(raw: object) -> list[str]:
    """Every way ``raw`` breaks the schema, as ``path: message`` lines (empty when valid)."""
    import jsonschema  # type: ignore[import-untyped]  # no py.typed; imported when needed

    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(raw), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}" for e in errors]


# --- folders ---------------------------------------------------------------------------


def bundle_file(location: Path | str) -> Path:
    """bundle.json for a bundle folder, or the file itself."""
    path = Path(location)
    return path if path.is_file() else path / BUNDLE_FILE


def read_bundle(location: Path | str) -> Evidence:
    """Read and validate a bundle folder (or its bundle.json); HarnessError when unusable."""
    path = bundle_file(location)
    if not Path(location).exists():
        raise HarnessError(f"no such bundle folder: {location}", "pass a folder repro run wrote")
    if path.exists() and not path.is_file():
        # A FIFO or a link to /dev/zero named bundle.json would be read forever.
        raise HarnessError(f"{path} is not a regular file", "pass a folder that repro run wrote")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise HarnessError(
            f"no {BUNDLE_FILE} in {location}", "pass a folder that repro run wrote"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise HarnessError(f"cannot read {path}: {exc}", "check the file") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HarnessError(
            f"{path} is not JSON (line {exc.lineno}: {exc.msg})", "re-run repro run to rewrite it"
        ) from None
    except RecursionError:
        raise HarnessError(
            f"{path} is nested too deeply to be a bundle", "re-run repro run to rewrite it"
        ) from None
    errors = schema_errors(raw)
    if errors:
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        raise HarnessError(
            f"{path} does not follow the bundle schema: {errors[0]}{more}",
            "re-run repro run with this version of the harness to rewrite it",
        )
    return from_json_dict(raw)
