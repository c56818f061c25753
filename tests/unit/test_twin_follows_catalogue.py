"""The twin follows the catalogue exactly, through both of its entry points.

For every disruption the twin runs, every catalogued branch of it, and every version
boundary, one unit test per (branch, version) puts ``marker_charm.MarkerCharm`` through it
with ``run_disruption`` (a leader and a non-leader) and with the lab behind ``repro run
--backend twin`` (``make_lab``: unit 0 leads, unit 1 does not; at the first version of
each distinct behaviour), and checks against the catalogue entry:

- the hooks: judged by the verdict's own matcher (required hooks in order, placed hooks
  where allowed, nothing unexpected), and every hook the entry lists for that leadership
  present in that order;
- filesystem survival: a marker in the workload container's root, one on the storage
  volume, one in local StoredState (the charm directory), against ``survives``;
- relation-data survival: the unit's databags against ``relation_data``, the
  application's against ``app_relation_data``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from marker_charm import META, MarkerCharm
from ops import testing

from harness.catalogue import load
from harness.catalogue.model import Expectation
from harness.common.versions import JujuVersion
from harness.lab.ports import AppSpec, Lab
from harness.twin import TwinResult, make_lab, run_disruption
from harness.twin.charms import CharmSource
from harness.verdict.hooks import judge_sequence

VERSIONS = ("2.9.0", "2.9.4", "2.9.32", "2.9.37", "2.9.43", "3.1.2", "3.1.3", "3.3", "3.5")
VERSIONS += ("3.6", "4.0")
# The ranges issue 23 changed: Pebble as PID 1 from 2.9.35, PR 15224's re-queue from 2.9.42,
# a series' pre-releases with their series (3.0-beta4 before PR 14635 reached 3.0, 3.3-beta1,
# 3.5-beta1), and Juju 3.2.0 with the 3.2 pre-releases before PR 15313 (the seed's
# 3.2-beta3), up to 3.2.1.
VERSIONS += ("2.9.35", "2.9.42", "3.0-beta4", "3.2-beta3", "3.2.0", "3.2.1", "3.3-beta1")
VERSIONS += ("3.5-beta1",)
# Ranges no version above fell in (test_every_range_of_the_catalogue_has_a_listed_version):
# 3.0-rc2 (PR 14635's first pre-release) to 3.1.2, and 3.4 to 3.5-beta1.
VERSIONS += ("3.0-rc2", "3.4")
DISRUPTIONS = (
    "pod-delete",
    "node-restart",
    "pod-spec-change",
    "container-restart",
    "charm-refresh",
    "scale-down-up",
)
ENDPOINTS = ("db", "peers")
MARK = "kept"


def cases() -> list[Any]:
    catalogue = load()
    found = []
    for version in VERSIONS:
        for disruption in DISRUPTIONS:
            for entry in catalogue.branches(disruption, version):
                found.append(
                    pytest.param(disruption, entry.variant, version, id=f"{entry.label}@{version}")
                )
    return found


def lab_cases() -> list[Any]:
    """The first version of each distinct behaviour (hooks, placement, survival, names):
    the lab runs the same engine, and a whole model for every version would triple the
    suite's time."""
    seen: set[tuple[Any, ...]] = set()
    found = []
    for case in cases():
        entry = expectation_for(*case.values)
        shape = (
            entry.disruption,
            entry.variant,
            entry.hooks,
            entry.optional,
            tuple(sorted(entry.survives.items())),
            entry.relation_data,
            entry.unit_name,
            entry.pebble_state,
        )
        if shape not in seen:
            seen.add(shape)
            found.append(case)
    return found


def test_every_listed_version_and_disruption_is_covered() -> None:
    covered = {(p.values[0], p.values[2]) for p in cases()}
    assert covered == {(d, v) for d in DISRUPTIONS for v in VERSIONS}


def test_every_range_of_the_catalogue_has_a_listed_version() -> None:
    """A range the catalogue splits or adds is run here, or this fails (issue 23)."""
    listed = [JujuVersion.parse(v) for v in VERSIONS]
    empty = [
        e.label
        for e in load().entries
        if e.disruption in DISRUPTIONS and not any(e.covers(v) for v in listed)
    ]
    assert not empty, f"no version in VERSIONS falls in: {empty}"


