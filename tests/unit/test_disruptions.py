"""Each disruption against in-memory ports: its commands, its waits, its timed steps.

node-restart's promise is tested the hard way: an exception raised between stop and start,
and a real SIGTERM delivered to this process while the node is down, both end with start.
"""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import replace

import pytest
from live_fakes import FakeClock, FakeCluster, FakeJuju, FakeNode, make_lab, pod, status

from harness.catalogue.names import NAMES
from harness.common.errors import HarnessError, UnknownName, WaitTimeout
from harness.common.observations import Step
from harness.disrupt import all_disruptions, get
from harness.disrupt.charm_pod_spec_change import OPTION
from harness.disrupt.pod_spec_change import ANNOTATION
from harness.disrupt.scale_down_up import ScaleDownUp
from harness.disrupt.steps import keeping_steps
from harness.live.signals import Interrupted
from harness.scenario.scenarios import Target


def probe_lab(
    clock: FakeClock | None = None, node: FakeNode | None = None
) -> tuple[FakeJuju, FakeCluster, FakeClock]:
    clock = clock or FakeClock()
    juju = FakeJuju(statuses_of=[status("probe/0", leader=True), status("probe/1")])
    cluster = FakeCluster(pods_of={"probe": [pod("probe/0", "uid-0"), pod("probe/1", "uid-1")]})
    return juju, cluster, clock


def assert_timed(steps: tuple[Step, ...]) -> None:
    for step in steps:
        assert step.start.endswith("+00:00")
        assert step.start <= step.end


# --- the registry --------------------------------------------------------------------------


def test_every_name_has_one_class_with_that_name_and_a_summary() -> None:
    disruptions = all_disruptions()
    assert tuple(d.name for d in disruptions) == NAMES
    for disruption in disruptions:
        assert get(disruption.name).name == disruption.name
        assert disruption.summary
    assert [d.name for d in disruptions if d.takes_node_down] == ["node-restart"]
    assert [d.name for d in disruptions if not d.for_any_charm] == ["charm-pod-spec-change"]


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownName) as raised:
        get("pod-explode")
    assert "'pod-explode'" in str(raised.value)
    assert "pod-delete" in str(raised.value)


def test_every_plan_is_concrete_commands_for_this_model_and_namespace() -> None:
    target = Target("probe", ("probe/0",), container="workload", resource="workload-image=nginx:2")
    for disruption in all_disruptions(charm_path="/charms/probe.charm"):
        plan = disruption.plan("m1", "m1", target)
        assert plan, disruption.name
        for command in plan:
            assert command.split()[0] in {"juju", "kubectl", "sudo"}, command
    assert get("pod-delete").plan("m1", "ns1", target)[0] == "kubectl -n ns1 delete pod probe-0"
    assert get("node-restart").plan("m1", "m1", target)[:2] == (
        "sudo microk8s stop",
        "sudo microk8s start",
    )
    assert get("charm-refresh", charm_path="/c/p.charm").plan("m1", "m1", target)[0] == (
        "juju refresh -m m1 probe --path /c/p.charm"
    )
    assert get("resource-refresh").plan("m1", "m1", target)[0] == (
        "juju refresh -m m1 probe --resource workload-image=nginx:2"
    )


# --- pod-delete ------------------------------------------------------------------------------


async def test_pod_delete_deletes_the_target_pods_and_waits_for_new_ready_ones() -> None:
    juju, cluster, clock = probe_lab()
    steps = await get("pod-delete").apply(
        make_lab(juju, cluster, clock=clock), Target("probe", ("probe/0",))
    )
    assert cluster.deleted == ["probe-0"]
    after = {p.unit: p.uid for p in cluster.pods_of["probe"]}
    assert after["probe/0"] != "uid-0"
    assert after["probe/1"] == "uid-1"
    assert [s.name for s in steps] == [
        "delete pod probe-0",
        "wait for a new Ready pod for probe/0",
    ]
    assert_timed(steps)


