"""The commands the shims forward: ``juju`` (as 2.9, 3.6 or 4.0 prints it), ``microk8s``
and ``sudo -n``.

``juju``'s own rules (juju/cmd, cmd/juju/...): stdout carries the command's output, progress
and notes go to stderr (``ctx.Infof``), an error is ``ERROR <message>`` on stderr with exit
1, and a bad flag exits 2 (``ERROR option provided but not defined: <flag>``, gnuflag).
Flags may come anywhere among the arguments (jubilant puts ``--model M`` right after the
command). Each command's source file is named where it is answered.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from harness.common.errors import HarnessError
from harness.lab.ports import AppSpec
from rehearsal.world import formats, timing
from rehearsal.world.logstore import LEVELS, MAX_LINES, Query, format_line
from rehearsal.world.model import AppInfo
from rehearsal.world.pacing import utcnow

if TYPE_CHECKING:
    from rehearsal.world.model import WorldModel
    from rehearsal.world.world import World


class Exit(Exception):
    def __init__(self, code: int, stderr: str = "", stdout: str = "") -> None:
        super().__init__(stderr)
        self.code = code
        self.stderr = stderr
        self.stdout = stdout


def fail(message: str, code: int = 1) -> Exit:
    return Exit(code, f"ERROR {message}\n")


@dataclass
class Result:
    stdout: str = ""
    stderr: str = ""
    code: int = 0


@dataclass
class Call:
    """One forwarded command: who called, with what."""

    tool: str
    argv: list[str]
    env: dict[str, str]
    cwd: str
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)

    def print(self, text: str) -> None:
        self.out.append(text)

    def info(self, text: str) -> None:
        self.err.append(text)


# Flags ---------------------------------------------------------------------------------------

COMMON = {"--model": "value", "--format": "value", "--output": "value", "--debug": "bool",
          "--verbose": "bool", "--quiet": "bool", "--show-log": "bool", "--utc": "bool",
          "--color": "bool", "--no-color": "bool", "--logging-config": "value",
          "--no-browser-login": "bool"}  # fmt: skip
ALIASES = {"-m": "--model", "-o": "--output", "-n": "--num-units", "-i": "--include",
           "-x": "--exclude", "-l": "--level", "-y": "--yes", "-t": "--timeout",
           "-B": "--no-browser-login"}  # fmt: skip


def parse(
    argv: Sequence[str], flags: Mapping[str, str], *, lines_alias: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """gnuflag, interspersed: ``--name value``, ``--name=value``, ``-x value``, bools."""
    known = {**COMMON, **flags}
    options: dict[str, Any] = {}
    positional: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        word = items[i]
        i += 1
        if word == "--":
            positional.extend(items[i:])
            break
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        name, eq, value = word.partition("=")
        name = ALIASES.get(name, name)
        if lines_alias and name == "--num-units":
            name = "--lines"
        if name not in known:
            raise fail(f"option provided but not defined: {word.partition('=')[0].lstrip('-')}", 2)
        kind = known[name]
        if kind == "bool":
            options[name] = value.lower() != "false" if eq else True
            continue
        if not eq:
            if i >= len(items):
                raise fail(f"flag needs an argument: {word}", 2)
            value = items[i]
            i += 1
        if kind == "multi":
            options.setdefault(name, []).append(value)
        else:
            options[name] = value
    return options, positional


# The client store (JUJU_DATA): what real juju reads and writes there --------------------------


def juju_data(call: Call, world: World) -> Path:
    return Path(call.env.get("JUJU_DATA") or world.folder / "juju-data")


def store_model(call: Call, world: World, model: WorldModel | None, name: str) -> None:
    """``add-model`` writes the model into models.yaml, ``destroy-model`` removes it
    (jujuclient/models.go; libjuju reads it to find a model's uuid)."""
    path = juju_data(call, world) / "models.yaml"
    data = yaml.safe_load(path.read_text()) if path.exists() else None
    data = data or {"controllers": {}}
    entry = data.setdefault("controllers", {}).setdefault("lab", {})
    models = entry.setdefault("models", {}) or {}
    entry["models"] = models
    if model is None:
        models.pop(f"admin/{name}", None)
    else:
        models[f"admin/{name}"] = {"uuid": model.uuid, "type": "caas"}
    path.write_text(yaml.safe_dump(data))


def current_model(call: Call, world: World, options: Mapping[str, Any]) -> str | None:
    given = options.get("--model") or call.env.get("JUJU_MODEL")
    if given:
        return str(given)
    path = juju_data(call, world) / "models.yaml"
    if path.exists():
        data = yaml.safe_load(path.read_text()) or {}
        current = ((data.get("controllers") or {}).get("lab") or {}).get("current-model")
        return str(current) if current else None
    return None


# The API, as the CLI reaches it -----------------------------------------------------------------


async def connect(call: Call, world: World) -> None:
    """A command that needs the controller: the API must answer (api/apiclient.go dial:
    ``unable to connect to API: <dial error>``, @juju-2.9.31 L1132, @3.6 L1073). The
    first ``juju status`` while the controller is away never answers when the world is
    hostile (a dial to an address that takes the connection and says nothing)."""
    if world.controller_up():
        return
    if world.hostility.hang_once and not world.hung_once and call.argv[:1] == ["status"]:
        world.hung_once = True
        await asyncio.Event().wait()  # until the caller kills this juju
    await asyncio.sleep(world.real(timing.CLI_DIAL))
    raise fail(
        f"unable to connect to API: dial tcp 127.0.0.1:{world.ports.juju}: "
        "connect: connection refused"
    )


def the_model(call: Call, world: World, options: Mapping[str, Any]) -> WorldModel:
    name = current_model(call, world, options)
    if not name:
        raise fail("no current model, use juju switch to select a model")
    model = world.model_named(name)
    if model is None:
        short = name.rsplit(":", 1)[-1]
        qualified = short if "/" in short else f"admin/{short}"
        raise fail(f"model lab:{qualified} not found")
    return model  # type: ignore[no-any-return]


Handler = Callable[[Call, "World", list[str]], Awaitable[None]]
HANDLERS: dict[str, Handler] = {}


def command(*names: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for name in names:
            HANDLERS[name] = handler
        return handler

    return register


async def run(world: World, call: Call) -> Result:
    """Answer one forwarded command."""
    expected = call.env.get("REPRO_REHEARSAL", "")
    if expected != world.identity:
        return Result(
            stderr=f"ERROR this {call.tool} is a rehearsal world's ({world.identity}); "
            "set REPRO_REHEARSAL to that line so the evidence says REHEARSAL "
            "(rehearsal/runner.py does)\n",
            code=2,
        )
    try:
        if call.tool == "sudo":
            await sudo(call, world)
        elif call.tool == "microk8s":
            await microk8s(call, world, call.argv)
        elif call.tool == "charmcraft":
            raise Exit(1, "charmcraft: the rehearsal world packs nothing; pass --probe-charm\n")
        else:
            await juju(call, world)
    except Exit as done:
        return Result("".join(call.out) + done.stdout, "".join(call.err) + done.stderr, done.code)
    except HarnessError as error:
        return Result("".join(call.out), "".join(call.err) + f"ERROR {error}\n", 1)
    return Result("".join(call.out), "".join(call.err), 0)


async def juju(call: Call, world: World) -> None:
    args = call.argv
    if not args:
        raise Exit(0, stdout="juju provides easy, intelligent application orchestration\n")
    name = args[0]
    major = world.persona.major
    # 2.9 has add-relation and run-action; 3.x removed them for integrate and run
    # (cmd/juju/commands/main.go registrations at each ref).
    if (major < 3 and name in ("integrate",)) or (major >= 3 and name in ("add-relation",)):
        raise fail(f"unrecognized command: juju {name}\n", 1)
    handler = HANDLERS.get(name)
    if handler is None:
        raise fail(f"unrecognized command: juju {name}")
    await handler(call, world, args[1:])


# juju version / show-controller / models ----------------------------------------------------


@command("version")
async def _version(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/commands/version.go: version.Binary, ``<number>-<os>-<arch>``."""
    options, _ = parse(args, {"--all": "bool"})
    if options.get("--all"):
        call.print(
            formats.go_json(
                {
                    "version": world.persona.client,
                    "git-commit": "rehearsal",
                    "git-tree-state": "clean",
                    "compiler": "gc",
                }
            )
        )
        return
    call.print(world.persona.client + "\n")


@command("show-controller")
async def _show_controller(call: Call, world: World, args: list[str]) -> None:
    parse(args, {"--show-password": "bool"})
    shown = formats.show_controller(world, reachable=world.controller_up())
    if not world.controller_up():
        await asyncio.sleep(world.real(timing.CLI_DIAL))
    call.print(formats.go_json(shown))


@command("models", "list-models")
async def _models(call: Call, world: World, args: list[str]) -> None:
    options, _ = parse(args, {"--controller": "value", "--all": "bool", "--uuid": "bool"})
    await connect(call, world)
    given = options.get("--controller")
    if given and given != "lab":
        raise fail(f"controller {given} not found")
    current = current_model(call, world, {})
    call.print(formats.go_json(formats.models(world, current)))


@command("add-model")
async def _add_model(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/controller/addmodel.go (2.9.31 L257ff, 3.6 L272ff): nothing on stdout, one
    line on stderr."""
    _, positional = parse(
        args,
        {"--no-switch": "bool", "--config": "multi", "--credential": "value", "--owner": "value",
         "--controller": "value", "-c": "value"},
    )  # fmt: skip
    if not positional:
        raise fail("model name is required", 2)
    await connect(call, world)
    name = positional[0]
    if name in world.models or name == "controller":
        raise fail(f'failed to create new model: model "{name}" for admin already exists')
    model = world.add_model(name)
    store_model(call, world, model, name)
    call.info(
        f"Added '{name}' model on microk8s/localhost with credential 'microk8s' for user 'admin'\n"
    )


@command("destroy-model")
async def _destroy_model(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/model/destroy.go: 2.9 confirms with ``-y``, 3.x and 4.0 with ``--no-prompt``
    (cmd/modelcmd/confirmation.go@3.6); it waits until the model is gone, even with
    ``--no-wait`` (which only zeroes the forced steps' max-wait)."""
    flags = {"--destroy-storage": "bool", "--release-storage": "bool", "--force": "bool",
             "--no-wait": "bool", "--timeout": "value"}  # fmt: skip
    flags["--yes" if world.persona.major < 3 else "--no-prompt"] = "bool"
    options, positional = parse(args, flags)
    if not positional:
        raise fail("no model specified", 2)
    if options.get("--timeout") and not options.get("--force"):
        raise fail("--timeout can only be used with --force (dangerous)", 2)
    await connect(call, world)
    name = positional[0].rsplit(":", 1)[-1].rsplit("/", 1)[-1]
    if name == "controller":
        raise fail(f"\"{name}\" is a controller; use 'juju destroy-controller' to destroy it")
    model = world.model_named(name)
    if model is None:
        raise fail(f"model lab:admin/{name} not found")
    call.info("Destroying model\n")
    model.life = "dying"
    await asyncio.sleep(world.real(3.0))
    world.remove_model(name)
    store_model(call, world, None, name)
    call.info(
        f"Waiting for model to be removed, {len(model.twin.records.apps)} application(s)....\n"
    )
    call.info("\nModel destroyed.\n")


# juju status / show-unit / model-config ---------------------------------------------------------


@command("status")
async def _status(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/status/status.go ``runStatus``; an empty model says so on stderr."""
    options, positional = parse(
        args,
        {"--relations": "bool", "--storage": "bool", "--watch": "value", "--integrations": "bool"},
    )
    await connect(call, world)
    model = the_model(call, world, options)
    if positional and world.persona.major >= 4:
        # juju issue 21271: status selectors are not implemented on 4.0
        raise fail("patterns are not implemented")
    shown = model.run_now(lambda: formats.status(world, model))
    fmt = options.get("--format", "tabular")
    if fmt == "json":
        call.print(formats.go_json(shown))
    elif fmt == "yaml":
        call.print(yaml.safe_dump(shown, sort_keys=False))
    else:
        call.print(_tabular(shown))
    if not model.twin.records.apps:
        call.info(f'\nModel "{model.name}" is empty.\n')


def _tabular(shown: Mapping[str, Any]) -> str:
    lines = [
        "Model  Controller  Cloud/Region        Version",
        f"{shown['model']['name']}  lab  microk8s/localhost  {shown['model']['version']}",
        "",
    ]
    lines.append("Unit  Workload  Agent  Address  Message")
    for app in shown["applications"].values():
        for unit, status in (app.get("units") or {}).items():
            lines.append(
                f"{unit}  {status['workload-status']['current']}  "
                f"{status['juju-status']['current']}  {status.get('address', '')}  "
                f"{status['workload-status'].get('message', '')}"
            )
    return "\n".join(lines) + "\n"


@command("show-unit")
async def _show_unit(call: Call, world: World, args: list[str]) -> None:
    options, positional = parse(
        args, {"--endpoint": "value", "--related-unit": "value", "--app": "bool"}
    )
    if not positional:
        raise fail("an unit name must be supplied", 2)
    await connect(call, world)
    model = the_model(call, world, options)
    name = positional[0]

    def render() -> dict[str, Any]:
        app, _, number = name.partition("/")
        found = model.twin.records.apps.get(app)
        unit = found.unit(int(number)) if found is not None and number.isdigit() else None
        if unit is None:
            raise fail(f'unit "{name}" not found')
        return formats.show_unit(world, model, unit)

    shown = model.run_now(render)
    if options.get("--format", "yaml") == "json":
        call.print(formats.go_json(shown))
    else:
        call.print(yaml.safe_dump(shown, sort_keys=False))


@command("model-config")
async def _model_config(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/model/config.go: get (``Value``/``Source`` in JSON), ``k=v`` sets and
    ``--reset k1,k2`` resets, both silently."""
    options, positional = parse(
        args, {"--reset": "multi", "--file": "value", "--ignore-read-only-fields": "bool"}
    )
    await connect(call, world)
    model = the_model(call, world, options)
    resets = [k for group in options.get("--reset", []) for k in group.split(",") if k]
    sets = [p for p in positional if "=" in p]
    if resets or sets:
        with world.lock:
            for key in resets:
                model.config[key] = _default_of(model, key)
            for pair in sets:
                key, _, value = pair.partition("=")
                model.config[key] = (_typed(value), "model")
        return
    if positional:
        key = positional[0]
        if key not in model.config:
            raise fail(f'key "{key}" not found in {{"{model.name}"}} model.')
        value = model.config[key][0]
        call.print(formats.go_json(value) if options.get("--format") == "json" else f"{value}\n")
        return
    call.print(formats.go_json(formats.model_config(model)))


def _default_of(model: WorldModel, key: str) -> tuple[Any, str]:
    from rehearsal.world.model import default_config

    defaults = default_config(model.name, model.uuid, model.world.persona.series)
    if key == "logging-config":
        return ("<root>=INFO", "default")
    return defaults.get(key, ("", "default"))


def _typed(value: str) -> Any:
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    return value


# Changing the model: deploy, integrate, config, trust, refresh, scale ------------------------


def _charm_name(charm: str, cwd: str) -> tuple[str, str]:
    """(charm name, source) for what deploy/refresh was given: a local .charm's metadata
    name, else the Charmhub name."""
    path = Path(cwd) / charm if not charm.startswith("/") else Path(charm)
    if charm.startswith((".", "/")) or charm.endswith(".charm"):
        from rehearsal.world.charms import charm_metadata

        return str(charm_metadata(path)["name"]), "local"
    return charm, "charm-hub"


@command("deploy")
async def _deploy(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/application/deploy.go; the ``Located``/``Deploying`` lines are
    deployer/charm.go's ``formatLocatedText``/``formatDeployingText`` on stderr."""
    options, positional = parse(
        args,
        {"--channel": "value", "--revision": "value", "--base": "value", "--series": "value",
         "--config": "multi", "--constraints": "multi", "--num-units": "value",
         "--resource": "multi", "--storage": "multi", "--trust": "bool", "--to": "value",
         "--bind": "value", "--force": "bool", "--dry-run": "bool", "--attach-storage": "value"},
    )  # fmt: skip
    if not positional:
        raise fail("no charm name specified", 2)
    await connect(call, world)
    model = the_model(call, world, options)
    charm = positional[0]
    name, source = _charm_name(charm, call.cwd)
    app = positional[1] if len(positional) > 1 else name
    config = {}
    for item in options.get("--config", []):
        key, _, value = item.partition("=")
        config[key] = value
    resources = dict(r.partition("=")[::2] for r in options.get("--resource", []))
    spec = AppSpec(
        app,
        name,
        channel=options.get("--channel"),
        trust=bool(options.get("--trust")),
        units=int(options.get("--num-units", 1)),
        config=config,
        resources=resources,
    )
    info = AppInfo(
        name, source, 1 if source == "local" else _revision(name), options.get("--channel")
    )
    op = model.deploy(spec, info)
    await model.accepted(op)
    where = "local charm" if source == "local" else "charm"
    call.info(f'Located {where} "{name}", revision {info.revision}\n')
    call.info(
        f'Deploying "{app}" from {"local" if source == "local" else "charm-hub"} charm '
        f'"{name}", revision {info.revision} on ubuntu@22.04/stable\n'
    )


def _revision(name: str) -> int:
    return {"mysql-k8s": 210, "mysql-router-k8s": 530}.get(name, 1)


@command("integrate", "relate", "add-relation")
async def _integrate(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/application/integrate.go (3.x, 4.0; addrelation.go on 2.9): silent."""
    options, positional = parse(args, {"--via": "value"})
    if len(positional) != 2:
        raise fail("an integration must involve two applications", 2)
    await connect(call, world)
    model = the_model(call, world, options)
    a, b = (_endpoint(model, p) for p in positional)
    model.check_integrate(a, b)
    op = model.submit("integrate", lambda: model.twin_juju.integrate_now(a, b))
    try:
        await model.accepted(op)
    except HarnessError as error:
        if "already related" in str(error):
            raise fail(f'cannot add relation "{a} {b}": relation {a} {b} already exists') from None
        raise


def _endpoint(model: WorldModel, given: str) -> str:
    """Juju infers a missing endpoint when one matches; the harness always names both."""
    if ":" in given:
        return given
    raise fail(
        f'cannot relate "{given}": no endpoint given (the rehearsal world needs app:endpoint)'
    )


@command("config")
async def _config(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/application/config.go: ``k=v`` silently; ``--format json`` the settings."""
    options, positional = parse(args, {"--reset": "multi", "--file": "value"})
    if not positional:
        raise fail("no application name specified", 2)
    await connect(call, world)
    model = the_model(call, world, options)
    app, pairs = positional[0], positional[1:]
    if app not in model.twin.records.apps:
        raise fail(f'application "{app}" not found')
    if not pairs:
        settings = {
            k: {"value": v, "source": "user"}
            for k, v in model.twin.records.apps[app].config.items()
        }
        call.print(
            formats.go_json(
                {"application": app, "charm": model.apps[app].charm, "settings": settings}
            )
        )
        return
    values = dict(p.partition("=")[::2] for p in pairs)
    op = model.submit("config", lambda: asyncio.run(model.twin_juju.set_config(app, values)))
    await model.accepted(op)


@command("trust")
async def _trust(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/application/trust.go: on a CAAS model ``--scope=cluster`` is required."""
    options, positional = parse(args, {"--scope": "value", "--remove": "bool"})
    if not positional:
        raise fail("no application name specified", 2)
    await connect(call, world)
    model = the_model(call, world, options)
    if options.get("--scope") != "cluster" and not options.get("--remove"):
        raise fail(
            "'juju trust' currently grants full access to the cluster itself.\n"
            "Set the scope to 'cluster' using '--scope=cluster' to confirm this choice."
        )
    app = positional[0]
    if app not in model.twin.records.apps:
        raise fail(f'application "{app}" not found')
    op = model.submit("config", lambda: asyncio.run(model.twin_juju.trust(app)))
    await model.accepted(op)


@command("refresh", "upgrade-charm")
async def _refresh(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/application/refresh.go (@3.6 L444): ``Added <source> charm "NAME", revision
    N, to the model`` on stderr."""
    options, positional = parse(
        args,
        {"--path": "value", "--channel": "value", "--resource": "multi", "--revision": "value",
         "--switch": "value", "--force": "bool", "--force-units": "bool", "--base": "value"},
    )  # fmt: skip
    if not positional:
        raise fail("no application name specified", 2)
    await connect(call, world)
    model = the_model(call, world, options)
    app = positional[0]
    if app not in model.twin.records.apps:
        raise fail(f'application "{app}" not found')
    resources = dict(r.partition("=")[::2] for r in options.get("--resource", []))
    info = model.apps[app]
    channel = options.get("--channel")
    if options.get("--path"):
        _charm_name(options["--path"], call.cwd)  # it must be a charm
        info.revision += 1
    op = model.submit(
        "refresh",
        lambda: asyncio.run(
            model.twin_juju.refresh(app, channel=channel, resources=resources or None)
        ),
    )
    await model.accepted(op)
    source = "local" if info.source == "local" else "charm-hub"
    call.info(f'Added {source} charm "{info.charm}", revision {info.revision}, to the model\n')


@command("scale-application")
async def _scale(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/application/scaleapplication.go: ``APP scaled to N units`` on stderr."""
    options, positional = parse(args, {})
    if len(positional) != 2 or not positional[1].isdigit():
        raise fail("scale-application requires an application name and a scale", 2)
    await connect(call, world)
    model = the_model(call, world, options)
    app, count = positional[0], int(positional[1])
    if app not in model.twin.records.apps:
        raise fail(f'application "{app}" not found')
    op = model.submit("scale-down-up", lambda: asyncio.run(model.twin_juju.scale(app, count)))
    await model.accepted(op)
    call.info(f"{app} scaled to {count} units\n")


# Actions ------------------------------------------------------------------------------------


@command("run", "run-action")
async def _run(call: Call, world: World, args: list[str]) -> None:
    """3.x/4.0 ``juju run UNIT ACTION k=v --wait --format json`` (cmd/juju/action/run.go,
    common.go ``formatActionResult``); 2.9 ``juju run-action ... --wait`` (runaction.go,
    showoutput.go ``FormatActionResult`` with compat: keyed by unit tag, ``UnitId``, a
    non-zero code as ``ReturnCode``, UTC timing). 2.9's ``juju run`` runs commands, not
    actions."""
    major = world.persona.major
    if major < 3 and call.argv[0] == "run":
        raise fail("the rehearsal world's 2.9 `juju run` runs no commands on units")
    if major >= 3 and call.argv[0] == "run-action":
        raise fail("unrecognized command: juju run-action")
    options, positional = parse(
        args, {"--wait": "value", "--background": "bool", "--params": "value",
               "--string-args": "bool"},
    )  # fmt: skip
    if len(positional) < 2:
        raise fail("no unit specified", 2)
    await connect(call, world)
    model = the_model(call, world, options)
    unit_name, action = positional[0], positional[1]
    params: dict[str, Any] = {}
    if options.get("--params"):
        given = Path(call.cwd, options["--params"])
        params.update(yaml.safe_load(await asyncio.to_thread(given.read_text)) or {})
    for pair in positional[2:]:
        key, _, value = pair.partition("=")
        params[key] = value if options.get("--string-args") else yaml.safe_load(value)

    def find() -> Any:
        app, _, number = unit_name.partition("/")
        found = model.twin.records.apps.get(app)
        if found is None:
            return None
        if number == "leader":
            return found.unit(found.leader) if found.leader is not None else None
        return found.unit(int(number)) if number.isdigit() else None

    unit = model.run_now(find)
    if unit is None:
        if major < 3:
            raise fail(f'unit "{unit_name}" not found')
        call.info(
            f"Operation {model.actions + 1} failed to schedule any tasks:\n"
            f'unit "{unit_name}" not found\n'
        )
        return
    actions = model.twin.records.apps[unit.app].charm.meta.get("actions") or {}
    if action not in actions:
        if major >= 4:
            raise fail(f'action "{action}" not defined on unit "{unit.name}" (not found)')
        raise fail(f'action "{action}" not defined on unit "{unit.name}"')
    model.actions += 2
    task = str(model.actions)
    enqueued = utcnow()
    if major >= 3:
        tag = f"unit-{unit.name.replace('/', '-')}"
        call.info(
            f"Running operation {model.actions - 1} with 1 task\n  - task {task} on {tag}\n\n"
            f"Waiting for task {task}...\n"
        )
    op = model.submit(
        "action",
        lambda: model.pacer.run_action(
            unit, lambda: model.twin.uniter.run_action(unit, action, params)
        ),
        queued=False,
    )
    status, results, message = await model.finished(op)
    started, completed = enqueued, utcnow()
    # An action that called event.fail() is "failed" with code 0; a charm that raised
    # exits 1 (the uniter's return-code).
    code = 1 if message.startswith("uncaught exception") else 0
    output: dict[str, Any] = dict(results)
    output["return-code"] = code
    response: dict[str, Any] = {"id": task, "status": status}
    if major >= 3:
        response["unit"] = unit.name
    else:
        response["UnitId"] = unit.name
    if message:
        response["message"] = message
    if major < 3:
        output.pop("return-code", None)  # compat drops a zero code (showoutput.go L432ff)
    if output or major < 3:
        response["results"] = _sorted_deep(output)

    def stamp(moment: datetime) -> str:
        return moment.strftime("%Y-%m-%d %H:%M:%S +0000 UTC")

    response["timing"] = {
        "completed": stamp(completed),
        "enqueued": stamp(enqueued),
        "started": stamp(started),
    }
    key = unit.name if major >= 3 else f"unit-{unit.name.replace('/', '-')}"
    call.print(formats.go_json({key: _sorted_deep(response)}))


def _sorted_deep(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_deep(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_deep(v) for v in value]
    return value


# debug-log -----------------------------------------------------------------------------------


@command("debug-log")
async def _debug_log(call: Call, world: World, args: list[str]) -> None:
    """cmd/juju/commands/debuglog.go (flags and ``writeLogRecord``); the records as the
    controller returns them (``logstore.py``)."""
    flags = {"--include": "multi", "--exclude": "multi", "--include-module": "multi",
             "--exclude-module": "multi", "--level": "value", "--lines": "value",
             "--limit": "value", "--replay": "bool", "--no-tail": "bool", "--tail": "bool",
             "--location": "bool", "--date": "bool", "--ms": "bool"}  # fmt: skip
    if world.persona.major >= 3:
        flags.update({"--include-labels": "multi", "--exclude-labels": "multi",
                      "--retry": "bool", "--retry-delay": "value"})  # fmt: skip
    if world.persona.major >= 4:
        flags["--firehose"] = "bool"
    options, positional = parse(args, flags, lines_alias=True)
    if positional:
        raise fail(f"unrecognized args: {json.dumps(positional)}", 2)
    if options.get("--tail") and options.get("--no-tail"):
        raise fail("setting --tail and --no-tail not valid", 2)
    level = str(options.get("--level", "")).upper() or "TRACE"
    if level not in LEVELS:
        raise fail(f"level value {options['--level']!r} is not one of {', '.join(LEVELS)}", 2)
    await connect(call, world)
    model = the_model(call, world, options)
    lines = int(options.get("--lines", 10))
    if lines > MAX_LINES:
        raise fail(f"too many lines requested ({lines}) maximum is {MAX_LINES}")
    query = Query(
        include_entity=options.get("--include", []),
        exclude_entity=options.get("--exclude", []),
        include_module=options.get("--include-module", []),
        exclude_module=options.get("--exclude-module", []),
        level=level,
        replay=bool(options.get("--replay")),
        lines=lines,
    )
    if not options.get("--no-tail"):
        raise fail("the rehearsal world's debug-log does not tail; pass --no-tail")
    records = model.logs.read(query, utcnow())
    limit = options.get("--limit")
    if limit:
        records = records[: int(limit)]
    for record in records:
        call.print(
            format_line(
                record,
                date=bool(options.get("--date")),
                ms=bool(options.get("--ms")),
                utc=bool(options.get("--utc")),
                location=bool(options.get("--location")),
            )
            + "\n"
        )


# microk8s and sudo ---------------------------------------------------------------------------


async def sudo(call: Call, world: World) -> None:
    """``sudo -n CMD``: this user may run ``true`` and ``microk8s`` without a password."""
    args = list(call.argv)
    if args[:1] == ["-n"]:
        args = args[1:]
    if args == ["true"]:
        return
    if args[:1] == ["microk8s"]:
        await microk8s(call, world, args[1:])
        return
    raise Exit(1, "sudo: a password is required\n")


async def microk8s(call: Call, world: World, args: list[str]) -> None:
    """The MicroK8s commands the harness runs (canonical/microk8s scripts/wrappers)."""
    if not args:
        raise Exit(1, "Usage: microk8s COMMAND\n")
    verb = args[0]
    if verb == "version":
        call.print("MicroK8s v1.34.2 revision 8300\n")
        return
    if verb == "config":
        call.print((world.folder / "kubeconfig").read_text())
        return
    if verb == "stop":
        await world.stop_node()
        call.print("Stopped.\n")
        return
    if verb == "start":
        await world.start_node()
        call.print("Started.\n")
        return
    if verb == "status":
        await _microk8s_status(call, world, args[1:])
        return
    raise Exit(1, f"'{verb}' is not a valid MicroK8s subcommand.\n")


RUNNING = "microk8s is running\nhigh-availability: no\n  datastore master nodes: 127.0.0.1:19001\n"


async def _microk8s_status(call: Call, world: World, args: list[str]) -> None:
    """status.py: ``--wait-ready --timeout N`` waits for the node; when the timeout runs out
    it prints "microk8s is not running..." and still exits 0 (microk8s issue 3927)."""
    wait = "--wait-ready" in args
    timeout = float(args[args.index("--timeout") + 1]) if "--timeout" in args else 0.0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + (world.real(timeout) if wait else 0)
    while world.kube_state() != "up" and loop.time() < deadline:
        await world.changes()
    if world.kube_state() == "up":
        call.print(RUNNING)
    else:
        call.print("microk8s is not running. Use microk8s inspect for a deeper inspection.\n")


def describe(call: Call) -> str:
    return shlex.join([call.tool, *call.argv])