def expectation_for(disruption: str, variant: str | None, version: str) -> Expectation:
    return load().expect(disruption, JujuVersion.parse(version), variant=variant)


def target_of(expectation: Expectation) -> str | None:
    if expectation.scope != "container":
        return None
    return "charm" if expectation.container == "charm" else "app"


def check_hooks(
    expectation: Expectation,
    observed: Sequence[str],
    *,
    leader: bool,
    endpoints: Sequence[str],
    subject: str,
) -> None:
    names: dict[str, Any] = {"containers": ["app"], "endpoints": endpoints, "storages": ["data"]}
    finding = judge_sequence(expectation, observed, subject=subject, leader=leader, **names)
    assert finding.verdict == "match", f"{subject}: {finding.detail}"
    listed = iter(observed)
    for hook in expectation.expected_sequence(leader=leader, **names):
        assert hook in listed, f"{subject}: {hook} missing or out of order in {list(observed)}"


def check_survival(
    expectation: Expectation,
    *,
    root: bool,
    volume: bool,
    stored: bool,
    unit_bags: bool,
    app_bag: bool,
    subject: str,
) -> None:
    target = target_of(expectation)
    root_kept = expectation.survives["container-root"] or target == "charm"
    assert root is root_kept, f"{subject}: workload root marker"
    assert volume is expectation.survives["storage"], f"{subject}: storage marker"
    assert stored is expectation.survives["charm-dir"], f"{subject}: StoredState marker"
    assert unit_bags is (expectation.relation_data == "kept"), f"{subject}: unit databags"
    assert app_bag is (expectation.app_relation_data == "kept"), f"{subject}: app databag"


# ----------------------------------------------------------------------- run_disruption


def marked_unit(folder: Path, *, leader: bool) -> testing.State:
    for name in ("srv", "data"):
        (folder / name).mkdir(parents=True)
        (folder / name / "marker").write_text(MARK)
    mark = {"marker": MARK}
    return testing.State(
        leader=leader,
        containers={
            testing.Container(
                "app",
                can_connect=True,
                mounts={
                    "srv": testing.Mount(location="/srv", source=folder / "srv"),
                    "data": testing.Mount(location="/data", source=folder / "data"),
                },
            )
        },
        storages={testing.Storage("data")},
        stored_states={testing.StoredState(owner_path="MarkerCharm", content={"marker": MARK})},
        relations={
            testing.Relation(
                "db",
                remote_app_name="mysql-k8s",
                local_unit_data=dict(mark),
                local_app_data=dict(mark),
                remote_units_data={0: {}},
            ),
            testing.PeerRelation(
                "peers", local_unit_data=dict(mark), local_app_data=dict(mark), peers_data={1: {}}
            ),
        },
    )


def stored_marker(result: TwinResult) -> str:
    for stored in result.state.stored_states:
        if stored.owner_path == "MarkerCharm":
            return str(stored.content.get("marker", ""))
    return ""


@pytest.mark.parametrize(("disruption", "variant", "version"), cases())
@pytest.mark.parametrize("leader", [True, False], ids=["leader", "non-leader"])
def test_run_disruption_follows_the_catalogue(
    tmp_path: Path, disruption: str, variant: str | None, version: str, leader: bool
) -> None:
    expectation = expectation_for(disruption, variant, version)
    result = run_disruption(
        testing.Context(MarkerCharm, meta=META),
        marked_unit(tmp_path, leader=leader),
        disruption,
        version,
        variant=variant,
        storage_mounts={"data"},
    )
    subject = f"run_disruption {expectation.label} on {version}, leader={leader}"
    assert result.variant == expectation.variant
    # Skipped hooks (no ops.testing constructor) are in the trace, in place.
    observed = [t.hook for t in result.trace if not t.step.startswith("new unit")]
    check_hooks(expectation, observed, leader=leader, endpoints=ENDPOINTS, subject=subject)
    if expectation.new_units is not None:
        arrival = [t.hook for t in result.trace if t.step == "new unit: deploy"]
        check_hooks(
            expectation.new_units, arrival, leader=leader, endpoints=ENDPOINTS, subject=subject
        )
        same = expectation.unit_name in ("kept", "reused")
        assert (result.unit == "marker/0") is same, subject
    bags = {r.endpoint: r for r in result.state.relations}
    check_survival(
        expectation,
        root=result.read_text("app", "/srv/marker") == MARK,
        volume=result.read_text("app", "/data/marker") == MARK,
        stored=stored_marker(result) == MARK,
        unit_bags=all(bags[e].local_unit_data.get("marker") == MARK for e in ENDPOINTS),
        app_bag=bags["peers"].local_app_data.get("marker") == MARK,
        subject=subject,
    )


