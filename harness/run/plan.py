"""A dry run's plan: every step ``repro run`` takes, in order, as commands and comments."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.common.versions import JujuVersion
from harness.run.reproduce import (
    deploy_commands,
    disruption_commands,
    local_charm,
)
from harness.scenario.scenarios import Scenario
from harness.scenario.secrets import secret_options
from harness.scenario.stack import PROBE, PROBE_PEER, Stack, WatchedPath


def plan(
    scenario: Scenario,
    stack: Stack,
    *,
    model: str,
    namespace: str,
    juju: JujuVersion | None = None,
    new_model: bool = False,
    model_config: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """Every step ``repro run`` takes, in order, as commands and ``#`` comments (--dry-run).

    Every ``juju`` command names ``model`` (``-m``): copied into a terminal, none acts on
    the model ``juju switch`` last chose. ``new_model``: the run makes it (``add-model``),
    then sets ``model_config`` there.
    """
    from harness.live.juju_cli import debug_log_plan
    from harness.observe.settle import HOOKS_TIMEOUT, QUIET_FOR

    affected = sorted({t.app for t in scenario.targets})
    lines = [f"# model {model} (Kubernetes namespace {namespace})"]
    if new_model:
        lines.append(f"juju add-model {model} --no-switch")
    if model_config:
        settings = " ".join(f"{key}={value}" for key, value in model_config.items())
        lines.append(f"juju model-config -m {model} {settings}")
    if stack.bundle is not None:
        lines += bundle_plan_notes(stack)
    else:
        lines.append("# deploy the stack")
    lines += _missing_charm_notes(stack)
    lines += deploy_commands(stack, juju, as_bundle=False, model=model)
    lines += [
        f"# wait until settled: {', '.join(stack.app_names)} active and idle",
        *_marking_notes(stack),
        *_watch_notes(stack, scenario),
        "# snapshot before: pods, watched files, relation data, statuses"
        + (", probe journal" if stack.has_probe else ""),
        f"# disrupt: {scenario.disruption}",
        *_pods_that_go(scenario, stack),
        *disruption_commands(scenario, model, namespace, local_charm(scenario, stack)),
        f"# wait until settled: each disrupted {', '.join(affected)} unit shows a new"
        " incarnation (new pod uid, restart count or agent start) and runs the catalogue's"
        f" required hooks (missing after {HOOKS_TIMEOUT:.0f}s: reported, not awaited), then pods"
        f" Ready, agents idle, no new hook line for {QUIET_FOR:.0f}s",
        "# snapshot after: pods, watched files, relation data, statuses"
        + (", probe journal" if stack.has_probe else ""),
        *debug_log_plan(model),
        "# judge against the catalogue and write bundle.json, report.md, timeline.svg",
    ]
    return tuple(lines)


PACK_THE_PROBE = (
    "pack the probe in a clone of this repository, (cd charms/probe && charmcraft pack), "
    "and pass --probe-charm PATH"
)


def _missing_charm_notes(stack: Stack) -> tuple[str, ...]:
    """A local charm the plan deploys that is not there (the probe, outside a clone)."""
    notes: list[str] = []
    for spec in stack.apps:
        if not ("/" in spec.charm or spec.charm.endswith(".charm")):
            continue  # from Charmhub
        if Path(spec.charm).exists():
            continue
        fix = PACK_THE_PROBE if spec.app in (PROBE, PROBE_PEER) else "check the path"
        note = f"# note: {spec.charm} does not exist in {Path.cwd()}: {fix}"
        if note not in notes:
            notes.append(note)
    return tuple(notes)


def _pods_that_go(scenario: Scenario, stack: Stack) -> tuple[str, ...]:
    """pod-delete: the pods each target loses, by name (a fresh deploy numbers units from
    0, and a unit's pod is named after it)."""
    from harness.disrupt.steps import pod_name

    if scenario.disruption != "pod-delete":
        return ()
    counts = {spec.app: spec.units for spec in stack.apps}
    lines = []
    for target in scenario.targets:
        if target.units:
            pods = ", ".join(pod_name(u) for u in target.units)
            lines.append(f"# pods that go: {pods} ({', '.join(target.units)})")
            continue
        count = counts.get(target.app, 1)
        pods = ", ".join(pod_name(f"{target.app}/{n}") for n in range(count))
        why = f"every unit of {target.app}"
        if count > 1:
            why += f", deleted together; --unit {target.app}/N deletes one"
        lines.append(f"# pods that go: {pods} ({why})")
    return tuple(lines)


def _watch_note(watched: WatchedPath) -> str:
    if watched.layer is None:
        return "layer unknown: recorded, not judged"
    if not watched.judged:
        return f"{watched.layer}: recorded, not judged"
    if watched.charm_written:
        return f"{watched.layer}: judged on content and metadata; undetermined if rewritten"
    return watched.layer


def bundle_plan_notes(stack: Stack) -> tuple[str, ...]:
    """What the plan says about a user's bundle: which file, its digest, the observer."""
    bundle = stack.bundle
    if bundle is None:
        return ()
    lines = [
        f"# deploy bundle {bundle.label} from {bundle.path} (sha256 {bundle.digest})",
        f"#   app by app, as `{bundle.deploy_command()}` would: {', '.join(bundle.app_names)}",
    ]
    if not bundle.kubernetes:
        lines.append(
            "# note: the bundle does not say `bundle: kubernetes`; juju/charm bundledata.go "
            "reads an untyped bundle as a machine one (unverified how Juju deploys it on a "
            "Kubernetes model: add the key)"
        )
    lines += [f"# note: {note}" for note in bundle.notes]
    hidden = secret_options(stack)
    if hidden:
        lines.append(
            "# config shown redacted (the run passes the bundle's own values): "
            + "; ".join(f"{o.app} {o.key} ({o.why})" for o in hidden)
        )
    if stack.has_probe:
        lines.append(
            "# add the probe observer (probe, probe-peer): its own apps, related only "
            "to each other, disrupted alongside"
        )
    else:
        lines.append("# no probe observer (--no-probe): hooks come from debug-log only")
    return tuple(lines)


def _marking_notes(stack: Stack) -> tuple[str, ...]:
    lines = []
    if stack.has_probe:
        lines.append(
            "# write the probe markers and databag values (actions write-marker, set-databag)"
        )
    lines += [
        f"# write a marker into {w.app} {w.container}:{w.path} (kubectl exec)"
        for w in stack.watched
        if w.seed
    ]
    return tuple(lines)


def _watch_notes(stack: Stack, scenario: Scenario) -> tuple[str, ...]:
    if stack.bundle is None:
        return ()
    lines = [f"# watch {w.app} {w.container}:{w.path} ({_watch_note(w)})" for w in stack.watched]
    for app in sorted({t.app for t in scenario.targets} & set(stack.bundle.app_names)):
        related = stack.bundle.relations_of(app)
        listed = ", ".join(f"{a} {b}" for a, b in related) or "none in the bundle"
        lines.append(f"# relation data of every relation of {app} (juju show-unit): {listed}")
    return tuple(lines)
