"""harness.run.scenario: the scenario runner, on fake ports and a fake disruption.

The collaborators (snapshot, settle, verdict, catalogue, disruption) are replaced by fakes
that record how they were called, so these tests pin down the runner's own job: order,
hook window, evidence, and a bundle written whatever happens.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar
from unittest.mock import create_autospec

import jsonschema
import pytest

from harness.common.errors import HarnessError, WaitTimeout
from harness.common.findings import Finding
from harness.common.observations import JournalEntry, Snapshot, Step, UnitStatus
from harness.common.versions import JujuVersion, Versions
from harness.disrupt.base import Disruption
from harness.disrupt.node_restart import NodeRestart
from harness.lab.ports import ActionResult, Lab
from harness.live.microk8s import MicroK8sNode
from harness.run.hooks import in_window
from harness.run.plan import plan
from harness.run.reproduce import deploy_commands
from harness.run.result import one_line
from harness.run.scenario import run_scenario
from harness.scenario.scenarios import Target, scenario
from harness.scenario.stack import default_stack

T0 = datetime(2026, 1, 1, 10, 0, 0, tzinfo=timezone.utc)
SCENARIO = scenario("lp2021891-pod-delete")
STACK = default_stack("./probe.charm")


class FakeClock:
    """Each reading is one second after the last: steps get distinct, known times."""

    def __init__(self) -> None:
        self.t = T0

    def now(self) -> datetime:
        self.t += timedelta(seconds=1)
        return self.t

    def monotonic(self) -> float:
        return (self.t - T0).total_seconds()

    async def sleep(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)


def log_line(unit: str, when: datetime, hook: str) -> str:
    entity = "unit-" + unit.replace("/", "-")
    stamp = when.strftime("%Y-%m-%d %H:%M:%S")
    return (
        f'{entity}: {stamp} INFO juju.worker.uniter.operation ran "{hook}" hook '
        "(via hook dispatching script: dispatch)"
    )


def journal_row(unit: str, seq: int, event: str) -> dict[str, Any]:
    return {
        "seq": seq,
        "time": f"2026-01-01T10:00:{seq:02d}+00:00",
        "event": event,
        "unit": unit,
        "root_incarnation": "r",
        "root_incarnation_new": False,
        "charm_dir_incarnation": "c",
        "charm_dir_incarnation_new": False,
        "workload_marker": "present",
        "leader": True,
    }


@dataclass
class FakeJuju:
    clock: FakeClock
    versions_value: Versions = field(default_factory=lambda: Versions(juju_agent="3.6.1"))
    journal: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)

    @property
    def model_name(self) -> str:
        return "test-model"

    async def versions(self) -> Versions:
        return self.versions_value

    async def debug_log(self) -> str:
        """The uniter's modules, as ``--include-module juju.worker.uniter ...`` gives them."""
        self.calls.append("debug_log")
        return "\n".join(line for line in self.log if ".juju-log " not in line)

    async def ops_log_recent(self, lines: int) -> str:
        """The charms' juju-log lines (``--include-module unit --level DEBUG --lines N``)."""
        kept = [line for line in self.log if ".juju-log " in line]
        return "\n".join(kept[-lines:])

    async def run_action(
        self, unit: str, action: str, params: Mapping[str, object] | None = None
    ) -> ActionResult:
        assert action == "journal"
        since = int(str((params or {}).get("since", 0)))
        rows = [r for r in self.journal.get(unit, []) if r["seq"] > since]
        return ActionResult(
            unit,
            action,
            "completed",
            {"entries": json.dumps(rows), "cursor": str(since + len(rows))},
        )


class FakeCluster:
    namespace = "test-model"

    async def server_version(self) -> str | None:
        return "v1.31.0"


class FakeNode:
    async def version(self) -> str | None:
        return "1.31/stable"


def make_lab(backend: str = "twin", **juju: Any) -> tuple[Lab, FakeJuju]:
    clock = FakeClock()
    port = FakeJuju(clock, **juju)
    lab = Lab(backend, port, FakeCluster(), FakeNode(), clock)  # type: ignore[arg-type]
    return lab, port