# ---------------------------------------------------------------------------- the lab


async def disrupt_lab(lab: Lab, disruption: str, expectation: Expectation) -> None:
    pods = ("marker-1", "marker-0")
    if disruption == "pod-delete":
        for pod in pods:
            await lab.cluster.delete_pod(pod)
    elif disruption == "node-restart":
        await lab.node.stop()
        await lab.node.start()
    elif disruption == "pod-spec-change":
        await lab.cluster.patch_pod_template("marker", {"example.com/changed": "1"})
    elif disruption == "container-restart":
        for pod in pods:
            signal = expectation.signals[0] if expectation.signals else "TERM"
            await lab.cluster.kill_pid1(pod, target_of(expectation) or "app", signal)
    elif disruption == "charm-refresh":
        await lab.juju.refresh("marker")
    else:
        await lab.juju.scale("marker", 0)
        await lab.juju.scale("marker", 2)


@pytest.mark.parametrize(("disruption", "variant", "version"), lab_cases())
async def test_the_lab_follows_the_catalogue(
    tmp_path: Path, disruption: str, variant: str | None, version: str
) -> None:
    expectation = expectation_for(disruption, variant, version)
    lab = make_lab(
        juju_version=version,
        workdir=tmp_path,
        charms={"marker": CharmSource("marker", MarkerCharm, META)},
        variants={disruption: variant} if variant else None,
    )
    await lab.juju.deploy(AppSpec(app="marker", charm="marker", units=2))
    units = ("marker/0", "marker/1")
    for unit in units:
        await lab.juju.run_action(unit, "mark")
        pod = unit.replace("/", "-")
        for path in ("/srv/marker", "/data/marker"):
            await lab.cluster.write_file(pod, "app", path, MARK)
    juju: Any = lab.juju
    start = len(juju.hook_records())
    await disrupt_lab(lab, disruption, expectation)
    records = juju.hook_records()[start:]
    for unit, leader in zip(units, (True, False), strict=True):
        subject = f"lab {expectation.label} on {version}, {unit}"
        observed = [r.hook for r in records if r.unit == unit and r.kind == "hook"]
        if expectation.new_units is not None:
            cut = observed.index("remove") + 1
            observed, arrival = observed[:cut], observed[cut:]
            check_hooks(
                expectation.new_units,
                arrival,
                leader=leader,
                endpoints=("peers",),
                subject=subject,
            )
        check_hooks(expectation, observed, leader=leader, endpoints=("peers",), subject=subject)
        pod = unit.replace("/", "-")
        files = {
            f.path: f.exists
            for f in await lab.cluster.list_files(pod, "app", ["/srv/marker", "/data/marker"])
        }
        stored = (await lab.juju.run_action(unit, "read")).results["stored"]
        bags = await lab.juju.unit_relations(unit)
        own = [b for b in bags if b.owner == unit]
        app = [b for b in bags if b.owner == "marker" and b.scope == "app"]
        check_survival(
            expectation,
            root=files["/srv/marker"],
            volume=files["/data/marker"],
            stored=stored == MARK,
            unit_bags=bool(own) and all(b.data.get("marker") == MARK for b in own),
            app_bag=bool(app) and all(b.data.get("marker") == MARK for b in app),
            subject=subject,
        )