async def test_pod_delete_waits_until_the_new_pod_is_ready() -> None:
    juju, cluster, clock = probe_lab()

    def not_ready_until_60(c: FakeCluster) -> None:
        c.pods_of["probe"] = [
            replace(
                p, containers=tuple(replace(x, ready=clock.elapsed >= 60) for x in p.containers)
            )
            if p.uid not in ("uid-0", "uid-1")
            else p
            for p in c.pods_of["probe"]
        ]

    cluster.on_look = not_ready_until_60
    await get("pod-delete").apply(
        make_lab(juju, cluster, clock=clock), Target("probe", ("probe/0",))
    )
    assert clock.elapsed >= 60


async def test_pod_delete_of_an_unknown_unit_names_the_units_there_are() -> None:
    juju, cluster, clock = probe_lab()
    with pytest.raises(UnknownName) as raised:
        await get("pod-delete").apply(
            make_lab(juju, cluster, clock=clock), Target("probe", ("probe/7",))
        )
    assert str(raised.value) == (
        "unit probe/7 does not exist in model test-model (units: probe/0, probe/1)"
    )
    assert cluster.deleted == []


async def test_pod_delete_that_never_comes_back_times_out_with_the_pods_seen() -> None:
    juju, cluster, clock = probe_lab()

    async def no_op(name: str) -> None:
        cluster.deleted.append(name)

    cluster.delete_pod = no_op  # type: ignore[method-assign]
    with pytest.raises(WaitTimeout) as raised:
        await get("pod-delete").apply(
            make_lab(juju, cluster, clock=clock), Target("probe", ("probe/0",))
        )
    assert "probe-0 uid=uid-0" in raised.value.last_seen


async def test_a_pod_that_lingers_terminating_is_named_so_when_the_wait_times_out() -> None:
    # A pod held by a finalizer or a node that went away keeps phase Running and ready
    # containers for as long as it lingers: the timeout must say it is terminating.
    juju, cluster, clock = probe_lab()
    lingering = replace(
        cluster.pods_of["probe"][0], deletion_timestamp="2026-01-01T10:00:00+00:00"
    )

    async def linger(name: str) -> None:
        cluster.deleted.append(name)
        cluster.pods_of["probe"][0] = lingering

    cluster.delete_pod = linger  # type: ignore[method-assign]
    with pytest.raises(WaitTimeout) as raised:
        await get("pod-delete").apply(
            make_lab(juju, cluster, clock=clock), Target("probe", ("probe/0",))
        )
    assert (
        "probe-0 uid=uid-0 terminating since 2026-01-01T10:00:00+00:00" in raised.value.last_seen
    )


# --- node-restart ----------------------------------------------------------------------------


async def test_node_restart_stops_starts_waits_and_reconnects_in_that_order() -> None:
    juju, cluster, clock = probe_lab()
    node = FakeNode()
    steps = await get("node-restart").apply(make_lab(juju, cluster, node, clock), Target("probe"))
    assert node.calls == ["stop", "start", "wait_ready"]
    assert juju.reconnected == 1
    assert [s.name for s in steps] == [
        "microk8s stop",
        "microk8s start",
        "wait for MicroK8s ready",
        "wait for the Juju controller and reconnect",
    ]
    assert_timed(steps)


async def test_an_exception_between_stop_and_start_still_ends_with_start() -> None:
    from harness.disrupt.node_restart import NodeRestart

    juju, cluster, clock = probe_lab()
    node = FakeNode()

    async def fails_while_down() -> None:
        assert node.calls == ["stop"]
        raise RuntimeError("lost the SSH session")

    with pytest.raises(RuntimeError, match="lost the SSH session"):
        await NodeRestart(while_down=fails_while_down).apply(
            make_lab(juju, cluster, node, clock), Target("probe")
        )
    assert node.calls == ["stop", "start"]


async def test_sigterm_while_the_node_is_down_starts_it_and_restores_the_handler() -> None:
    from harness.disrupt.node_restart import NodeRestart

    juju, cluster, clock = probe_lab()
    node = FakeNode()
    before = signal.getsignal(signal.SIGTERM)

    async def terminated_while_down() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.Event().wait()  # only the signal ends this

    with pytest.raises(Interrupted) as raised:
        await asyncio.wait_for(
            NodeRestart(while_down=terminated_while_down).apply(
                make_lab(juju, cluster, node, clock), Target("probe")
            ),
            timeout=10,
        )
    assert node.calls == ["stop", "start"]
    assert raised.value.signal_name == "SIGTERM"  # the run reports it as this interruption
    assert "SIGTERM" in str(raised.value)
    assert "started again" in str(raised.value)
    assert signal.getsignal(signal.SIGTERM) == before