class FakeDisruption(Disruption):
    name: ClassVar[str] = "pod-delete"
    summary: ClassVar[str] = "fake"

    def __init__(self, fail: BaseException | None = None, lab_log: FakeJuju | None = None) -> None:
        self.fail = fail
        self.port = lab_log
        self.applied: list[Target] = []

    async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
        self.applied.append(target)
        if self.fail is not None:
            raise self.fail
        start = lab.clock.now()
        if self.port is not None:
            # Hooks that ran because of this disruption land in the log now.
            for unit in target.units:
                self.port.log.append(log_line(unit, lab.clock.now(), "stop"))
                self.port.log.append(log_line(unit, lab.clock.now(), "start"))
        return (Step(f"delete {target.app}", start.isoformat(), lab.clock.now().isoformat()),)

    def plan(self, lab_model: str, namespace: str, target: Target) -> tuple[str, ...]:
        return tuple(
            f"kubectl -n {namespace} delete pod {u.replace('/', '-')}" for u in target.units
        )


@dataclass
class FakeExpectation:
    disruption: str
    hooks: tuple[str, ...] = ("stop", "start")
    scope: str = "pod"
    variant: str | None = None
    selected_by: str | None = None
    container: str | None = None
    survives: dict[str, bool] = field(default_factory=dict)

    @property
    def branch(self) -> str:
        return self.variant or "main"

    def required_hooks(self, *, leader: bool | None = None) -> tuple[str, ...]:
        return self.hooks


@dataclass
class Fakes:
    disruption: FakeDisruption
    asked: list[tuple[str, str]] = field(default_factory=list)
    judged: list[tuple[Any, ...]] = field(default_factory=list)
    verdict: str = "match"
    settle_error: BaseException | None = None
    settle_evidence: dict[str, Any] = field(default_factory=dict)
    snapshots: int = 0


