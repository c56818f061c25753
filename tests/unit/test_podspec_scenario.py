"""``lp1830745-pod-spec-set`` (issue 26): the twin runs the podspec probe's real code through
a spec change, keys units to pods as the catalogue says Juju 2.9/3.6 do, samples the unit
list every second, and judges; the live dry run prints its exact plan on 2.9 and 3.6 and
refuses 4.0 in one line."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from harness.catalogue import load
from harness.cli import main as cli
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion
from harness.live.podspec import live_plan, pods_of, units_of, unsettled
from harness.run.podspec import EVIDENCE_FILE, judge, run_twin, write_evidence
from harness.scenario.podspec import POD_SPEC_SET
from harness.twin.podspec import Pod, UnitKeying, Workload

V = JujuVersion.parse


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def twin_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return run_twin(POD_SPEC_SET, V("3.6"), tmp_path_factory.mktemp("podspec"))


# --- the twin -----------------------------------------------------------------------------


def test_the_twin_keeps_unit_names_and_every_databag_of_both_sides(twin_run) -> None:  # type: ignore[no-untyped-def]
    findings = {f.check: f for f in judge(twin_run)}

    assert all(f.ok for f in findings.values()), findings
    assert twin_run.units_before == twin_run.units_after == ("podspec-probe/0",)
    bags = twin_run.databags_after
    assert bags["probe/0"] == {"probe-check": "probe/0"}  # the sidecar probe's side
    assert bags["probe"] == {"probe-check": "probe"}
    assert bags["podspec-probe/0"] == {"podspec-probe-unit": "podspec-probe/0"}
    assert bags["podspec-probe"] == {"podspec-probe-app": "podspec-probe"}


def test_the_twin_runs_only_the_catalogued_hooks_in_the_operator_pod(twin_run) -> None:  # type: ignore[no-untyped-def]
    expected = load().expect("pod-spec-set", "3.6").required_hooks(leader=True)
    assert twin_run.hooks == tuple(expected) == ("config-changed",)


def test_the_unit_list_is_sampled_every_second_through_the_zero_pods_moment(twin_run) -> None:  # type: ignore[no-untyped-def]
    times = [s["at"] for s in twin_run.samples]
    assert times == [float(n) for n in range(len(times))]
    phases = [tuple(p["phase"] for p in s["pods"]) for s in twin_run.samples]
    assert phases[0] == ("Running",)
    assert () in phases  # one unit: for a moment no workload pod at all
    assert phases[-1] == ("Running",)
    assert twin_run.pods_before[0]["uid"] != twin_run.pods_after[0]["uid"]
    assert {tuple(s["units"]) for s in twin_run.samples} == {("podspec-probe/0",)}


def test_the_evidence_records_the_samples_and_says_simulated(twin_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = write_evidence(tmp_path / "run", twin_run, judge(twin_run))
    data = json.loads((folder / EVIDENCE_FILE).read_text())
    report = (folder / "report.md").read_text()

    assert data["simulated"] is True
    assert data["label"] == "SIMULATED"
    assert data["juju"].endswith("(simulated)")
    assert len(data["samples"]) == len(twin_run.samples)
    assert data["zero_pods_moments"] >= 1
    assert "SIMULATED" in report
    assert "| 4.0 | podspec-probe/0 | (none) |" in report
    assert any("caasunitprovisioner" in url for url in data["catalogue_sources"])


@pytest.mark.parametrize(("juju", "major"), [("4.0", 4), ("4.1.2", 4)])
def test_the_twin_refuses_juju_4(tmp_path: Path, juju: str, major: int) -> None:
    with pytest.raises(HarnessError, match=r"podspec charms are gone from Juju 4\.0") as caught:
        run_twin(POD_SPEC_SET, V(juju), tmp_path)
    assert "\n" not in str(caught.value)
    assert V(juju).major == major


# --- the keying rule against the catalogue ---------------------------------------------


def _roll(stateful: bool, *, ignore_empty: bool = True) -> Workload:
    workload = Workload("app", stateful, UnitKeying("app", stateful, 1, ignore_empty))
    workload.start(1)
    workload.roll(1.0)
    return workload


@pytest.mark.parametrize(("stateful", "variant"), [(True, None), (False, "stateless")])
def test_unit_names_follow_the_catalogue_branch(stateful: bool, variant: str | None) -> None:
    entry = load().expect("pod-spec-set", "3.6", variant=variant)
    names = {tuple(s.units) for s in _roll(stateful).samples}
    if entry.unit_name == "kept":
        assert names == {("app/0",)}
    else:
        assert entry.unit_name == "new"
        assert ("app/0",) in names
        assert ("app/1",) in names  # the replaced pod became a new unit


def test_without_pr_10270_the_zero_pods_moment_replaces_the_unit_and_is_caught(
    twin_run,  # type: ignore[no-untyped-def]
) -> None:
    before_fix = _roll(True, ignore_empty=False)
    units = [tuple(s.units) for s in before_fix.samples]
    assert () in units  # the empty update removed the unit...
    assert units[-1] == ("app/1",)  # ...and the pod came back as a new one (the seed)
    broken = replace(
        twin_run,
        samples=tuple(s.to_json() for s in before_fix.samples),
        units_after=("podspec-probe/1",),
    )
    names = next(f for f in judge(broken) if f.check.startswith("unit names"))
    assert not names.ok


def test_a_lost_databag_or_an_extra_hook_is_a_deviation(twin_run) -> None:  # type: ignore[no-untyped-def]
    lost = dict(twin_run.databags_after)
    lost["podspec-probe/0"] = {}
    broken = replace(twin_run, databags_after=lost, hooks=(*twin_run.hooks, "stop"))
    failed = {f.check for f in judge(broken) if not f.ok}
    assert failed == {
        "every databag kept, both sides",
        "the podspec unit's hooks (operator pod) as the catalogue expects",
    }


def test_pods_keyed_by_name_survive_an_unordered_update() -> None:
    keying = UnitKeying("app", True, 2)
    keying.update([Pod("app-1", "u1", "Running"), Pod("app-0", "u0", "Running")])
    keying.update([Pod("app-0", "u2", "Running")])  # app-1 away: a StatefulSet keeps its unit
    assert keying.names == ("app/0", "app/1")


# --- the plan -----------------------------------------------------------------------------

# The exact plan on Juju 3.6 (model m, charms ./pp.charm and ./p.charm, token t1).
PLAN_36 = (Path(__file__).parent.parent / "data" / "podspec_plan_3.6.txt").read_text().rstrip("\n")


def _plan(juju: str) -> str:
    return "\n".join(
        live_plan(
            POD_SPEC_SET,
            V(juju),
            model="m",
            podspec_charm="./pp.charm",
            probe_charm="./p.charm",
            token="t1",
        )
    )


def test_the_live_plan_on_36_is_exact() -> None:
    assert _plan("3.6.4") == PLAN_36


def test_the_live_plan_on_29_uses_29_verbs() -> None:
    expected = (
        PLAN_36.replace("Juju 3.6", "Juju 2.9")
        .replace("juju integrate", "juju add-relation")
        .replace("juju run ", "juju run-action ")
    )
    assert _plan("2.9.49") == expected


@pytest.mark.parametrize(
    ("client", "first"),
    [("2.9.49-ubuntu-amd64", "juju add-relation"), ("3.6.4-genericlinux-amd64", "juju integrate")],
)
def test_repro_dry_run_live_prints_the_plan_for_the_clients_juju(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, client: str, first: str
) -> None:
    monkeypatch.setattr("harness.live.drivers.client_version", lambda *a, **k: client)
    code, out, err = repro(
        capsys, "run", "lp1830745-pod-spec-set", "--backend", "live", "--dry-run"
    )
    assert code == 0, err
    assert f"# juju client {client}" in out
    assert re.search(rf"^{first} podspec-probe:probe-requirer probe:probe-provider$", out, re.M)
    assert out.rstrip().endswith("config-changed")


@pytest.mark.parametrize("backend", ["live", "twin"])
def test_repro_refuses_juju_4_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    monkeypatch.setattr(
        "harness.live.drivers.client_version", lambda *a, **k: "4.0.1-ubuntu-amd64"
    )
    code, out, err = repro(
        capsys, "run", "lp1830745-pod-spec-set", "--backend", backend, "--dry-run",
        "--juju", "4.0",
    )  # fmt: skip
    assert code == 2
    assert "juju add-model" not in out
    assert len(err.strip().splitlines()) == 1
    assert "podspec charms are gone from Juju 4.0" in err
    assert "https://github.com/juju/juju/pull/15865" in err


def test_repro_run_on_the_twin_writes_the_evidence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = repro(
        capsys, "run", "lp1830745-pod-spec-set", "--backend", "twin",
        "--evidence-dir", str(tmp_path),
    )  # fmt: skip
    assert code == 0, out
    lines = out.strip().splitlines()
    assert lines[0].startswith("backend: twin (SIMULATED")
    assert all(line.startswith("ok: ") for line in lines[1:-1])
    assert json.loads((Path(lines[-1]) / EVIDENCE_FILE).read_text())["simulated"] is True


# --- what live reads ------------------------------------------------------------------------


def test_live_reads_units_pods_and_settledness() -> None:
    status = json.dumps(
        {
            "applications": {
                "podspec-probe": {
                    "units": {
                        "podspec-probe/10": {
                            "workload-status": {"current": "active"},
                            "juju-status": {"current": "executing"},
                        },
                        "podspec-probe/2": {
                            "workload-status": {"current": "active"},
                            "juju-status": {"current": "idle"},
                        },
                    }
                }
            }
        }
    )
    assert units_of(status, "podspec-probe") == ("podspec-probe/2", "podspec-probe/10")
    assert unsettled(status, ["podspec-probe"]) == "podspec-probe/10: active/executing"
    assert unsettled(status, ["probe"]) == "probe: no unit yet"
    with pytest.raises(HarnessError, match="no application 'probe'"):
        units_of(status, "probe")
    pods = json.dumps(
        {
            "items": [
                {
                    "metadata": {"name": "podspec-probe-0", "uid": "a", "deletionTimestamp": "x"},
                    "status": {"phase": "Running"},
                },
            ]
        }
    )
    assert [p.phase for p in pods_of(pods)] == ["Terminating"]
    with pytest.raises(HarnessError, match="kubectl did not print JSON"):
        pods_of("error: the server doesn't have a resource type")


# --- the live loop, on a stand-in for the cluster ----------------------------------------------


def _live_stand_in(pod_phases: list[list[tuple[str, str]]]):  # type: ignore[no-untyped-def]
    """An autospecced LivePodspec whose pods go through ``pod_phases``, one step per read."""
    from unittest.mock import create_autospec

    from harness.live.podspec import LivePod, LivePodspec

    live = create_autospec(LivePodspec, instance=True)
    steps = iter(pod_phases)
    last: list[LivePod] = []

    async def pods(app: str) -> tuple[LivePod, ...]:
        nonlocal last
        step = next(steps, None)
        if step is not None:
            last = [LivePod("podspec-probe-0", uid, phase) for uid, phase in step]
        return tuple(last)

    async def units(app: str) -> tuple[str, ...]:
        return (f"{app}/0",)

    async def databags(units: object, endpoints: object) -> dict[str, dict[str, str]]:
        return {"probe/0": {"probe-check": "probe/0"}}

    journal = [[{"seq": 1, "event": "start"}], [{"seq": 1, "event": "start"}]]
    journal[1].append({"seq": 2, "event": "config-changed"})
    reads = iter(journal)

    async def journal_of(unit: str, since: int = 0) -> list[dict[str, object]]:
        return next(reads)

    live.pods.side_effect = pods
    live.units.side_effect = units
    live.databags.side_effect = databags
    live.journal.side_effect = journal_of
    return live


def test_the_live_loop_samples_until_every_pod_is_new_and_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    from harness.run import podspec as run_podspec

    monkeypatch.setattr(run_podspec, "SAMPLE_EVERY", 0.01)
    live = _live_stand_in(
        [
            [("old", "Running")],  # before
            [("old", "Terminating")],
            [],
            [("new", "Pending")],
            [("new", "Running")],
        ]
    )
    run = asyncio.run(run_podspec.run_live(POD_SPEC_SET, live, V("3.6"), token="t1"))

    live.config.assert_awaited_once_with("podspec-probe", "spec-token", "t1")
    assert [len(s["pods"]) for s in run.samples] == [1, 0, 1, 1]
    assert run.hooks == ("config-changed",)
    assert {f.check: f.ok for f in judge(run)}["the workload pods were replaced"]


def test_the_live_loop_says_what_it_last_saw_when_the_roll_does_not_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    from harness.run import podspec as run_podspec

    monkeypatch.setattr(run_podspec, "SAMPLE_EVERY", 0.01)
    live = _live_stand_in([[("old", "Running")], [("old", "Terminating")]])
    with pytest.raises(HarnessError, match="not all replaced and Running after 0s") as caught:
        asyncio.run(run_podspec.run_live(POD_SPEC_SET, live, V("2.9"), token="t1", timeout=0.05))
    assert "'phase': 'Terminating'" in str(caught.value)
    assert "\n" not in str(caught.value)
