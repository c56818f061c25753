"""Every disruption, then settle, through the hostile world on a fake clock.

The world (``live_fakes.HostileWorld``) lets a deleted pod linger Terminating, leaves a gap
with no pod, rolls one ordinal at a time from the highest, keeps a unit's old ``idle``
status until its new agent reports, backs agents off after a node restart, and answers
503 / refused / "cannot connect to API" while MicroK8s starts. "Settled" must mean that
nothing more was coming: the test lets ten more minutes pass and checks no disrupted unit
logs another hook.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from live_fakes import FakeClock, HostileWorld, pod

from harness.common.observations import Step
from harness.disrupt import get
from harness.observe.settle import pod_ready, wait_settled
from harness.scenario.scenarios import Target

NEW_POD = ("upgrade-charm", "config-changed", "start")

# disruption, target, units disrupted, hooks each must run (what the catalogue requires)
CASES = [
    ("pod-delete", Target("probe", ("probe/0",)), ("probe/0",), NEW_POD),
    ("node-restart", Target("probe"), ("probe/0", "probe/1"), ("start",)),
    ("pod-spec-change", Target("probe"), ("probe/0", "probe/1"), NEW_POD),
    ("charm-pod-spec-change", Target("probe"), ("probe/0", "probe/1"), NEW_POD),
    (
        "resource-refresh",
        Target("probe", resource="workload-image=ubuntu/nginx:1.18"),
        ("probe/0", "probe/1"),
        NEW_POD,
    ),
    (
        "container-restart",
        Target("probe", ("probe/1",), container="workload"),
        ("probe/1",),
        ("workload-pebble-ready",),
    ),
    ("charm-refresh", Target("probe"), ("probe/0", "probe/1"), NEW_POD),
    ("scale-down-up", Target("probe"), ("probe/0", "probe/1"), ("install", "start")),
]


@pytest.mark.parametrize(("name", "target", "units", "hooks"), CASES, ids=[c[0] for c in CASES])
async def test_settled_means_every_disrupted_unit_ran_its_hooks_and_nothing_follows(
    name: str, target: Target, units: tuple[str, ...], hooks: tuple[str, ...]
) -> None:
    clock = FakeClock()
    world = HostileWorld(clock)
    lab = world.lab()
    before = dict(world.pods)
    since = clock.now()
    already = {unit: len(world.hooks_of(unit)) for unit in units}
    await get(name, charm_path="/c/probe.charm").apply(lab, target)
    step = await wait_settled(
        lab,
        ("probe",),
        {"probe": 2},
        disrupted={unit: before.get(unit) for unit in units},
        since=since,
        required_hooks=hooks,
        quiet_for=20,
        timeout=3600,
    )
    for unit in units:
        ran = world.hooks_of(unit)[already[unit] :]
        assert [h for h in ran if h in hooks][-len(hooks) :] == list(hooks), (unit, ran)
    assert "never ran" not in step.detail
    settled_log = len(world.log)
    await clock.sleep(600)  # nothing more was on its way
    assert world.log[settled_log:] == []
    assert all(pod_ready(p) for p in world.pods.values())


async def settle_after_deleting_probe_0(world: HostileWorld, hooks: tuple[str, ...]) -> Step:
    before = dict(world.pods)
    since = world.clock.now()
    await get("pod-delete").apply(world.lab(), Target("probe", ("probe/0",)))
    return await wait_settled(
        world.lab(),
        ("probe",),
        {"probe": 2},
        disrupted={"probe/0": before["probe/0"]},
        since=since,
        required_hooks=hooks,
        hooks_timeout=300,
        timeout=3600,
    )


async def test_a_unit_that_never_runs_a_required_hook_is_named_not_waited_for_forever() -> None:
    clock = FakeClock()
    world = HostileWorld(clock)
    step = await settle_after_deleting_probe_0(world, (*NEW_POD, "leader-elected"))
    assert "never ran: probe/0 leader-elected" in step.detail
    assert clock.elapsed < 600


async def test_a_unit_without_uniter_lines_settles_on_ops_event_lines() -> None:
    """A model whose logging-config drops the uniter's lines but keeps the charms' DEBUG
    lines: settling sees the required hooks in ops' event lines, not a ten-minute give-up."""
    clock = FakeClock()
    world = HostileWorld(clock)
    world.uniter_lines, world.ops_lines = False, True
    step = await settle_after_deleting_probe_0(world, NEW_POD)
    assert "never ran" not in step.detail
    assert not [line for line in world.log if 'ran "' in line]  # only ops' lines existed
    assert clock.elapsed < 300


def test_a_terminating_pod_is_never_ready() -> None:
    running = pod("probe/0", "uid-a")
    assert pod_ready(running)
    assert not pod_ready(replace(running, deletion_timestamp="2026-01-02T03:04:05+00:00"))