def module(monkeypatch: pytest.MonkeyPatch, name: str) -> types.ModuleType:
    """The real module when it exists, else an empty stand-in (others write them in parallel)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        stand_in = types.ModuleType(name)
        monkeypatch.setitem(sys.modules, name, stand_in)
        return stand_in


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> Fakes:
    state = Fakes(FakeDisruption())

    def get(name: str, charm_path: str | None = None) -> Disruption:
        assert name == state.disruption.name
        return state.disruption

    class FakeCatalogue:
        def expect(
            self,
            disruption: str,
            juju: Any,
            *,
            variant: str | None = None,
            container: str | None = None,
            signal: str | None = None,
        ) -> FakeExpectation:
            state.asked.append((disruption, str(juju)))
            return FakeExpectation(disruption)

        def branches(self, disruption: str, juju: Any) -> tuple[FakeExpectation, ...]:
            return (FakeExpectation(disruption),)

        def boundaries(self) -> tuple[JujuVersion, ...]:
            return (JujuVersion.parse("2.9"), JujuVersion.parse("4.0"))

        def extrapolation(self, juju: JujuVersion, text: str | None = None) -> str | None:
            return None if juju.major <= 4 else f"Juju {text or juju}: an extrapolation"

    async def take_snapshot(lab: Lab, stack: Any) -> Snapshot:
        state.snapshots += 1
        journal = ()
        if state.snapshots == 2:  # after: the probe journal moved on to seq 3
            row = journal_row("probe/0", 3, "start")
            journal = (JournalEntry.from_dict(row),)
        elif state.snapshots == 1:
            journal = (JournalEntry.from_dict(journal_row("probe/0", 1, "install")),)
        return Snapshot(
            taken_at=lab.clock.now().isoformat(),
            statuses=(UnitStatus("probe/0", "active", "", "idle", True),),
            journal=journal,
        )

    async def wait_settled(
        lab: Lab, apps: Sequence[str], expected: Any = None, **evidence: Any
    ) -> Step:
        state.settle_evidence = evidence
        if state.settle_error is not None:
            raise state.settle_error
        start = lab.clock.now().isoformat()
        return Step("wait settled", start, lab.clock.now().isoformat(), ", ".join(apps))

    def judge(
        expectation: Any, before: Snapshot, after: Snapshot, hooks: Any, **options: Any
    ) -> tuple[Finding, ...]:
        state.judged.append((expectation, before, after, tuple(hooks), options))
        return (Finding("hooks", "probe/0", "stop, start", "stop, start", state.verdict, "u"),)  # type: ignore[arg-type]

    monkeypatch.setattr(module(monkeypatch, "harness.disrupt"), "get", get, raising=False)
    monkeypatch.setattr(
        module(monkeypatch, "harness.catalogue"), "load", lambda: FakeCatalogue(), raising=False
    )
    monkeypatch.setattr(
        module(monkeypatch, "harness.observe.snapshot"),
        "take_snapshot",
        take_snapshot,
        raising=False,
    )
    monkeypatch.setattr(
        module(monkeypatch, "harness.observe.settle"), "wait_settled", wait_settled, raising=False
    )
    monkeypatch.setattr(
        module(monkeypatch, "harness.verdict.judge"), "judge", judge, raising=False
    )
    return state


def run(lab: Lab, folder: Path, **kwargs: Any) -> Any:
    lines: list[str] = []
    result = asyncio.run(
        run_scenario(lab, SCENARIO, STACK, folder, progress=lines.append, **kwargs)
    )
    return result, lines


def bundle(folder: Path) -> dict[str, Any]:
    raw = json.loads((folder / "bundle.json").read_text("utf-8"))
    schema = json.loads(resources.files("harness").joinpath("evidence/schema.json").read_text())
    jsonschema.validate(raw, schema)
    return raw


def test_a_run_writes_a_valid_bundle_with_steps_in_order(tmp_path: Path, fakes: Fakes) -> None:
    lab, port = make_lab()
    fakes.disruption.port = port

    result, progress = run(lab, tmp_path / "run")

    raw = bundle(result.folder)
    assert result.folder == tmp_path / "run"
    assert [s["name"] for s in raw["steps"]] == [
        "read versions",
        "snapshot before",
        "delete mysql-router-k8s",
        "delete probe",
        "wait settled",
        "snapshot after",
        "collect hooks",
    ]
    assert [t.app for t in fakes.disruption.applied] == ["mysql-router-k8s", "probe"]
    assert raw["error"] is None
    assert raw["backend"] == "twin"
    assert raw["simulated"] is True
    assert raw["versions"]["kubernetes"] == "v1.31.0"
    assert raw["expected_hooks"] == ["stop", "start"]
    assert (result.folder / "report.md").exists()
    assert (result.folder / "timeline.svg").exists()
    assert "SIMULATED" in progress[0]
    assert result.exit_code == 0


def test_hooks_come_from_the_window_of_the_debug_log_and_from_the_journal(
    tmp_path: Path, fakes: Fakes
) -> None:
    lab, port = make_lab()
    fakes.disruption.port = port
    # Lines from before the run (deploy hooks) must not count.
    port.log.append(log_line("probe/0", T0 - timedelta(minutes=5), "install"))
    port.journal["probe/0"] = [
        journal_row("probe/0", 1, "install"),
        journal_row("probe/0", 2, "stop"),
        journal_row("probe/0", 3, "start"),
    ]

    result, _ = run(lab, tmp_path / "run")

    hooks = [(h.unit, h.hook, h.source) for h in result.evidence.hooks]
    assert hooks == [
        ("mysql-router-k8s/0", "stop", "debug-log"),
        ("mysql-router-k8s/0", "start", "debug-log"),
        ("probe/0", "stop", "debug-log"),
        ("probe/0", "start", "debug-log"),
        ("probe/0", "stop", "journal"),  # after seq 1, the before snapshot's latest
        ("probe/0", "start", "journal"),
    ]
    assert fakes.judged[0][3] == result.evidence.hooks
    # The disrupted units as the scenario names them; no container scope for a pod delete.
    assert fakes.judged[0][4] == {
        "units": ("mysql-router-k8s/0", "probe/0"),
        "containers": None,
        "target_container": None,
    }


def test_a_deviation_gives_exit_code_1(tmp_path: Path, fakes: Fakes) -> None:
    fakes.verdict = "deviation"
    lab, _ = make_lab()

    result, _ = run(lab, tmp_path / "run")

    assert result.exit_code == 1
    assert len(result.deviations) == 1
    assert bundle(result.folder)["findings"][0]["verdict"] == "deviation"


def test_the_twin_version_given_wins_over_the_detected_one(tmp_path: Path, fakes: Fakes) -> None:
    lab, _ = make_lab()

    result, _ = run(lab, tmp_path / "run", juju_version="2.9.43")

    assert fakes.asked == [("pod-delete", "2.9.43")]
    assert result.evidence.juju_version == "2.9.43"
    assert (
        "repro run lp2021891-pod-delete --backend twin --juju 2.9.43" in result.evidence.commands
    )


def test_commands_hold_deploy_and_the_disruption_plan(tmp_path: Path, fakes: Fakes) -> None:
    lab, _ = make_lab("live")

    result, _ = run(lab, tmp_path / "run")

    commands = result.evidence.commands
    # Live needs the packed probe: the command names it where a reader has it.
    assert commands[0] == (
        "repro run lp2021891-pod-delete --probe-charm ./probe.charm --backend live"
    )
    assert "juju deploy mysql-k8s mysql-k8s --channel 8.0/edge --trust" in commands
    assert "juju integrate probe:database mysql-router-k8s:database" in commands
    assert commands[-2:] == (
        "kubectl -n test-model delete pod mysql-router-k8s-0",
        "kubectl -n test-model delete pod probe-0",
    )
    assert result.evidence.simulated is False


def test_bundle_is_written_when_the_disruption_raises(tmp_path: Path, fakes: Fakes) -> None:
    fakes.disruption.fail = RuntimeError("kubectl said no\nsecond line")
    lab, _ = make_lab()

    with pytest.raises(RuntimeError, match="kubectl said no"):
        run(lab, tmp_path / "run")

    raw = bundle(tmp_path / "run")
    assert raw["error"] == "RuntimeError: kubectl said no second line"
    assert raw["before"] is not None
    assert raw["after"] is None
    assert raw["findings"] == []
    assert "**The run stopped early:** RuntimeError: kubectl said no" in (
        tmp_path / "run" / "report.md"
    ).read_text("utf-8")


def test_bundle_is_written_when_settling_times_out(tmp_path: Path, fakes: Fakes) -> None:
    fakes.settle_error = WaitTimeout("probe pods Ready", 600, "probe-0 Pending")
    lab, _ = make_lab()

    with pytest.raises(WaitTimeout):
        run(lab, tmp_path / "run")

    raw = bundle(tmp_path / "run")
    assert raw["error"].startswith("timed out after 600s waiting for probe pods Ready")
    assert [s["name"] for s in raw["steps"]][-2:] == [
        "delete probe",
        "collect hooks after the failure",
    ]


def test_a_run_that_never_settled_still_shows_the_hooks_since_the_disruption(
    tmp_path: Path, fakes: Fakes
) -> None:
    # A unit stuck in error is why settling fails: the hook that failed is the evidence a
    # bug report needs, so the bundle holds what the debug-log shows since the disruption.
    fakes.settle_error = WaitTimeout("probe settled", 600, "probe/0 error")
    lab, port = make_lab()
    fakes.disruption.port = port
    port.log.append(log_line("probe/0", T0 - timedelta(hours=1), "install"))  # before: not it

    with pytest.raises(WaitTimeout):
        run(lab, tmp_path / "run")

    raw = bundle(tmp_path / "run")
    assert [(h["unit"], h["hook"]) for h in raw["hooks"]] == [
        ("mysql-router-k8s/0", "stop"),
        ("mysql-router-k8s/0", "start"),
        ("probe/0", "stop"),
        ("probe/0", "start"),
    ]  # the two targets' lines since the disruption; the install of an hour before is not
    assert raw["steps"][-1]["name"] == "collect hooks after the failure"
    assert raw["error"].startswith("timed out after 600s waiting for probe settled")


def test_a_failure_collecting_hooks_after_a_failure_keeps_the_first_error(
    tmp_path: Path, fakes: Fakes
) -> None:
    fakes.settle_error = WaitTimeout("probe settled", 600, "probe/0 error")
    lab, port = make_lab()

    async def controller_gone() -> str:
        raise ConnectionError("controller unreachable")

    port.debug_log = controller_gone  # type: ignore[method-assign]

    with pytest.raises(WaitTimeout):
        run(lab, tmp_path / "run")

    raw = bundle(tmp_path / "run")
    assert raw["hooks"] == []
    assert raw["error"].startswith("timed out after 600s waiting for probe settled")
    last = raw["steps"][-1]
    assert last["name"] == "collect hooks after the failure"
    assert "controller unreachable" in last["detail"]


def test_a_debug_log_that_does_not_answer_after_a_failure_is_named_with_its_bound(
    tmp_path: Path, fakes: Fakes, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.run import scenario as run_module

    monkeypatch.setattr(run_module, "HOOKS_AFTER_FAILURE_TIMEOUT", 0.2)
    fakes.settle_error = WaitTimeout("probe settled", 600, "probe/0 error")
    lab, port = make_lab()

    async def hangs() -> str:  # a controller half up after a node restart
        await asyncio.Event().wait()
        return ""

    port.debug_log = hangs  # type: ignore[method-assign]

    with pytest.raises(WaitTimeout):
        run(lab, tmp_path / "run")

    last = bundle(tmp_path / "run")["steps"][-1]
    assert last["name"] == "collect hooks after the failure"
    assert last["detail"] == "could not read the debug-log: it did not answer within 0.2 s"


def test_a_stop_asked_while_reading_hooks_after_a_failure_ends_as_an_interruption(
    tmp_path: Path, fakes: Fakes
) -> None:
    # The Ctrl-C's cancel can be lost (Python 3.10's wait_for returns a result that was
    # ready when the cancel came): the stop asked for still ends the run once it is written.
    from harness.common.interrupt import Interruption, RunInterrupted

    fakes.settle_error = WaitTimeout("probe settled", 600, "probe/0 error")
    lab, port = make_lab()
    asked = Interruption()

    async def answers_as_ctrl_c_comes() -> str:
        asked.signal_name = "SIGINT"  # recorded by the handler; its cancel never arrives
        return ""

    port.debug_log = answers_as_ctrl_c_comes  # type: ignore[method-assign]

    with pytest.raises(RunInterrupted, match="SIGINT during collecting hooks after"):
        run(lab, tmp_path / "run", interruption=asked)

    assert bundle(tmp_path / "run")["steps"][-1]["name"] == "collect hooks after the failure"


def test_ctrl_c_while_collecting_hooks_after_a_failure_still_writes_the_bundle(
    tmp_path: Path, fakes: Fakes
) -> None:
    from harness.common.interrupt import RunInterrupted

    fakes.settle_error = WaitTimeout("probe settled", 600, "probe/0 error")
    lab, port = make_lab()

    async def interrupted() -> str:
        raise KeyboardInterrupt

    port.debug_log = interrupted  # type: ignore[method-assign]

    with pytest.raises(RunInterrupted, match="collecting hooks after the failure"):
        run(lab, tmp_path / "run")

    raw = bundle(tmp_path / "run")
    assert raw["error"].startswith("timed out after 600s waiting for probe settled")


def test_a_cancelled_run_does_not_go_on_reading_the_debug_log(
    tmp_path: Path, fakes: Fakes, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cancel (pytest's Ctrl-C tearing the loop down, a caller's timeout) is not a failure
    # to explain: the run writes its bundle and stops, not after up to two minutes of a
    # debug-log that may never answer.
    from harness.run import scenario as run_module

    monkeypatch.setattr(run_module, "HOOKS_AFTER_FAILURE_TIMEOUT", 0.2)
    lab, port = make_lab()
    read: list[str] = []

    async def hangs() -> str:
        read.append("debug-log")
        await asyncio.Event().wait()
        return ""

    port.debug_log = hangs  # type: ignore[method-assign]

    fakes.settle_error = asyncio.CancelledError()
    with pytest.raises(asyncio.CancelledError):
        run(lab, tmp_path / "cancelled")

    assert read == []
    raw = bundle(tmp_path / "cancelled")
    assert raw["error"] == "CancelledError"
    assert "collect hooks after the failure" not in [s["name"] for s in raw["steps"]]


def test_bundle_is_written_on_interrupt(tmp_path: Path, fakes: Fakes) -> None:
    fakes.disruption.fail = KeyboardInterrupt()
    lab, _ = make_lab()

    with pytest.raises(KeyboardInterrupt):
        run(lab, tmp_path / "run")

    raw = bundle(tmp_path / "run")
    during = "pod-delete of mysql-router-k8s/0"
    assert raw["error"] == f"interrupted by KeyboardInterrupt during {during}"
    assert raw["interrupted"] is True


def test_a_signal_the_node_restart_caught_ends_the_run_as_an_interruption(
    tmp_path: Path, fakes: Fakes
) -> None:
    # Under pytest (no Interruption installed) the node restart catches Ctrl-C itself, starts
    # MicroK8s again and raises Interrupted. That is a stop the user asked for, not a failed
    # run: the bundle says interrupted, and a KeyboardInterrupt ends the session (pytest
    # tears the fixtures down and runs no further test) instead of the next disruption.
    from harness.common.interrupt import RunInterrupted
    from harness.live.signals import Interrupted

    fakes.disruption.fail = Interrupted(
        "SIGINT", "while MicroK8s was stopped; it was started again", "rerun the scenario"
    )
    lab, _ = make_lab()

    with pytest.raises(RunInterrupted) as raised:
        run(lab, tmp_path / "run")

    during = "pod-delete of mysql-router-k8s/0 (while MicroK8s was stopped; it was started again)"
    assert str(raised.value) == f"interrupted by SIGINT during {during}"
    raw = bundle(tmp_path / "run")
    assert raw["interrupted"] is True
    assert raw["error"] == f"interrupted by SIGINT during {during}"


class NodeRestartHere(NodeRestart):
    """The real node restart, under the scenario's name (the fixture serves that one)."""

    name: ClassVar[str] = "pod-delete"


