"""Hand-built evidence for the evidence, report, SVG, matrix and CLI tests."""

from __future__ import annotations

from dataclasses import replace

from harness.common.findings import Finding
from harness.common.observations import (
    ContainerStatus,
    Databag,
    FileState,
    HookRecord,
    PodIdentity,
    Snapshot,
    Step,
    UnitStatus,
)
from harness.common.versions import CharmVersion, Versions
from harness.evidence.model import Evidence

ROUTER_UNIT = "mysql-router-k8s/0"
PROBE_UNIT = "probe/0"
PASSWORD = "s3cr3t-passw0rd-value"
BUG = "https://bugs.launchpad.net/juju/+bug/2021891"
DOCS = "https://juju.is/docs/sdk/a-charms-life"


def pod(unit: str, uid: str, restarts: int) -> PodIdentity:
    return PodIdentity(
        unit=unit,
        name=unit.replace("/", "-"),
        uid=uid,
        phase="Running",
        containers=(
            ContainerStatus("charm", restarts, True),
            ContainerStatus("workload", restarts, True),
        ),
    )


def databag(data: dict[str, str], relation_id: int = 3) -> Databag:
    return Databag(
        relation_id=relation_id,
        endpoint="database",
        remote_endpoint="database",
        owner="mysql-router-k8s",
        scope="app",
        seen_by=PROBE_UNIT,
        source="show-unit",
        data=data,
    )


def snapshots() -> tuple[Snapshot, Snapshot]:
    before = Snapshot(
        taken_at="2026-01-01T10:00:00+00:00",
        pods=(pod(PROBE_UNIT, "aaaaaaaa-1111", 0), pod(ROUTER_UNIT, "bbbbbbbb-2222", 0)),
        files=(
            FileState(PROBE_UNIT, "workload", "/probe/workload-marker", "sha256:" + "a" * 64),
            FileState(ROUTER_UNIT, "mysql-router", "/etc/mysqlrouter", "dir"),
            FileState(PROBE_UNIT, "charm", "/tmp/probe/root-incarnation", "sha256:" + "c" * 64),
        ),
        relations=(
            databag({"database": "probe", "password": PASSWORD, "endpoints": "10.0.0.1:6446"}),
            databag({"database": "probe"}, relation_id=4),
        ),
        statuses=(UnitStatus(PROBE_UNIT, "active", "", "idle", True),),
    )
    after = replace(
        before,
        taken_at="2026-01-01T10:02:00+00:00",
        pods=(pod(PROBE_UNIT, "cccccccc-3333", 0), pod(ROUTER_UNIT, "dddddddd-4444", 0)),
        files=(
            FileState(PROBE_UNIT, "workload", "/probe/workload-marker", "absent"),
            FileState(ROUTER_UNIT, "mysql-router", "/etc/mysqlrouter", "absent"),
            FileState(PROBE_UNIT, "charm", "/tmp/probe/root-incarnation", "sha256:" + "c" * 64),
        ),
        relations=(
            databag({"database": "probe", "password": PASSWORD, "endpoints": "10.0.0.2:6446"}),
            databag({"database": "probe"}, relation_id=4),
        ),
    )
    return before, after


def hooks() -> tuple[HookRecord, ...]:
    sequence = ("stop", "upgrade-charm", "config-changed", "start")
    records = [
        HookRecord(PROBE_UNIT, f"2026-01-01T10:00:{10 + i:02d}+00:00", "hook", "journal", h, "ok")
        for i, h in enumerate(sequence)
    ]
    records += [
        HookRecord(
            ROUTER_UNIT, f"2026-01-01T10:00:{20 + i:02d}+00:00", "hook", "debug-log", h, "ok"
        )
        for i, h in enumerate(sequence[:-1])
    ]
    records.append(
        HookRecord(
            ROUTER_UNIT, "2026-01-01T10:00:30+00:00", "hook", "debug-log", "start", "failed", "x"
        )
    )
    return tuple(records)


def findings() -> tuple[Finding, ...]:
    return (
        Finding(
            "hooks",
            PROBE_UNIT,
            "stop, upgrade-charm, config-changed, start",
            "stop, upgrade-charm, config-changed, start",
            "match",
            DOCS,
        ),
        Finding(
            "hooks",
            ROUTER_UNIT,
            "stop, upgrade-charm, config-changed, start",
            "stop, upgrade-charm, config-changed, start (failed)",
            "deviation",
            DOCS,
        ),
        Finding(
            "file",
            f"{ROUTER_UNIT} mysql-router:/etc/mysqlrouter",
            "present",
            "absent",
            "known-bug",
            BUG,
        ),
        Finding(
            "relation",
            f"database:3 {PROBE_UNIT}",
            "kept",
            f"kept (password={PASSWORD})",  # a verdict that forgot to redact
            "match",
            DOCS,
        ),
    )


def steps() -> tuple[Step, ...]:
    return (
        Step("snapshot before", "2026-01-01T09:59:50+00:00", "2026-01-01T10:00:00+00:00"),
        Step(
            "delete pod probe-0",
            "2026-01-01T10:00:05+00:00",
            "2026-01-01T10:00:08+00:00",
            "kubectl delete pod",
        ),
        Step("wait settled", "2026-01-01T10:00:08+00:00", "2026-01-01T10:01:50+00:00"),
    )


def versions(juju: str = "3.6.1") -> Versions:
    return Versions(
        juju_client=juju,
        juju_controller=juju,
        juju_agent=juju,
        microk8s=None,
        kubernetes="v1.31.2",
        charms=(
            CharmVersion("probe", "./probe.charm", None, None),
            CharmVersion("mysql-router-k8s", "mysql-router-k8s", "8.0/edge", 530),
        ),
    )


def evidence(
    *, backend: str = "twin", juju: str = "3.6.1", deviation: bool = True, **changes: object
) -> Evidence:
    before, after = snapshots()
    found = findings()
    if not deviation:
        found = tuple(
            replace(f, verdict="match") if f.verdict == "deviation" else f for f in found
        )
    value = Evidence(
        scenario="lp2021891-pod-delete",
        backend="twin" if backend == "twin" else "live",
        simulated=backend == "twin",
        versions=versions(juju),
        steps=steps(),
        before=before,
        after=after,
        hooks=hooks(),
        findings=found,
        commands=(
            "juju deploy ./probe.charm probe",
            "kubectl -n test delete pod probe-0",
        ),
        disruption="pod-delete",
        juju_version=juju,
        expected_hooks=("stop", "upgrade-charm", "config-changed", "start"),
    )
    return replace(value, **changes)  # type: ignore[arg-type]
