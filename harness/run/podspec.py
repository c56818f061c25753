"""``repro run lp1830745-pod-spec-set``: run the podspec scenario, judge it, keep the evidence.

The twin runs it in-process (SIMULATED: the podspec probe's real code under ops' Harness,
the workload roll modelled on the catalogue); a live run drives a Juju 2.9 or 3.6 model
through the juju CLI and kubectl. Both record the unit list and the workload pods at least
once a second through the roll, and both are judged the same way: unit names kept, every
databag of both sides kept, and the podspec unit's hooks (run in its operator pod) against
the catalogue.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.catalogue import load
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion
from harness.live.podspec import LivePodspec, databag_actions, stack_commands, unsettled
from harness.scenario.podspec import (
    DATABAG_KEY,
    PODSPEC_IMAGE,
    SAMPLE_EVERY,
    PodspecScenario,
    refusal,
)
from harness.twin.podspec import PodspecApp, UnitKeying, Workload, podspec_probe_dir
from harness.verdict.hooks import judge_sequence

EVIDENCE_FILE = "podspec-run.json"
REPORT_FILE = "report.md"
SIMULATED = "SIMULATED"
# The podspec probe's endpoints (charms/podspec-probe/metadata.yaml): what {endpoint} in the
# catalogue's hook names stands for.
PODSPEC_ENDPOINTS = ("probe-requirer", "podspec-probe-peers")


@dataclass(frozen=True)
class Finding:
    check: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class PodspecRun:
    """What one run saw, before, through the roll and after."""

    scenario: PodspecScenario
    juju: JujuVersion
    backend: str  # twin | live
    units_before: tuple[str, ...]
    units_after: tuple[str, ...]
    samples: tuple[Mapping[str, Any], ...]  # {"at", "units", "pods"}
    databags_before: Mapping[str, Mapping[str, str]]
    databags_after: Mapping[str, Mapping[str, str]]
    hooks: tuple[str, ...]  # the podspec unit's hooks after the disruption, in order
    pods_before: tuple[Mapping[str, str], ...]
    pods_after: tuple[Mapping[str, str], ...]

    @property
    def simulated(self) -> bool:
        return self.backend == "twin"


def judge(run: PodspecRun) -> tuple[Finding, ...]:
    """The issue's assertions, each a finding with what was seen."""
    seen = sorted({tuple(s["units"]) for s in run.samples})
    names = Finding(
        "unit names kept through the roll",
        seen == [run.units_before] and run.units_after == run.units_before,
        f"before {list(run.units_before)}, after {list(run.units_after)}, "
        f"every unit list sampled: {[list(u) for u in seen]}",
    )
    changed = [
        owner
        for owner in sorted(set(run.databags_before) | set(run.databags_after))
        if run.databags_before.get(owner) != run.databags_after.get(owner)
    ]
    empty = [o for o, d in sorted(run.databags_before.items()) if not d]
    bags = Finding(
        "every databag kept, both sides",
        not changed and not empty and bool(run.databags_before),
        "all kept: " + ", ".join(sorted(run.databags_before))
        if not changed and not empty
        else f"changed: {changed}; empty before (nothing to compare): {empty}",
    )
    expectation = load().expect(run.scenario.disruption, run.juju)
    expected = expectation.required_hooks(leader=True)
    # The verdict's own matching: the catalogue's background hooks (update-status on its
    # timer, relation-changed) may come anywhere in a real run's window; others may not.
    sequence = judge_sequence(
        expectation,
        run.hooks,
        subject=f"{run.scenario.app}/0",
        endpoints=PODSPEC_ENDPOINTS,
        leader=True,
    )
    hooks = Finding(
        "the podspec unit's hooks (operator pod) as the catalogue expects",
        sequence.verdict == "match",
        f"ran {list(run.hooks)}; the catalogue expects {list(expected)} on Juju {run.juju}"
        + (f" ({sequence.detail})" if sequence.detail else ""),
    )
    old = {p["uid"] for p in run.pods_before}
    new = {p["uid"] for p in run.pods_after}
    replaced = Finding(
        "the workload pods were replaced",
        bool(old) and bool(new) and not old & new,
        f"uids before {sorted(old)}, after {sorted(new)}",
    )
    gaps = [b["at"] - a["at"] for a, b in zip(run.samples, run.samples[1:], strict=False)]
    often = Finding(
        f"unit list read at least every {SAMPLE_EVERY:.0f} s through the roll",
        len(run.samples) >= 2 and max(gaps, default=0.0) <= SAMPLE_EVERY + 0.5,
        f"{len(run.samples)} samples, longest gap {max(gaps, default=0.0):.2f} s, "
        f"zero workload pods in {sum(1 for s in run.samples if not s['pods'])} of them",
    )
    return (names, bags, hooks, replaced, often)