def test_a_disruption_that_fails_part_way_keeps_the_steps_it_took_in_the_bundle(
    tmp_path: Path, fakes: Fakes
) -> None:
    # MicroK8s was stopped and started, then never reported ready: the bundle must say when
    # the node went down and came back, and when the wait that failed began.
    node = create_autospec(MicroK8sNode, instance=True)
    node.wait_ready.side_effect = WaitTimeout(
        "MicroK8s to report ready", 900, "exit 1: microk8s is not running"
    )
    node.version.return_value = "MicroK8s v1.28.3 revision 6089"
    fakes.disruption = NodeRestartHere()  # type: ignore[assignment]
    clock = FakeClock()
    lab = Lab("live", FakeJuju(clock), FakeCluster(), node, clock)  # type: ignore[arg-type]

    with pytest.raises(WaitTimeout, match="MicroK8s to report ready"):
        run(lab, tmp_path / "run")

    raw = bundle(tmp_path / "run")
    steps = {s["name"]: s for s in raw["steps"]}
    assert list(steps)[2:] == [
        "microk8s stop",
        "microk8s start",
        "wait for MicroK8s ready",
        "collect hooks after the failure",
    ]
    assert steps["microk8s stop"]["end"] <= steps["microk8s start"]["start"]
    assert "timed out after 900s" in steps["wait for MicroK8s ready"]["detail"]
    assert raw["error"].startswith("timed out after 900s waiting for MicroK8s to report ready")