async def test_charm_refresh_waits_for_the_pods_to_roll_not_for_the_revision() -> None:
    clock = FakeClock()
    world = HostileWorld(clock)
    old = {p.uid for p in world.pods.values()}
    await get("charm-refresh", charm_path="/c/probe.charm").apply(world.lab(), Target("probe"))
    now = world.pods.values()
    assert len(now) == 2
    assert all(p.uid not in old and pod_ready(p) for p in now)


async def test_a_look_at_a_long_log_costs_what_is_new_not_the_history() -> None:
    clock = FakeClock()
    world = HostileWorld(clock)
    for n in range(100_000):  # an hour-old model's hook lines
        stamp = f"02:{n // 6000 % 60:02d}:{n // 100 % 60:02d}.{n % 1000:03d}"
        world.log.append(
            f"unit-mysql-k8s-0: 2026-01-02 {stamp} INFO juju.worker.uniter.operation"
            ' ran "update-status" hook (via hook dispatching script: dispatch)'
        )
        # and its charms' chatter at DEBUG, on a model that keeps unit DEBUG lines
        world.ops_log.append(
            f"unit-mysql-k8s-0: 2026-01-02 {stamp} DEBUG unit.mysql-k8s/0.juju-log"
            " Checking cluster status"
        )
    world.ops_lines = True
    before = dict(world.pods)
    since = clock.now()
    await get("pod-delete").apply(world.lab(), Target("probe", ("probe/0",)))
    await wait_settled(
        world.lab(),
        ("probe",),
        {"probe": 2},
        disrupted={"probe/0": before["probe/0"]},
        since=since,
        required_hooks=NEW_POD,
    )
    assert max(world.lines_served) <= 800  # never the 100,000 lines, in either stream


async def test_charm_pod_spec_change_sets_the_option_only_once_the_trust_arrived() -> None:
    clock = FakeClock()
    world = HostileWorld(clock)
    steps = await get("charm-pod-spec-change").apply(world.lab(), Target("probe"))
    assert world.juju.configured_at >= world.juju.trusted_at + 15
    assert [s.name for s in steps][:3] == [
        "juju trust probe --scope=cluster",
        "wait for probe to see the trust (config-changed)",
        "juju config probe pod-template-annotation",
    ]


def deployed_long_ago(world: HostileWorld, units: tuple[str, ...]) -> None:
    """What each unit logged when the model was deployed, an hour before the disruption:
    its agent's start and its first hooks (fewer lines than one look reads)."""
    for unit in units:
        tag = "unit-" + unit.replace("/", "-")
        world.log.append(
            f"{tag}: 2026-01-02 02:04:05.000 INFO juju.cmd running containerAgent [3.6.1 abc]"
        )
        for n, name in enumerate(
            ("install", "leader-elected", "config-changed", "upgrade-charm", "start")
        ):
            world.log.append(
                f"{tag}: 2026-01-02 02:04:{10 + n}.000 INFO juju.worker.uniter.operation"
                f' ran "{name}" hook (via hook dispatching script: dispatch)'
            )


@pytest.mark.parametrize(
    ("name", "target", "units", "hooks", "pods_known"),
    [
        ("node-restart", Target("probe"), ("probe/0", "probe/1"), ("start",), True),
        ("pod-delete", Target("probe", ("probe/0",)), ("probe/0",), NEW_POD, False),
    ],
    ids=["node-restart", "pod-delete-pod-unknown-before"],
)
async def test_deploy_time_lines_are_not_taken_for_the_new_incarnation(
    name: str, target: Target, units: tuple[str, ...], hooks: tuple[str, ...], pods_known: bool
) -> None:
    """The model's deploy-time agent start and hooks are in the log: settling must still
    wait for what the disrupted units run after the disruption. Without the pod from
    before, only a new agent-start line can show the new incarnation."""
    clock = FakeClock()
    world = HostileWorld(clock)
    deployed_long_ago(world, units)
    before = dict(world.pods)
    since = clock.now()
    deployed = {unit: len(world.hooks_of(unit)) for unit in units}
    await get(name, charm_path="/c/probe.charm").apply(world.lab(), target)
    step = await wait_settled(
        world.lab(),
        ("probe",),
        {"probe": 2},
        disrupted={unit: before[unit] if pods_known else None for unit in units},
        since=since,
        required_hooks=hooks,
        quiet_for=20,
        timeout=3600,
    )
    for unit in units:
        ran = world.hooks_of(unit)[deployed[unit] :]
        assert [h for h in ran if h in hooks][-len(hooks) :] == list(hooks), (unit, ran)
    assert "never ran" not in step.detail
    settled_log = len(world.log)
    await clock.sleep(600)
    assert world.log[settled_log:] == []
