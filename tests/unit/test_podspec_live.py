"""The live podspec run's reads against what the juju CLI really prints (issue 26 review).

Each test drives the real ``JujuCLI`` and ``LivePodspec`` over a runner that answers only the
commands it knows (anything else exits 1, as an unknown juju command would), with output
shaped as Juju 3.x prints it: ``juju show-unit --format json`` as in
tests/data/samples/showunit_json_3.1.2_k8s_alertmanager0.json (a one-unit peer relation shows
``application-data: {}`` and the unit's own ``local-unit`` data; a relation to another app
shows that app's ``application-data`` and its ``related-units``, ``local-unit`` null).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Mapping, Sequence

from harness.common.versions import JujuVersion
from harness.live.juju_cli import JujuCLI
from harness.live.podspec import LivePodspec
from harness.live.process import Completed
from harness.run.podspec import run_live
from harness.scenario.podspec import POD_SPEC_SET

ADDR = {
    "egress-subnets": "10.152.183.30/32",
    "ingress-address": "10.152.183.30",
    "private-address": "10.152.183.30",
}


def _relation(rid: int, endpoint: str, remote: str, app_data: Mapping[str, str], **rest: object):  # type: ignore[no-untyped-def]
    return {
        "relation-id": rid,
        "endpoint": endpoint,
        "related-endpoint": remote,
        "application-data": dict(app_data),
        **rest,
    }


def show_units(probe_check: str = "probe") -> dict[str, str]:
    """``juju show-unit --format json`` of both sides after the harness wrote probe-check."""
    podspec_unit = {"podspec-probe-unit": "podspec-probe/0", **ADDR}
    podspec = {
        "podspec-probe/0": {
            "leader": True,
            "life": "alive",
            "relation-info": [
                _relation(
                    0,
                    "podspec-probe-peers",
                    "podspec-probe-peers",
                    {"podspec-probe-app": "podspec-probe"},
                    **{"local-unit": {"in-scope": True, "data": podspec_unit}},
                ),
                _relation(
                    2,
                    "probe-requirer",
                    "probe-provider",
                    {"probe-check": probe_check},
                    **{
                        "local-unit": {"in-scope": True, "data": None},
                        "related-units": {
                            "probe/0": {
                                "in-scope": True,
                                "data": {"probe-check": "probe/0", **ADDR},
                            }
                        },
                    },
                ),
            ],
        }
    }
    probe = {
        "probe/0": {
            "leader": True,
            "life": "alive",
            "relation-info": [
                # The sidecar probe's own peer relation: it writes its unit bag only, so its
                # app bag shows empty, as alertmanager's one-unit `replicas` does.
                _relation(
                    1,
                    "probe-peers",
                    "probe-peers",
                    {},
                    **{"local-unit": {"in-scope": True, "data": {"probe-token": "x", **ADDR}}},
                ),
                _relation(
                    2,
                    "probe-provider",
                    "probe-requirer",
                    {"podspec-probe-app": "podspec-probe"},
                    **{
                        "local-unit": {"in-scope": True, "data": None},
                        "related-units": {
                            "podspec-probe/0": {"in-scope": True, "data": podspec_unit}
                        },
                    },
                ),
            ],
        }
    }
    return {"podspec-probe/0": json.dumps(podspec), "probe/0": json.dumps(probe)}


class Runner:
    """Answers ``juju show-unit U --format json`` and ``juju version``; anything else fails."""

    def __init__(self, shown: Mapping[str, str]) -> None:
        self.shown = dict(shown)
        self.calls: list[tuple[str, ...]] = []

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        self.calls.append(tuple(args))
        if tuple(args) == ("version",):
            return 0, "3.6.4-genericlinux-amd64\n", ""
        if tuple(args[:1]) == ("show-unit",) and tuple(args[2:]) == ("--format", "json"):
            unit = args[1]
            if unit in self.shown:
                return 0, self.shown[unit], ""
            return 1, "", f'ERROR unit "{unit}" not found'
        return 1, "", f"ERROR unrecognized command: juju {' '.join(args)}"


async def _no_process(argv: Sequence[str], **_: object) -> Completed:
    raise AssertionError(f"no process expected: {argv}")


def _live(shown: Mapping[str, str]) -> LivePodspec:
    return LivePodspec(JujuCLI(Runner(shown)), "m", run=_no_process)


def test_databags_are_the_bags_of_the_relation_between_the_two_apps() -> None:
    live = _live(show_units())
    bags = asyncio.run(live.databags(["podspec-probe/0", "probe/0"], POD_SPEC_SET.endpoints))

    # The sidecar probe's empty peer app bag is not its app bag on the probe relation.
    assert bags["probe"] == {"probe-check": "probe"}
    assert bags["probe/0"] == {"probe-check": "probe/0", **ADDR}
    assert bags["podspec-probe"] == {"podspec-probe-app": "podspec-probe"}
    assert bags["podspec-probe/0"] == {"podspec-probe-unit": "podspec-probe/0", **ADDR}
    assert set(bags) == {"probe", "probe/0", "podspec-probe", "podspec-probe/0"}


# --- the sampling loop: at least once a second even when a read is slow ----------------------


def _slow_live(read_seconds: float, pod_steps: list[list[tuple[str, str]]]):  # type: ignore[no-untyped-def]
    """An autospecced LivePodspec whose ``juju status`` read takes ``read_seconds`` (a busy
    controller through a roll) and whose pods go through ``pod_steps``, one per read."""
    from unittest.mock import create_autospec

    from harness.live.podspec import LivePod

    live = create_autospec(LivePodspec, instance=True)
    steps = iter(pod_steps)
    last: list[LivePod] = []

    async def pods(app: str) -> tuple[LivePod, ...]:
        nonlocal last
        step = next(steps, None)
        if step is not None:
            last = [LivePod("podspec-probe-0", uid, phase) for uid, phase in step]
        return tuple(last)

    async def units(app: str) -> tuple[str, ...]:
        await asyncio.sleep(read_seconds)
        return (f"{app}/0",)

    async def databags(units: object, endpoints: object) -> dict[str, dict[str, str]]:
        return {"probe/0": {"probe-check": "probe/0"}}

    reads = iter([[{"seq": 1, "event": "start"}], [{"seq": 2, "event": "config-changed"}]])

    async def journal(unit: str, since: int = 0) -> list[dict[str, object]]:
        return next(reads)

    live.pods.side_effect = pods
    live.units.side_effect = units
    live.databags.side_effect = databags
    live.journal.side_effect = journal
    return live


def test_a_slow_juju_status_does_not_stretch_the_gap_between_samples(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from harness.run import podspec as run_podspec

    every = 0.1
    monkeypatch.setattr(run_podspec, "SAMPLE_EVERY", every)
    # Each `juju status` takes 6 samples' time: a loop that waits for one read before
    # starting the next samples every 0.6 s instead of every 0.1 s. The bound below leaves
    # 0.3 s for a busy machine's scheduling.
    steps = [[("old", "Running")]] + [[("old", "Terminating")]] * 4 + [[]] * 4
    live = _slow_live(6 * every, [*steps, [("new", "Pending")], [("new", "Running")]])
    run = asyncio.run(run_live(POD_SPEC_SET, live, JujuVersion.parse("3.6"), token="t1"))

    times = [s["at"] for s in run.samples]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert times == sorted(times)
    assert len(run.samples) >= 9, run.samples
    assert max(gaps) < 4 * every, gaps  # scheduled every 0.1 s, not after each read
    assert [len(s["pods"]) for s in run.samples][-1] == 1
    assert run.samples[-1]["pods"][0]["uid"] == "new"
    assert {tuple(s["units"]) for s in run.samples} == {("podspec-probe/0",)}


# --- the hooks finding: the catalogue's background hooks are not the disruption's ------------


def _run_with_hooks(hooks: tuple[str, ...]):  # type: ignore[no-untyped-def]
    from harness.run.podspec import PodspecRun

    bags = {"probe": {"probe-check": "probe"}}
    pods = ({"name": "podspec-probe-0", "uid": "old", "phase": "Running"},)
    return PodspecRun(
        POD_SPEC_SET,
        JujuVersion.parse("3.6"),
        "live",
        ("podspec-probe/0",),
        ("podspec-probe/0",),
        ({"at": 0.0, "units": ["podspec-probe/0"], "pods": []},),
        bags,
        bags,
        hooks,
        pods,
        ({"name": "podspec-probe-0", "uid": "new", "phase": "Running"},),
    )


def _hooks_finding(hooks: tuple[str, ...]):  # type: ignore[no-untyped-def]
    from harness.run.podspec import judge

    return next(f for f in judge(_run_with_hooks(hooks)) if "hooks" in f.check)


def test_an_update_status_in_the_window_is_background_not_a_deviation() -> None:
    # update-status fires every 5 min (Juju's default): a real run's window may hold one,
    # and the catalogue lists it (and relation-changed) as background, allowed anywhere.
    for hooks in (
        ("config-changed", "update-status"),
        ("update-status", "config-changed", "probe-requirer-relation-changed"),
    ):
        finding = _hooks_finding(hooks)
        assert finding.ok, finding.detail
        assert "update-status" in finding.detail


def test_a_missing_config_changed_or_a_stop_is_still_a_deviation() -> None:
    assert not _hooks_finding(("update-status",)).ok
    assert not _hooks_finding(("config-changed", "stop")).ok


# --- the journal: every page, after the cursor -------------------------------------------------


class JournalRunner:
    """``juju run podspec-probe/0 journal since=N limit=L --wait=5m --format json`` (3.x) over a
    journal of ``count`` entries, at most ``page`` per answer (the probe's 64 KiB cap)."""

    def __init__(self, count: int, page: int) -> None:
        self.count = count
        self.page = page
        self.asked: list[int] = []

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        if tuple(args) == ("version",):
            return 0, "3.6.4-genericlinux-amd64\n", ""
        head, tail = tuple(args[:3]), list(args[5:])
        params = dict(a.split("=", 1) for a in args[3:5])
        if head != ("run", "podspec-probe/0", "journal") or tail != [
            "--wait=5m",
            "--format",
            "json",
        ]:
            return 1, "", f"ERROR unrecognized: juju {' '.join(args)}"
        since = int(params["since"])
        self.asked.append(since)
        seqs = [n for n in range(1, self.count + 1) if n > since][: self.page]
        entries = [{"seq": n, "event": "config-changed" if n > 3 else "start"} for n in seqs]
        results = {
            "entries": json.dumps(entries),
            "cursor": str(seqs[-1] if seqs else since),
            "return-code": 0,
        }
        if since + self.page < self.count:
            results["more"] = "true"
        out = {
            "podspec-probe/0": {
                "id": "7",
                "results": results,
                "status": "completed",
                "unit": "podspec-probe/0",
            }
        }
        return 0, json.dumps(out), ""


def test_the_journal_is_read_page_by_page_and_after_a_cursor() -> None:
    runner = JournalRunner(count=5, page=2)
    live = LivePodspec(JujuCLI(runner), "m", run=_no_process)

    everything = asyncio.run(live.journal("podspec-probe/0"))
    assert [e["seq"] for e in everything] == [1, 2, 3, 4, 5]
    assert runner.asked == [0, 2, 4]

    runner.asked.clear()
    after = asyncio.run(live.journal("podspec-probe/0", since=3))
    assert [e["seq"] for e in after] == [4, 5]
    assert runner.asked == [3]


# --- the harness's own databag writes must have happened -------------------------------------


class SetDatabagRunner:
    """``juju run probe/0 set-databag ... --wait=5m --format json`` (3.x) ending ``status``;
    a failed task exits 1 with its JSON on stdout, as Juju 3.x does."""

    def __init__(self, status: str) -> None:
        self.status = status

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        if tuple(args) == ("version",):
            return 0, "3.6.4-genericlinux-amd64\n", ""
        if tuple(args[:3]) != ("run", "probe/0", "set-databag"):
            return 1, "", f"ERROR unrecognized: juju {' '.join(args)}"
        entry: dict[str, object] = {"id": "4", "status": self.status, "unit": "probe/0"}
        entry["results"] = {"return-code": 0}
        if self.status == "failed":
            entry["message"] = "no relation on endpoint probe-provider"
        return (0 if self.status == "completed" else 1), json.dumps({"probe/0": entry}), ""


def test_a_set_databag_that_failed_stops_the_run_in_one_line() -> None:
    import pytest

    from harness.common.errors import HarnessError
    from harness.live.podspec import databag_actions

    unit, params = databag_actions(POD_SPEC_SET)[0]
    ok = LivePodspec(JujuCLI(SetDatabagRunner("completed")), "m", run=_no_process)
    asyncio.run(ok.set_databag(unit, params))

    failed = LivePodspec(JujuCLI(SetDatabagRunner("failed")), "m", run=_no_process)
    with pytest.raises(HarnessError, match="set-databag on probe/0 ended failed") as caught:
        asyncio.run(failed.set_databag(unit, params))
    assert "no relation on endpoint probe-provider" in str(caught.value)
    assert "\n" not in str(caught.value)