def test_unknown_juju_version_fails_before_disrupting(tmp_path: Path, fakes: Fakes) -> None:
    lab, _ = make_lab(versions_value=Versions())

    with pytest.raises(HarnessError, match="could not learn the Juju version"):
        run(lab, tmp_path / "run")

    assert fakes.disruption.applied == []
    raw = bundle(tmp_path / "run")
    assert raw["before"] is None
    assert raw["error"].startswith("could not learn the Juju version")


def test_in_window_compares_dated_times() -> None:
    start, end = T0 + timedelta(milliseconds=400), T0 + timedelta(minutes=2)

    assert in_window("2026-01-01 10:01:00", start, end)
    assert in_window("2026-01-01 10:00:00", start, end)  # truncated to the second
    assert in_window("2026-01-01T10:00:00.500+00:00", start, end)
    assert not in_window("2026-01-01 09:59:59", start, end)
    assert not in_window("2026-01-01 10:02:01", start, end)


def test_in_window_compares_undated_times_by_time_of_day() -> None:
    start, end = T0, T0 + timedelta(minutes=2)

    assert in_window("10:01:59", start, end)
    assert not in_window("09:59:59", start, end)
    assert not in_window("10:30:00", start, end)
    assert in_window("not a time", start, end)  # cannot be placed, so kept


