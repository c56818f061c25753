"""The podspec scenario on a real Juju 2.9 or 3.6: what it reads, through the juju CLI and
kubectl (never run on this project's machines: no cluster here; written against their
documented outputs and the harness's parsers of them).

- the unit list: ``juju status APP --format json`` (``applications.APP.units``);
- the workload pods: ``kubectl get pods -n MODEL -l app.kubernetes.io/name=APP -o json``
  (the podspec workload's selector label, caas/kubernetes/provider/k8s.go at 2.9 and 3.6);
- every databag of both sides: ``juju show-unit`` of a unit of each (parse_show_unit);
- the podspec probe's journal: its ``journal`` action, which runs in the operator pod.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.catalogue import load
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion
from harness.lab.ports import ActionResult
from harness.live.actions import parse_action_output
from harness.live.juju_cli import JujuCLI, action_args, relate_verb
from harness.live.process import ProcessRunner, run_process
from harness.live.show_unit import parse_show_unit
from harness.scenario.podspec import (
    DATABAG_KEY,
    PODSPEC_IMAGE,
    SAMPLE_EVERY,
    PodspecScenario,
    refusal,
)

KUBECTL_TIMEOUT = 20.0
JOURNAL_PARAMS: Mapping[str, object] = {"since": 0, "limit": 1000}


def stack_commands(
    scenario: PodspecScenario, major: int, podspec_charm: str, probe_charm: str
) -> tuple[tuple[str, ...], ...]:
    """``juju`` arguments that deploy both apps and relate them, on Juju ``major``."""
    resource = f"workload-image={PODSPEC_IMAGE}"
    return (
        ("deploy", podspec_charm, scenario.app, "--resource", resource),
        ("deploy", probe_charm, scenario.other, "--resource", resource),
        (relate_verb(major), *scenario.endpoints),
    )


def databag_actions(scenario: PodspecScenario) -> tuple[tuple[str, Mapping[str, object]], ...]:
    """The sidecar probe's set-databag runs (unit, then app: its one unit leads)."""
    base = {"endpoint": "probe-provider", "key": DATABAG_KEY}
    return tuple(
        (f"{scenario.other}/0", {**base, "scope": scope, "value": value})
        for scope, value in (("unit", f"{scenario.other}/0"), ("app", scenario.other))
    )


def pods_argv(namespace: str, app: str, kubectl: str = "kubectl") -> list[str]:
    selector = f"app.kubernetes.io/name={app}"
    return [kubectl, "get", "pods", "-n", namespace, "-l", selector, "-o", "json"]


def live_plan(
    scenario: PodspecScenario,
    juju: JujuVersion,
    *,
    model: str,
    podspec_charm: str,
    probe_charm: str,
    token: str,
) -> tuple[str, ...]:
    """Every step of a live run on ``juju`` (2.9 or 3.x), as the commands it runs and ``#``
    comments. Refused (HarnessError, one line) where podspec charms are gone."""
    refused = refusal(scenario, juju)
    if refused is not None:
        raise refused
    major = juju.major
    app, other = scenario.app, scenario.other

    def juju_line(args: Sequence[str]) -> str:
        return shlex.join(["juju", *args])

    journal = juju_line(action_args(major, f"{app}/0", "journal", JOURNAL_PARAMS))
    after = {**JOURNAL_PARAMS, "since": "CURSOR"}
    journal_after = juju_line(action_args(major, f"{app}/0", "journal", after))
    expected = load().expect(scenario.disruption, juju).required_hooks(leader=True)
    return (
        f"# model {model} (Kubernetes namespace {model}); Juju {major}.{juju.minor}: podspec"
        " charms run there, their hooks in one operator pod per app (<app>-operator-0)",
        juju_line(["add-model", model, "--no-switch"]),
        *(juju_line(args) for args in stack_commands(scenario, major, podspec_charm, probe_charm)),
        f"# wait until settled: every unit of {app} and {other} active and idle",
        f"# write {DATABAG_KEY} in {other}'s unit and app databags ({app} writes its own):",
        *(
            juju_line(action_args(major, u, "set-databag", p))
            for u, p in databag_actions(scenario)
        ),
        f"# wait until settled; snapshot before: the unit list, the workload pods, every"
        f" databag on both sides (juju show-unit {app}/0, juju show-unit {other}/0), the"
        " podspec probe's journal:",
        journal,
        f"# disrupt: {scenario.disruption}",
        juju_line(["config", app, f"{scenario.config_key}={token}"]),
        f"# through the roll, every {SAMPLE_EVERY:.0f} s, recorded in the evidence (the"
        " zero-pods moment is what the seed turned on): the unit list and the workload pods",
        juju_line(["status", app, "--format", "json"]),
        shlex.join(pods_argv(model, app)),
        f"#   until every {app} workload pod is new and Running (at most 900 s)",
        "# snapshot after: the same, and the journal after the cursor (its last seq before"
        " the disruption), every page of it: " + journal_after,
        f"# judge: unit names kept, every databag kept on both sides, {app}'s hooks (run in"
        " its operator pod) against the catalogue; write podspec-run.json and report.md",
        f"# the catalogue expects on Juju {major}.{juju.minor}: {', '.join(expected)}",
    )


@dataclass(frozen=True)
class LivePod:
    name: str
    uid: str
    phase: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "uid": self.uid, "phase": self.phase}