def evidence(run: PodspecRun, findings: Sequence[Finding]) -> dict[str, Any]:
    entry = load().expect(run.scenario.disruption, run.juju)
    return {
        "simulated": run.simulated,
        "label": SIMULATED if run.simulated else "live",
        "scenario": run.scenario.name,
        "disruption": run.scenario.disruption,
        "bug": run.scenario.bug,
        "juju": str(run.juju) + (" (simulated)" if run.simulated else ""),
        "backend": run.backend,
        "units_before": list(run.units_before),
        "units_after": list(run.units_after),
        "samples": [dict(s) for s in run.samples],
        "zero_pods_moments": sum(1 for s in run.samples if not s["pods"]),
        "pods_before": [dict(p) for p in run.pods_before],
        "pods_after": [dict(p) for p in run.pods_after],
        "databags_before": {k: dict(v) for k, v in run.databags_before.items()},
        "databags_after": {k: dict(v) for k, v in run.databags_after.items()},
        "hooks": list(run.hooks),
        "findings": [{"check": f.check, "ok": f.ok, "detail": f.detail} for f in findings],
        "catalogue_sources": [s.url for s in entry.sources],
    }


def write_evidence(folder: Path, run: PodspecRun, findings: Sequence[Finding]) -> Path:
    """``podspec-run.json`` and ``report.md`` in ``folder``; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    data = evidence(run, findings)
    (folder / EVIDENCE_FILE).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    title = f"# {run.scenario.name} on Juju {run.juju} ({data['label']})"
    lines = [title, "", run.scenario.summary, "", f"Bug: {run.scenario.bug}", ""]
    lines += [f"- {'ok' if f.ok else 'DEVIATION'}: {f.check}: {f.detail}" for f in findings]
    lines += ["", "| at (s) | units | workload pods |", "| --- | --- | --- |"]
    for sample in run.samples:
        pods = ", ".join(f"{p['name']} {p['phase']}" for p in sample["pods"]) or "(none)"
        lines.append(f"| {sample['at']} | {', '.join(sample['units'])} | {pods} |")
    if run.simulated:
        lines += ["", "SIMULATED: produced by the twin, not evidence of what a real Juju does."]
    (folder / REPORT_FILE).write_text("\n".join(lines) + "\n")
    return folder


def run_twin(
    scenario: PodspecScenario, juju: JujuVersion, workdir: Path, *, token: str = "second"
) -> PodspecRun:
    """The scenario on the twin (SIMULATED), refused where podspec charms are gone."""
    refused = refusal(scenario, juju)
    if refused is not None:
        raise refused
    app = PodspecApp.deploy(podspec_probe_dir(), workdir / "charm-dir", PODSPEC_IMAGE)
    try:
        app.set_remote("probe/0", {DATABAG_KEY: "probe/0"})
        app.set_remote("probe", {DATABAG_KEY: "probe"})
        workload = Workload(app.name, app.stateful, UnitKeying(app.name, app.stateful, 1))
        workload.start(1)
        applied = app.spec()
        before = workload.keying.names
        bags_before = app.databags()
        pods_before = tuple(p.to_json() for p in workload.pods)
        cursor = max((int(e["seq"]) for e in app.journal()), default=0)
        app.config(scenario.config_key, token)
        if app.spec() != applied:  # Juju re-applies the workload only when the spec changed
            workload.roll(SAMPLE_EVERY)
        hooks = tuple(str(e["event"]) for e in app.journal() if int(e["seq"]) > cursor)
        return PodspecRun(
            scenario,
            juju,
            "twin",
            before,
            workload.keying.names,
            tuple(s.to_json() for s in workload.samples),
            bags_before,
            app.databags(),
            hooks,
            pods_before,
            tuple(p.to_json() for p in workload.pods),
        )
    finally:
        app.close()


async def run_live(
    scenario: PodspecScenario,
    live: LivePodspec,
    juju: JujuVersion,
    *,
    token: str,
    timeout: float = 900.0,
) -> PodspecRun:
    """The disruption and its observation on a deployed, settled, related podspec stack.

    Reads the unit list and the workload pods every SAMPLE_EVERY seconds until every
    workload pod is new and Running (or ``timeout``: then says what it last saw).
    """
    refused = refusal(scenario, juju)
    if refused is not None:
        raise refused
    app, other = scenario.app, scenario.other
    before = await live.units(app)
    pods_before = await live.pods(app)
    shown = (*before, *(await live.units(other)))
    bags_before = await live.databags(shown, scenario.endpoints)
    cursor = max((int(e["seq"]) for e in await live.journal(f"{app}/0")), default=0)
    await live.config(app, scenario.config_key, token)
    samples = await _sample_roll(live, app, {p.uid for p in pods_before}, timeout)
    hooks = tuple(
        str(e["event"])
        for e in await live.journal(f"{app}/0", since=cursor)
        if int(e["seq"]) > cursor
    )
    return PodspecRun(
        scenario,
        juju,
        "live",
        before,
        await live.units(app),
        tuple(samples),
        bags_before,
        await live.databags(shown, scenario.endpoints),
        hooks,
        tuple(p.to_json() for p in pods_before),
        tuple(p.to_json() for p in await live.pods(app)),
    )


SAMPLE_READ_TIMEOUT = 15.0  # one `juju status` or `kubectl get pods`, on a busy controller


async def _sample_roll(
    live: LivePodspec, app: str, old: set[str], timeout: float
) -> list[dict[str, Any]]:
    """The unit list and the workload pods, a read started every SAMPLE_EVERY seconds until
    one shows every pod new and Running; the samples in the order they were started.

    A read is started on time even while the previous one is still running: `juju status`
    can take longer than SAMPLE_EVERY while a controller handles the roll, and waiting for it
    would stretch the gaps past a second (what the evidence must not do).
    """
    started = time.monotonic()

    async def read() -> dict[str, Any]:
        at = time.monotonic() - started
        try:
            units, pods = await asyncio.wait_for(
                asyncio.gather(live.units(app), live.pods(app)), SAMPLE_READ_TIMEOUT
            )
        except asyncio.TimeoutError:
            raise HarnessError(
                f"reading the unit list and the {app} pods (juju status, kubectl get pods) "
                f"took over {SAMPLE_READ_TIMEOUT:.0f}s at {at:.1f}s into the roll",
                "check that the controller and the cluster answer",
            ) from None
        return {"at": round(at, 3), "units": list(units), "pods": [p.to_json() for p in pods]}

    def finished(sample: dict[str, Any]) -> bool:
        pods = sample["pods"]
        return bool(pods) and all(p["uid"] not in old and p["phase"] == "Running" for p in pods)

    reads: list[asyncio.Task[dict[str, Any]]] = []
    try:
        while True:
            reads.append(asyncio.create_task(read()))
            tick = started + len(reads) * SAMPLE_EVERY
            await asyncio.sleep(max(0.0, tick - time.monotonic()))
            done = [r for r in reads if r.done()]
            for r in done:
                r.result()  # a read that failed fails the run, with its own message
            last = next(
                (i for i, r in enumerate(reads) if r.done() and finished(r.result())), None
            )
            if last is not None:
                for r in reads[last + 1 :]:
                    r.cancel()
                return list(await asyncio.gather(*reads[: last + 1]))
            if time.monotonic() - started > timeout:
                seen = max(done, key=lambda r: r.result()["at"]).result() if done else None
                raise HarnessError(
                    f"the {app} workload pods were not all replaced and Running after "
                    f"{timeout:.0f}s; last seen: {seen['pods'] if seen else 'no read answered'}",
                    "see `kubectl describe pods` in the model's namespace",
                )
    finally:
        for r in reads:
            r.cancel()


SETTLE_TIMEOUT = 1200.0  # deploying two charms and pulling their images
SETTLE_POLL = 5.0


async def live_run(
    scenario: PodspecScenario,
    juju: JujuVersion,
    *,
    model: str,
    podspec_charm: str,
    probe_charm: str | None,
    keep_model: bool,
    token: str,
) -> PodspecRun:
    """Add a model, deploy and relate the podspec stack, settle, disrupt, observe, judge."""
    from harness.live.juju_cli import JujuCLI, SubprocessJuju

    refused = refusal(scenario, juju)
    if refused is not None:
        raise refused
    for what, path in (("podspec probe", podspec_charm), ("probe", probe_charm)):
        if not path or not await asyncio.to_thread(Path(path).exists):
            raise HarnessError(
                f"no packed {what} charm at {path}",
                "pack charms/podspec-probe and charms/probe (charmcraft pack); pass the "
                "probe with --probe-charm and the podspec probe in $PODSPEC_PROBE_CHARM",
            )
    admin = JujuCLI(SubprocessJuju(None))
    await admin.add_model(model)
    cli = JujuCLI(SubprocessJuju(model))
    try:
        for args in stack_commands(scenario, juju.major, podspec_charm, str(probe_charm)):
            await cli.run(*args)
        apps = (scenario.app, scenario.other)
        await _settle(cli, apps)
        live = LivePodspec.on(cli, model)
        for unit, params in databag_actions(scenario):
            await live.set_databag(unit, params)
        await _settle(cli, apps)
        return await run_live(scenario, live, juju, token=token)
    finally:
        if not keep_model:
            await admin.destroy_model(model, timeout=600)


async def _settle(cli: Any, apps: Sequence[str]) -> None:
    """Wait for every unit of ``apps`` to be active and idle; on timeout say what was not."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        missing = unsettled(await cli.status(), apps)
        if missing is None:
            return
        if time.monotonic() > deadline:
            raise HarnessError(
                f"{', '.join(apps)} not active and idle after {SETTLE_TIMEOUT:.0f}s; "
                f"last seen: {missing}",
                "see juju status and juju debug-log in the model",
            )
        await asyncio.sleep(SETTLE_POLL)
