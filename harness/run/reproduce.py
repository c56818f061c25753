"""What a reader needs to reproduce a run: commands to paste, and the user's bundle.

The commands name no path of this machine (a local charm is named where a reader has it);
the user's bundle is recorded as the evidence carries it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.common.versions import JujuVersion
from harness.disrupt.base import Disruption
from harness.evidence.user_bundle import UserBundle
from harness.scenario.scenarios import Scenario, Target
from harness.scenario.stack import Stack, WatchedPath


def deploy_commands(
    stack: Stack,
    juju: JujuVersion | None = None,
    *,
    as_bundle: bool = True,
    model: str | None = None,
) -> tuple[str, ...]:
    """``juju deploy``/``juju integrate`` for the stack (``relate`` before Juju 3).

    A stack built from a user's bundle is given as ``juju deploy`` of that bundle file, then
    the apps and relations the harness adds (the probe observer); with ``as_bundle=False``,
    app by app, as the harness deploys it. With ``model``, each command names it (``-m``).
    """
    on = ["-m", model] if model else []
    lines = []
    bundled: set[str] = set()
    relations = stack.relations
    if stack.bundle is not None and as_bundle:
        lines.append(stack.bundle.deploy_command())
        bundled = set(stack.bundle.app_names)
        ours = set(stack.bundle.app_names)
        relations = tuple(r for r in relations if not {e.partition(":")[0] for e in r} <= ours)
    for spec in stack.apps:
        if spec.app in bundled:
            continue
        parts = ["juju", "deploy", *on, spec.charm, spec.app]
        if spec.channel:
            parts += ["--channel", spec.channel]
        if spec.revision is not None:
            parts += ["--revision", str(spec.revision)]
        if spec.trust:
            parts.append("--trust")
        if spec.units != 1:
            parts += ["-n", str(spec.units)]
        if spec.base:
            parts += ["--base", spec.base]
        if spec.constraints:
            parts += ["--constraints", shlex.quote(spec.constraints)]
        for key, value in sorted(spec.storage.items()):
            parts += ["--storage", f"{key}={value}"]
        for key, value in sorted(spec.config.items()):
            parts += ["--config", f"{key}={value}"]
        for key, value in sorted(spec.resources.items()):
            parts += ["--resource", f"{key}={value}"]
        lines.append(" ".join(parts))
    verb = "relate" if juju is not None and juju.major < 3 else "integrate"
    lines += [" ".join(["juju", verb, *on, a, b]) for a, b in relations]
    return tuple(lines)


def repro_command(
    scenario: Scenario, backend: str, juju: str | None, stack: Stack | None = None
) -> str:
    version = f" --juju {juju}" if juju and backend == "twin" else ""
    given = ""
    if stack is not None and stack.bundle is not None:
        given = f" --bundle ./{stack.bundle.path.name} --app {scenario.targets[0].app}"
        given += "".join(
            f" --{'mark' if w.seed else 'watch'} {w.app}:{w.container}:{w.path}"
            for w in stack.watched
            if w.app in stack.bundle.app_names
        )
        if not stack.has_probe:
            given += " --no-probe"
    return f"repro run {scenario.name}{given} --backend {backend}{version}"


# Where an installed wheel carries charms/probe (setup.py; harness.twin.charms reads it too).
PACKAGED_PROBE = Path(__file__).resolve().parents[1] / "probe_charm"


_PROJECT_MARKERS = ("pyproject.toml", ".git", "tox.ini")


_CHARM_NAME = re.compile(r"^name:\s*['\"]?([a-z][a-z0-9-]*)", re.MULTILINE)


def _project_root(path: Path) -> Path | None:
    """The nearest folder above ``path`` that is a project (a checkout the reader has)."""
    for folder in path.parents:
        if any((folder / marker).exists() for marker in _PROJECT_MARKERS):
            return folder
    return None


def _charm_name(folder: Path) -> str:
    for name in ("charmcraft.yaml", "metadata.yaml"):
        try:
            found = _CHARM_NAME.search((folder / name).read_text("utf-8"))
        except OSError:
            continue
        if found:
            return found.group(1)
    return "*"


def _portable_charm(path: str) -> tuple[str, str | None]:
    """A local charm as a reader can name it: ``(deploy argument, pack step or None)``.

    Inside a project (a folder above it holds pyproject.toml, .git or tox.ini: this
    repository, or the charm author's) it is named relative to that project; elsewhere by
    its own name only. A charm directory is packed first (``juju deploy`` of a source
    directory is gone in Juju 4 and never what CI ran).
    """
    local = Path(path).expanduser().resolve()
    if local == PACKAGED_PROBE:
        # The installed copy of charms/probe: a reader has it at its place in the repository.
        return "./charms/probe/probe_*.charm", "(cd ./charms/probe && charmcraft pack)"
    root = _project_root(local)
    relative = "./" + (local.relative_to(root).as_posix() if root else local.name)
    if path.endswith(".charm"):
        return relative, None
    return f"{relative}/{_charm_name(local)}_*.charm", f"(cd {relative} && charmcraft pack)"


def portable_commands(commands: Sequence[str], stack: Stack) -> tuple[str, ...]:
    """``commands`` with every local charm path replaced by one that works on any machine."""
    replaced: list[str] = []
    packs: list[str] = []
    swaps: list[tuple[str, str]] = []
    for spec in stack.apps:
        if ("/" in spec.charm or spec.charm.endswith(".charm")) and spec.charm not in dict(swaps):
            argument, pack = _portable_charm(spec.charm)
            swaps.append((spec.charm, argument))
            if pack and pack not in packs:
                packs.append(pack)
    swaps.sort(key=lambda swap: len(swap[0]), reverse=True)  # a path inside another: longest first
    for command in commands:
        for old, new in swaps:
            command = command.replace(old, new)
        replaced.append(command)
    first_deploy = next((i for i, c in enumerate(replaced) if c.startswith("juju deploy")), 0)
    return (*replaced[:first_deploy], *packs, *replaced[first_deploy:])


def local_charm(scenario: Scenario, stack: Stack) -> str | None:
    """The local charm of the first target's application, for refresh disruptions."""
    for spec in stack.apps:
        if spec.app == scenario.targets[0].app:
            local = "/" in spec.charm or spec.charm.endswith(".charm")
            return spec.charm if local else None
    return None


def applied_targets(scenario: Scenario, disruption: Disruption) -> tuple[Target, ...]:
    """The targets to apply the disruption to: a node restart takes every app at once."""
    return scenario.targets[:1] if disruption.takes_node_down else scenario.targets


def disruption_commands(
    scenario: Scenario, model: str, namespace: str, charm_path: str | None = None
) -> tuple[str, ...]:
    from harness.disrupt import get

    disruption = get(scenario.disruption, charm_path=charm_path)
    return tuple(
        line
        for target in applied_targets(scenario, disruption)
        for line in disruption.plan(model, namespace, target)
    )


def _judged_as(watched: WatchedPath) -> str:
    """How bundle.json says a watched path is judged."""
    if not watched.judged or watched.layer is None:
        return "recorded"
    if watched.seed:
        return "marker, judged"
    if watched.charm_written:
        return "judged on content and metadata"
    return "judged"


def user_bundle(stack: Stack, app: str, ran_by: Mapping[str, str] | None) -> UserBundle | None:
    """The evidence's record of the user's bundle, when the stack came from one."""
    from harness.evidence.user_bundle import DEPLOYED

    bundle = stack.bundle
    if bundle is None:
        return None
    chosen = ran_by or {}
    return UserBundle(
        name=bundle.label,
        file=bundle.path.name,
        digest=bundle.digest,
        text=bundle.text,
        app=app,
        probe=stack.has_probe,
        runs=tuple((app, chosen.get(app, DEPLOYED)) for app in bundle.app_names),
        deploy=bundle.deploy_command(),
        notes=bundle.notes,
        watched=tuple(
            (
                w.app,
                w.container,
                w.path,
                w.layer or "unknown",
                _judged_as(w),
            )
            for w in stack.watched
        ),
    )