def test_in_window_across_midnight_and_over_a_day() -> None:
    late = datetime(2026, 1, 1, 23, 59, 0, tzinfo=timezone.utc)

    assert in_window("00:00:30", late, late + timedelta(minutes=2))
    assert in_window("23:59:30", late, late + timedelta(minutes=2))
    assert not in_window("12:00:00", late, late + timedelta(minutes=2))
    assert in_window("12:00:00", late, late + timedelta(days=1))


def test_deploy_commands_use_relate_before_juju_3() -> None:
    from harness.common.versions import JujuVersion

    old = deploy_commands(STACK, JujuVersion.parse("2.9.43"))
    new = deploy_commands(STACK, JujuVersion.parse("3.6"))

    assert "juju relate probe:database mysql-router-k8s:database" in old
    assert "juju integrate probe:database mysql-router-k8s:database" in new
    assert (
        "juju deploy ./probe.charm probe --resource workload-image=ubuntu/nginx:1.24-24.04_beta"
        in new
    )


def test_plan_lists_deploy_then_disruption_then_collection(fakes: Fakes) -> None:
    lines = plan(SCENARIO, STACK, model="m", namespace="m")

    deploy = lines.index("juju deploy -m m mysql-k8s mysql-k8s --channel 8.0/edge --trust")
    delete = lines.index("kubectl -n m delete pod probe-0")
    log = lines.index(
        "juju debug-log -m m --replay --no-tail --include-module juju.worker.uniter "
        "--include-module juju.worker.caasoperator --include-module juju.cmd "
        "--date --utc --ms --level INFO"
    )
    ops = lines.index(
        "juju debug-log -m m --no-tail --lines N --include-module unit --date --utc --ms "
        "--level DEBUG"
    )
    assert log < ops
    assert deploy < delete < log
    assert any(line.startswith("# snapshot before") for line in lines[deploy:delete])