async def test_sigint_during_stop_waits_for_stop_then_starts() -> None:
    from harness.disrupt.node_restart import NodeRestart

    juju, cluster, clock = probe_lab()
    node = FakeNode(on_stop=lambda: os.kill(os.getpid(), signal.SIGINT))
    down: list[bool] = []
    # What was there before (SIG_IGN when tox runs as a background job, whose shell ignores
    # SIGINT; Python's default handler in a terminal) is what must be put back.
    before = signal.getsignal(signal.SIGINT)

    async def while_down() -> None:
        down.append(True)

    with pytest.raises(Interrupted, match="SIGINT"):
        await NodeRestart(while_down=while_down).apply(
            make_lab(juju, cluster, node, clock), Target("probe")
        )
    assert node.calls == ["stop", "start"]
    assert down == []  # the down time was skipped: start came first
    assert signal.getsignal(signal.SIGINT) is before


# --- template changes ------------------------------------------------------------------------


async def test_pod_spec_change_patches_an_annotation_and_waits_for_every_pod() -> None:
    juju, cluster, clock = probe_lab()
    steps = await get("pod-spec-change").apply(
        make_lab(juju, cluster, clock=clock), Target("probe")
    )
    ((app, annotations),) = cluster.patched
    assert app == "probe"
    assert annotations[ANNOTATION].startswith("pod-spec-change-2026")
    assert not {p.uid for p in cluster.pods_of["probe"]} & {"uid-0", "uid-1"}
    assert [s.name for s in steps] == [
        "patch statefulset probe pod template",
        "wait for every probe pod to be replaced",
    ]


async def test_charm_pod_spec_change_sets_the_probe_option() -> None:
    juju, cluster, clock = probe_lab()

    original = juju.set_config

    async def config_rolls_pods(app: str, values: dict[str, str]) -> None:
        await original(app, values)
        await cluster.patch_pod_template(app, {"probe": values[OPTION]})

    juju.set_config = config_rolls_pods  # type: ignore[method-assign]
    await get("charm-pod-spec-change").apply(make_lab(juju, cluster, clock=clock), Target("probe"))
    ((_, app, values),) = [c for c in juju.calls if c[0] == "config"]
    assert app == "probe"
    assert list(values) == [OPTION]
    assert values[OPTION].startswith("charm-pod-spec-change-")


async def test_resource_refresh_passes_the_new_image_and_waits_for_new_pods() -> None:
    juju, cluster, clock = probe_lab()
    original = juju.refresh

    async def refresh_rolls(app: str, **kwargs: object) -> None:
        await original(app, **kwargs)  # type: ignore[arg-type]
        await cluster.patch_pod_template(app, {})

    juju.refresh = refresh_rolls  # type: ignore[method-assign]
    await get("resource-refresh", charm_path="/c/probe.charm").apply(
        make_lab(juju, cluster, clock=clock),
        Target("probe", resource="workload-image=ubuntu/nginx:1.18-22.04_beta"),
    )
    assert (
        "refresh",
        "probe",
        "/c/probe.charm",
        None,
        {"workload-image": "ubuntu/nginx:1.18-22.04_beta"},
    ) in juju.calls


async def test_resource_refresh_without_a_resource_says_how_to_give_one() -> None:
    juju, cluster, clock = probe_lab()
    with pytest.raises(HarnessError, match="name=image"):
        await get("resource-refresh").apply(make_lab(juju, cluster, clock=clock), Target("probe"))


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("pod-spec-change", Target("probe")),
        ("charm-pod-spec-change", Target("probe")),
        ("resource-refresh", Target("probe", resource="workload-image=ubuntu/nginx:1.18")),
    ],
)
async def test_replacing_every_pod_of_an_app_with_none_is_refused(
    name: str, target: Target
) -> None:
    """With no pods, "every pod replaced" would hold at once: refuse rather than pass."""
    juju, clock = FakeJuju(), FakeClock()
    with pytest.raises(HarnessError, match="probe has no pods in namespace test-model"):
        await get(name).apply(make_lab(juju, FakeCluster(), clock=clock), target)
    assert not [c for c in juju.calls if c[0] in ("refresh", "config", "trust")]