def units_of(status_json: str, app: str) -> tuple[str, ...]:
    """The app's units in ``juju status --format json`` (none when the app has none)."""
    try:
        document = json.loads(status_json)
    except ValueError:
        raise HarnessError(
            "juju status did not print JSON", "run `juju status --format json` by hand"
        ) from None
    apps = document.get("applications") if isinstance(document, dict) else None
    if not isinstance(apps, dict) or app not in apps:
        raise HarnessError(f"juju status shows no application {app!r}", "is it deployed?")
    units = apps[app].get("units") or {}
    return tuple(sorted(units, key=lambda u: int(str(u).rsplit("/", 1)[1])))


def pods_of(pods_json: str) -> tuple[LivePod, ...]:
    """Pods in ``kubectl get pods -o json``: name, uid and phase (Terminating when deleting)."""
    try:
        document = json.loads(pods_json)
    except ValueError:
        raise HarnessError(
            "kubectl did not print JSON", "run `kubectl get pods -o json` by hand"
        ) from None
    found = []
    for item in document.get("items", []) if isinstance(document, dict) else []:
        meta: Mapping[str, Any] = item.get("metadata") or {}
        phase = str((item.get("status") or {}).get("phase") or "Unknown")
        if meta.get("deletionTimestamp"):
            phase = "Terminating"
        found.append(LivePod(str(meta.get("name")), str(meta.get("uid")), phase))
    return tuple(sorted(found, key=lambda p: p.name))


class LivePodspec:
    """The reads and the one write (``juju config``) of a live podspec run, on one model."""

    def __init__(
        self, cli: JujuCLI, namespace: str, *, kubectl: str = "kubectl", run: ProcessRunner
    ) -> None:
        self.cli = cli
        self.namespace = namespace
        self._kubectl = kubectl
        self._run = run

    @classmethod
    def on(cls, cli: JujuCLI, namespace: str) -> LivePodspec:
        return cls(cli, namespace, run=run_process)

    async def units(self, app: str) -> tuple[str, ...]:
        return units_of(await self.cli.run("status", app, "--format", "json"), app)

    async def pods(self, app: str) -> tuple[LivePod, ...]:
        argv = pods_argv(self.namespace, app, self._kubectl)
        done = await self._run(argv, timeout=KUBECTL_TIMEOUT)
        if not done.ok:
            raise HarnessError(
                f"`{' '.join(argv)}` failed: {done.stderr.strip() or done.stdout.strip()}",
                "check that kubectl reaches the cluster (KUBECONFIG)",
            )
        return pods_of(done.stdout)

    async def databags(
        self, units: Sequence[str], endpoints: Sequence[str]
    ) -> dict[str, dict[str, str]]:
        """Every databag of the relation between ``endpoints`` (``app:endpoint`` each) that
        the units see, by owner (a unit's own view wins for its own app's bags).

        Only that relation's: show-unit also lists each app's peer relation, whose bags have
        the same owners (the sidecar probe's peer app bag is empty), so keyed by owner alone
        they would stand in for the relation's own."""
        found: dict[str, dict[str, str]] = {}
        for unit in units:
            for bag in parse_show_unit(await self.cli.show_unit(unit)):
                if f"{_app(bag.seen_by)}:{bag.endpoint}" not in endpoints:
                    continue
                if bag.owner not in found or _app(bag.owner) == _app(unit):
                    found[bag.owner] = dict(bag.data)
        return found

    async def journal(self, unit: str, since: int = 0) -> list[dict[str, Any]]:
        """The journal entries after ``since``, every page of them (the action answers at
        most 64 KiB and says ``more``; each next page starts at its ``cursor``)."""
        found: list[dict[str, Any]] = []
        while True:
            result = await self._action(unit, "journal", {**JOURNAL_PARAMS, "since": since})
            entries = json.loads(str(result.results.get("entries", "[]")))
            found.extend(e for e in entries if isinstance(e, dict))
            cursor = int(str(result.results.get("cursor", since)))
            if str(result.results.get("more", "")) != "true" or cursor <= since:
                return found
            since = cursor

    async def set_databag(self, unit: str, params: Mapping[str, object]) -> None:
        """The sidecar probe's set-databag: a write that did not happen stops the run (the
        databags judged would lack what the harness meant to compare)."""
        await self._action(unit, "set-databag", params)

    async def _action(self, unit: str, action: str, params: Mapping[str, object]) -> ActionResult:
        out, _ = await self.cli.run_action(unit, action, params)
        result = parse_action_output(out, unit, action)
        if result.status != "completed":
            raise HarnessError(
                f"{action} on {unit} ended {result.status}: {result.message}",
                "see `juju show-task` for it",
            )
        return result

    async def config(self, app: str, key: str, value: str) -> None:
        await self.cli.run("config", app, f"{key}={value}")


def _app(owner: str) -> str:
    """The app of a unit name, or the app name itself."""
    return owner.split("/")[0]


def unsettled(status_json: str, apps: Sequence[str]) -> str | None:
    """What keeps ``apps`` from being settled (every unit active and idle), or None."""
    document = json.loads(status_json or "{}")
    applications = document.get("applications") or {}
    waiting = []
    for app in apps:
        units = (applications.get(app) or {}).get("units") or {}
        if not units:
            waiting.append(f"{app}: no unit yet")
        for unit, info in sorted(units.items()):
            workload = (info.get("workload-status") or {}).get("current")
            agent = (info.get("juju-status") or {}).get("current")
            if workload != "active" or agent != "idle":
                waiting.append(f"{unit}: {workload}/{agent}")
    return "; ".join(waiting) or None