def test_one_line_flattens_and_names_the_type() -> None:
    assert one_line(ValueError("a\n  b")) == "ValueError: a b"
    assert one_line(HarnessError("broken", "fix it")) == "broken (fix it)"


class FakeNodeRestart(FakeDisruption):
    name: ClassVar[str] = "node-restart"
    takes_node_down: ClassVar[bool] = True


def test_a_node_restart_is_applied_once_for_all_its_targets(tmp_path: Path, fakes: Fakes) -> None:
    fakes.disruption = FakeNodeRestart()
    lab, _ = make_lab()
    two_targets = scenario("lp2021891-node-restart")
    assert len(two_targets.targets) == 2

    lines: list[str] = []
    asyncio.run(run_scenario(lab, two_targets, STACK, tmp_path / "run", progress=lines.append))

    assert len(fakes.disruption.applied) == 1
    assert "node-restart: the node, under mysql-router-k8s, probe" in lines
    judged_units = fakes.judged[0][4]["units"]
    assert judged_units == ("probe/0",)  # every unit of both apps seen before (fake: probe/0)


def test_a_folder_that_cannot_be_written_at_the_end_gives_way_to_a_fallback(
    tmp_path: Path, fakes: Fakes, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    taken = tmp_path / "run"
    taken.write_text("something else took this name during the run", "utf-8")
    lab, _ = make_lab()

    result, lines = run(lab, taken)

    assert result.folder.parent == tmp_path / "tmp" / "repro-evidence"
    raw = bundle(result.folder)
    assert raw["error"] is None
    assert raw["findings"]
    assert any(
        line.startswith(f"could not write the evidence to {taken}") and str(result.folder) in line
        for line in lines
    )
    assert taken.read_text("utf-8").startswith("something else")  # never overwritten


def ops_line(unit: str, when: datetime, event: str) -> str:
    entity = "unit-" + unit.replace("/", "-")
    stamp = when.strftime("%Y-%m-%d %H:%M:%S")
    return f"{entity}: {stamp} DEBUG unit.{unit}.juju-log Emitting Juju event {event}."


def test_units_without_uniter_lines_are_judged_on_ops_event_lines(
    tmp_path: Path, fakes: Fakes
) -> None:
    lab, port = make_lab()

    class OpsOnlyForTheRouter(FakeDisruption):
        async def apply(self, lab: Lab, target: Target) -> tuple[Step, ...]:
            start = lab.clock.now()
            for unit in target.units:
                when = lab.clock.now()
                if unit.startswith("mysql-router-k8s/"):
                    # logging-config filtered the uniter: only ops' DEBUG lines remain.
                    port.log.append(ops_line(unit, when, "stop"))
                    port.log.append(ops_line(unit, when, "start"))
                    port.log.append(ops_line(unit, when, "journal_action"))
                else:
                    port.log.append(ops_line(unit, when, "stop"))  # joined with the next
                    port.log.append(log_line(unit, when, "stop"))
                    port.log.append(log_line(unit, when, "start"))
            return (Step(f"delete {target.app}", start.isoformat(), lab.clock.now().isoformat()),)

    fakes.disruption = OpsOnlyForTheRouter()

    result, _ = run(lab, tmp_path / "run")

    hooks = [(h.unit, h.kind, h.hook, h.source) for h in result.evidence.hooks]
    assert hooks == [
        ("mysql-router-k8s/0", "hook", "stop", "ops-log"),
        ("mysql-router-k8s/0", "hook", "start", "ops-log"),
        ("mysql-router-k8s/0", "action", "journal", "ops-log"),
        ("probe/0", "hook", "stop", "debug-log"),
        ("probe/0", "hook", "start", "debug-log"),
    ]
    assert fakes.judged[0][3] == result.evidence.hooks


def test_a_live_run_on_juju_s_default_logging_config_says_ops_lines_were_unavailable(
    tmp_path: Path, fakes: Fakes
) -> None:
    """Juju's default logging-config drops ops' DEBUG lines: the evidence says the ops-line
    fallback was unavailable and why, instead of a silent "no hooks"."""
    default = Versions(
        juju_agent="3.6.1", model_config=(("logging-config", "<root>=INFO (default)"),)
    )
    lab, _ = make_lab("live", versions_value=default)

    result, _ = run(lab, tmp_path / "run")

    (step,) = [s for s in result.evidence.steps if s.name == "collect hooks"]
    assert "0 from ops' event lines" in step.detail
    assert "logging-config '<root>=INFO' keeps unit.<app>/<n>.juju-log at INFO" in step.detail
    report = (result.folder / "report.md").read_text()
    assert "keeps unit.&lt;app>/&lt;n>.juju-log at INFO" in report  # the steps table
    hooks_section = report.split("## Hooks: expected vs observed", 1)[1].split("\n## ", 1)[0]
    assert "Note: ops' event lines" in hooks_section  # and where a reader looks for hooks
    kept = replace(default, model_config=(("logging-config", "<root>=INFO;unit=DEBUG (model)"),))
    lab, _ = make_lab("live", versions_value=kept)
    result, _ = run(lab, tmp_path / "kept")
    (step,) = [s for s in result.evidence.steps if s.name == "collect hooks"]
    assert "logging-config" not in step.detail