# --- container-restart, charm-refresh, scale-down-up ----------------------------------------


async def test_container_restart_kills_pid1_and_waits_for_the_restart_count() -> None:
    juju, cluster, clock = probe_lab()
    steps = await get("container-restart").apply(
        make_lab(juju, cluster, clock=clock), Target("probe", ("probe/0",), container="workload")
    )
    assert cluster.killed == [("probe-0", "workload")]
    restarted = cluster.pods_of["probe"][0]
    assert restarted.uid == "uid-0"
    assert restarted.container("workload").restart_count == 1  # type: ignore[union-attr]
    assert [s.name for s in steps] == [
        "SIGTERM to PID 1 in probe-0/workload",
        "wait for probe-0/workload to restart",
    ]
    # The container and the signal are recorded with the step.
    assert steps[0].detail.startswith("container workload, signal TERM")
    assert cluster.signals == ["TERM"]


async def test_container_restart_passes_the_signal_it_was_given() -> None:
    juju, cluster, clock = probe_lab()
    target = Target("probe", ("probe/0",), container="charm", signal="sigkill")
    steps = await get("container-restart").apply(make_lab(juju, cluster, clock=clock), target)
    assert cluster.signals == ["KILL"]
    assert steps[0].name == "SIGKILL to PID 1 in probe-0/charm"
    assert get("container-restart").plan("m", "m", target) == (
        "# SIGKILL to PID 1 of probe-0/charm (twin only)",
    )
    with pytest.raises(HarnessError, match="unknown signal 'HUP'"):
        await get("container-restart").apply(
            make_lab(juju, cluster, clock=clock), replace(target, signal="HUP")
        )


async def test_container_restart_needs_a_container_that_exists() -> None:
    juju, cluster, clock = probe_lab()
    lab = make_lab(juju, cluster, clock=clock)
    with pytest.raises(HarnessError, match="needs a container name"):
        await get("container-restart").apply(lab, Target("probe", ("probe/0",)))
    with pytest.raises(HarnessError, match="containers: charm, workload"):
        await get("container-restart").apply(lab, Target("probe", ("probe/0",), container="nginx"))
    assert cluster.killed == []


async def test_charm_refresh_refreshes_the_same_charm_and_waits_for_the_pods_to_roll() -> None:
    juju, cluster, clock = probe_lab()
    original = juju.refresh

    async def refresh_rolls(app: str, **kwargs: object) -> None:
        await original(app, **kwargs)  # type: ignore[arg-type]
        clock.at(
            clock.elapsed + 30,
            lambda: cluster.pods_of.update(
                {app: [pod(f"{app}/{n}", cluster.new_uid()) for n in range(2)]}
            ),
        )

    juju.refresh = refresh_rolls  # type: ignore[method-assign]
    await get("charm-refresh", charm_path="/c/probe.charm").apply(
        make_lab(juju, cluster, clock=clock), Target("probe")
    )
    assert ("refresh", "probe", "/c/probe.charm", None, {}) in juju.calls
    assert not {p.uid for p in cluster.pods_of["probe"]} & {"uid-0", "uid-1"}
    assert clock.elapsed >= 30


async def test_charm_refresh_without_a_charm_says_where_to_give_it() -> None:
    juju, cluster, clock = probe_lab()
    with pytest.raises(HarnessError, match="--probe-charm"):
        await get("charm-refresh").apply(make_lab(juju, cluster, clock=clock), Target("probe"))


async def test_scale_down_up_goes_to_zero_and_back_to_the_previous_count() -> None:
    juju, cluster, clock = probe_lab()
    original = juju.scale

    async def scale(app: str, units: int) -> None:
        await original(app, units)

        def apply_scale() -> None:
            juju.statuses_of = [status(f"{app}/{n}") for n in range(units)]
            cluster.pods_of[app] = [pod(f"{app}/{n}", cluster.new_uid()) for n in range(units)]

        clock.at(clock.elapsed + 30, apply_scale)

    juju.scale = scale  # type: ignore[method-assign]
    steps = await get("scale-down-up").apply(make_lab(juju, cluster, clock=clock), Target("probe"))
    assert [c for c in juju.calls if c[0] == "scale"] == [
        ("scale", "probe", 0),
        ("scale", "probe", 2),
    ]
    assert [s.name for s in steps] == [
        "scale probe to 0",
        "wait for every probe unit and pod to go",
        "scale probe to 2",
        "wait for 2 probe units with Ready pods",
    ]
    assert len(cluster.pods_of["probe"]) == 2
    assert clock.elapsed >= 60


