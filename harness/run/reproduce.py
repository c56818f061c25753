"""What a reader needs to reproduce a run: commands to paste, and the user's bundle.

The commands name no path of this machine (a local charm is named where a reader has it);
the user's bundle is recorded as the evidence carries it.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.common.redact import redact_options, redacted
from harness.common.versions import JujuVersion
from harness.disrupt.base import Disruption
from harness.evidence.user_bundle import UserBundle
from harness.run.options import RunOptions
from harness.scenario.scenarios import Scenario, Target
from harness.scenario.secrets import secret_options, why_secret
from harness.scenario.stack import PROBE, Stack, WatchedPath


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
    app by app, as the harness deploys it, a secret option's value shown redacted. With
    ``model``, each command names it (``-m``).
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
            secret = why_secret(stack, spec.app, key) is not None
            parts += ["--config", shlex.quote(f"{key}={redacted(value) if secret else value}")]
        for key, value in sorted(spec.resources.items()):
            parts += ["--resource", f"{key}={value}"]
        lines.append(" ".join(parts))
    verb = "relate" if juju is not None and juju.major < 3 else "integrate"
    lines += [" ".join(["juju", verb, *on, a, b]) for a, b in relations]
    return tuple(lines)


def repro_command(
    scenario: Scenario,
    backend: str,
    juju: str | None,
    stack: Stack | None = None,
    options: RunOptions | None = None,
) -> str:
    """``repro run`` with every option that shapes the result, naming no path of this machine.

    A user's bundle, its overlays, a ``--charm-source`` folder and a ``--charm-venv`` are
    named from the bundle's folder (the report says to run it there); other local paths as
    ``portable_path`` names them. Left out, as they do not change what is observed: where
    the evidence goes, ``--dry-run``, ``--keep-model`` and ``--model`` (a model on this
    machine's controller; the report says whose model config shaped the hooks).
    """
    args = ["repro", "run", scenario.name]
    bundle = stack.bundle if stack is not None else None
    if stack is not None and bundle is not None:
        folder = bundle.path.parent
        given = options.overlay if options is not None else ()
        overlays = [Path(o) for o in given] or [folder / name for name in bundle.overlays]
        args += ["--bundle", from_folder(bundle.path, folder)]
        for overlay in overlays:
            args += ["--overlay", from_folder(overlay, folder)]
        args += ["--app", scenario.targets[0].app]
        for w in stack.watched:
            if w.app in bundle.app_names:
                args += ["--mark" if w.seed else "--watch", f"{w.app}:{w.container}:{w.path}"]
        for text in options.charm_source if options is not None else ():
            app, _, source = text.partition("=")
            args += ["--charm-source", f"{app}={from_folder(Path(source), folder)}"]
        for text in options.charm_venv if options is not None else ():
            # The charm's own dependencies shape every hook it runs (README "Any charm").
            app, _, venv = text.partition("=")
            args += ["--charm-venv", f"{app}={from_folder(Path(venv), folder)}"]
        if not stack.has_probe:
            args.append("--no-probe")
    elif options is not None and options.app:
        args += ["--app", options.app]
    if options is not None and options.unit:
        args += ["--unit", options.unit]
    args += _probe_args(backend, stack, options)
    args += ["--backend", backend]
    if juju and backend == "twin":
        args += ["--juju", juju]
    for key in stack.redact if stack is not None else ():
        args += ["--redact", key]
    if backend == "live" and options is not None:
        if options.juju_driver != "auto":
            args += ["--juju-driver", options.juju_driver]
        if options.inherit_model_config:
            args.append("--inherit-model-config")
    return " ".join(_quoted(arg) for arg in args)


def _probe_args(backend: str, stack: Stack | None, options: RunOptions | None) -> list[str]:
    """``--probe-charm``: live always needs the packed probe; the twin only a folder given."""
    probe = next((s.charm for s in stack.apps if s.app == PROBE), None) if stack else None
    given = options.probe_charm if options is not None else None
    if probe is None:
        return []
    if backend == "live":
        return ["--probe-charm", _portable_charm(given or probe)[0]]
    if given is not None and Path(given).is_dir():  # the twin runs that folder's code
        return ["--probe-charm", portable_path(Path(given))]
    return []


def _quoted(arg: str) -> str:
    """Shell-quoted, but a ``*`` of a charm's name pattern stays a glob the shell expands."""
    if "*" in arg and shlex.quote(arg.replace("*", "x")) == arg.replace("*", "x"):
        return arg
    return shlex.quote(arg)


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


def portable_path(path: Path) -> str:
    """A local path as a reader names it: inside a project (a folder above it holds
    pyproject.toml, .git or tox.ini: this repository, or the charm author's) relative to
    that project, elsewhere by its own name only."""
    local = path.expanduser().resolve()
    root = _project_root(local)
    return "./" + (local.relative_to(root).as_posix() if root else local.name)


def from_folder(path: Path, folder: Path) -> str:
    """``path`` named from ``folder`` (``./x``, ``../x``) when both are in one project (or
    ``path`` is inside ``folder``), else as ``portable_path`` names it."""
    local, base = path.expanduser().resolve(), folder.expanduser().resolve()
    if local == base:
        return "."
    if base in local.parents:
        return "./" + local.relative_to(base).as_posix()
    root = _project_root(local)
    if root is not None and (base == root or root in base.parents):
        return Path(os.path.relpath(local, base)).as_posix()
    return portable_path(local)


def _portable_charm(path: str) -> tuple[str, str | None]:
    """A local charm as a reader can name it: ``(deploy argument, pack step or None)``.

    Named as ``portable_path`` names it. A charm directory is packed first (``juju deploy``
    of a source directory is gone in Juju 4 and never what CI ran).
    """
    local = Path(path).expanduser().resolve()
    if local == PACKAGED_PROBE:
        # The installed copy of charms/probe: a reader has it at its place in the repository.
        return "./charms/probe/probe_*.charm", "(cd ./charms/probe && charmcraft pack)"
    relative = portable_path(local)
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


def disrupted_apps(scenario: Scenario, stack: Stack) -> tuple[str, ...]:
    """The applications a disruption reaches: its targets', or every one for a node restart."""
    from harness.disrupt import get

    if get(scenario.disruption).takes_node_down:
        return stack.app_names
    return tuple(dict.fromkeys(t.app for t in scenario.targets))


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
    from harness.scenario.bundle_stack import unchecked_inputs

    bundle = stack.bundle
    if bundle is None:
        return None
    chosen = ran_by or {}
    return UserBundle(
        name=bundle.label,
        file=bundle.path.name,
        digest=bundle.digest,
        text=redact_options(bundle.text, lambda a, k: why_secret(stack, a, k) is not None),
        hidden=tuple(option.hidden for option in secret_options(stack)),
        app=app,
        probe=stack.has_probe,
        runs=tuple((app, chosen.get(app, DEPLOYED)) for app in bundle.app_names),
        deploy=bundle.deploy_command(),
        notes=(*bundle.notes, *unchecked_inputs(stack)),
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