async def test_scale_down_up_whose_units_never_go_scales_back_before_it_fails() -> None:
    # A unit whose stop or remove hook fails stays dying in error (Juju retries the hook):
    # the wait for zero times out, and the app must not be left at zero units.
    juju, cluster, clock = probe_lab()
    juju.statuses_of = [
        replace(s, workload="error", workload_message='hook failed: "stop"')
        for s in juju.statuses_of
    ]
    with keeping_steps() as kept, pytest.raises(WaitTimeout, match="probe at 0 units"):
        await ScaleDownUp(timeout=120).apply(make_lab(juju, cluster, clock=clock), Target("probe"))
    assert [c for c in juju.calls if c[0] == "scale"] == [
        ("scale", "probe", 0),
        ("scale", "probe", 2),
    ]
    # What the bundle of the failed run shows: down, the wait that failed, back up.
    assert [s.name for s in kept] == [
        "scale probe to 0",
        "wait for every probe unit and pod to go",
        "scale probe back to 2",
    ]
    assert kept[1].detail.startswith("failed: timed out after 120s")


async def test_scale_down_up_cancelled_while_at_zero_scales_back_and_stops() -> None:
    juju, cluster, clock = probe_lab()
    at_zero = asyncio.Event()
    original = juju.scale

    async def scale(app: str, units: int) -> None:
        await original(app, units)
        at_zero.set()

    juju.scale = scale  # type: ignore[method-assign]
    running = asyncio.ensure_future(
        ScaleDownUp().apply(make_lab(juju, cluster, clock=clock), Target("probe"))
    )
    await at_zero.wait()
    running.cancel()  # what `repro run` does on the first Ctrl-C
    with pytest.raises(asyncio.CancelledError):
        await running
    assert [c for c in juju.calls if c[0] == "scale"] == [
        ("scale", "probe", 0),
        ("scale", "probe", 2),
    ]


async def test_zero_pods_deletes_every_pod_at_once_and_waits_for_none_running() -> None:
    juju, cluster, clock = probe_lab()
    names = [p.name for p in cluster.pods_of["probe"]]

    async def delete_lingering(pod_name: str) -> None:
        cluster.deleted.append(pod_name)  # accepted; the pod lingers, Terminating, still Ready

    after: list[int] = []  # looks since every pod was deleted

    def on_look(c: FakeCluster) -> None:
        if len(c.deleted) < len(names):
            return
        after.append(len(after))
        pods = c.pods_of["probe"]
        if len(after) == 2:  # their containers stopped: nothing running
            c.pods_of["probe"] = [
                replace(p, containers=tuple(replace(x, ready=False) for x in p.containers))
                for p in pods
            ]
        elif len(after) == 3:  # the StatefulSet re-created them
            c.pods_of["probe"] = [
                replace(
                    p,
                    uid=c.new_uid(),
                    containers=tuple(replace(x, ready=True) for x in p.containers),
                )
                for p in pods
            ]

    cluster.delete_pod = delete_lingering  # type: ignore[method-assign]
    cluster.on_look = on_look
    steps = await get("pod-spec-change").apply(
        make_lab(juju, cluster, clock=clock), Target("probe", zero_pods=True)
    )
    assert sorted(cluster.deleted) == sorted(names)
    assert [s.name for s in steps] == [
        "patch statefulset probe pod template",
        "delete every probe pod at once",
        "wait for zero running probe pods",
        "wait for every probe pod to be replaced",
    ]
    assert steps[1].detail.endswith("running and Ready right after: 2")
    plan = get("pod-spec-change").plan("m", "m", Target("probe", zero_pods=True))
    assert any("delete pod" in line for line in plan)
