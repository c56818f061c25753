"""Making a live Lab: from pytest-operator's ``ops_test``, or from the current controller.

``lab_from_ops_test`` wraps the model pytest-operator made (it creates and destroys it).
``connect_lab`` is the ``repro`` CLI's: it uses ``--model`` when given (an existing model is
never destroyed), or creates its own model, and destroys what it created unless told to
keep it: with ``--force``, ``--no-wait`` and a bounded wait, because destroying a model
after pod deletions can hang on MicroK8s (pytest-operator issue 84, Juju issue 19869); a
model that could not be removed is named in one line with the command that removes it.
"""

from __future__ import annotations

import logging
import secrets
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, Protocol, runtime_checkable

from harness.common.errors import EnvironmentUnavailable, HarnessError, UnknownName, WaitTimeout
from harness.common.versions import JujuVersion
from harness.lab.ports import Clock, JujuPort, Lab
from harness.lab.waiting import wait_for
from harness.live.clock import RealClock
from harness.live.cluster_port import LiveClusterPort
from harness.live.drivers import choose_driver, controller_models
from harness.live.drivers import controller_version as detect_controller_version
from harness.live.juju_cli import JujuCLI, OpsTestJuju, SubprocessJuju
from harness.live.juju_port import LiveJujuPort
from harness.live.libjuju import connection_open
from harness.live.microk8s import MicroK8sNode
from harness.live.preflight import live_prerequisites_missing
from harness.live.process import ProcessRunner, ProcessTimeout, run_process

log = logging.getLogger(__name__)


@runtime_checkable
class LiveJuju(JujuPort, Protocol):
    """Either live driver's JujuPort (``LiveJujuPort``, ``JubilantJujuPort``), with what the
    lab does to the model's settings when it opens and closes (the twin's has none of it)."""

    @property
    def own_model(self) -> bool: ...

    def adopt(
        self, *, created: bool, juju_defaults: bool, user_set: frozenset[str] = frozenset()
    ) -> None: ...

    async def use_juju_defaults(self) -> dict[str, str]: ...

    async def keep_hook_logging(self) -> str | None: ...

    async def ready_for_teardown(self, timeout: float = 300.0) -> None: ...

    async def restore_logging(self) -> None: ...


def no_controller() -> EnvironmentUnavailable:
    return EnvironmentUnavailable(
        "no Juju controller is reachable", "bootstrap one: `juju bootstrap microk8s`"
    )


DESTROY_TIMEOUT = 600.0
# Juju snap tracks the store has closed ("The available tracks are 2.9, 3, 3.6, 4.0, and 4":
# canonical/concierge PR 122); a 3.6 client drives any 3.x controller ("same major series
# ... are compatible": Juju docs, "Juju component cross-version compatibility").
CLOSED_SNAP_TRACKS = {f"3.{minor}": "3.6" for minor in range(6)}
Echo = Callable[[str], None]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def new_model_name() -> str:
    return f"repro-{secrets.token_hex(3)}"


def check_versions(client_major: int, controller_version: str | None) -> None:
    """A 3.x client cannot drive a 2.9 controller, nor a 2.9 client a 3.x one."""
    if not controller_version:
        return
    try:
        controller = JujuVersion.parse(controller_version)
    except ValueError:
        return  # not a version: nothing to compare, as when it is not known
    if controller.major != client_major:
        # Snap tracks are <major>.<minor>; an agent built in place adds a fourth number.
        track = f"{controller.major}.{controller.minor}"
        raise EnvironmentUnavailable(
            f"the juju client (major {client_major}) cannot drive this "
            f"{controller_version} controller",
            f"install a {controller.major}.x client: "
            f"sudo snap refresh juju --channel={CLOSED_SNAP_TRACKS.get(track, track)}/stable",
        )


class OpsTestController:
    """pytest-operator's own controller connection (``ops_test._controller``).

    Its teardown (``_cleanup_models`` -> ``forget_model``) destroys the model through this
    connection (pytest-operator 0.43.2, plugin.py); after a node restart it is dead for
    good unless someone connects it again, and a raise there leaves the model running.
    """

    def __init__(self, ops_test: Any) -> None:
        self._ops_test = ops_test

    def _controller(self) -> Any:
        return getattr(self._ops_test, "_controller", None)

    def is_open(self) -> bool:
        controller = self._controller()
        return controller is None or connection_open(controller)

    async def reconnect(self) -> None:
        controller = self._controller()
        if controller is None:
            return
        kwargs = dict(getattr(self._ops_test, "_juju_connect_kwds", None) or {})
        # Controller.connect disconnects first, then makes a new Connection.
        await controller.connect(self._ops_test.controller_name, **kwargs)

    def forget_model(self) -> None:
        """Mark the current model kept: pytest-operator then forgets it without an RPC."""
        alias = getattr(self._ops_test, "current_alias", None)
        state = getattr(self._ops_test, "_models", {}).get(alias)
        if state is not None:
            state.keep = True


def lab_from_ops_test(
    ops_test: Any, *, clock: Clock | None = None, run: ProcessRunner = run_process
) -> Lab:
    """A live Lab on pytest-operator's current model (``ops_test.model``).

    Reconnecting after a node restart reconnects that same ``Model`` object in place, so
    ``ops_test.model`` keeps working. Call ``open_lab`` before deploying and ``close_lab``
    at teardown (the logging-config the harness changed is put back).
    """
    model = ops_test.model
    if model is None or not ops_test.model_name:
        raise EnvironmentUnavailable(
            "pytest-operator has no model", "use the ops_test fixture (it creates the model)"
        )
    clock = clock or RealClock()
    name = str(ops_test.model_name)
    full_name = str(ops_test.model_full_name or name)
    cli = JujuCLI(OpsTestJuju(ops_test, run=run))
    juju = LiveJujuPort(
        model,
        cli,
        model_name=name,
        clock=clock,
        connect_name=full_name,
        controller=OpsTestController(ops_test),
    )
    _stderr(f"live model: {full_name} (namespace {name})")
    return Lab(
        backend="live",
        juju=juju,
        cluster=LiveClusterPort(name),
        node=MicroK8sNode(clock=clock),
        clock=clock,
    )


def lab_from_jubilant(juju: Any, *, clock: Clock | None = None, cli: JujuCLI | None = None) -> Lab:
    """A live Lab on the model a ``jubilant.Juju`` is bound to (pytest-jubilant's ``juju``).

    The model belongs to whoever made the ``Juju`` (pytest-jubilant creates and destroys it);
    call ``open_lab`` before deploying and ``close_lab`` at teardown, as with ``ops_test``.
    """
    from harness.live.jubilant_port import JubilantJujuPort

    clock = clock or RealClock()
    port = JubilantJujuPort(juju, clock=clock, cli=cli)
    _stderr(f"live model: {juju.model} (namespace {port.model_name}; Juju driver jubilant)")
    return Lab(
        backend="live",
        juju=port,
        cluster=LiveClusterPort(port.model_name),
        node=MicroK8sNode(clock=clock),
        clock=clock,
    )


def _require_jubilant() -> None:
    from harness.live.jubilant_port import installed_jubilant, require_jubilant

    require_jubilant(installed_jubilant())


def _jubilant_juju(model: str) -> Any:
    import jubilant

    return jubilant.Juju(model=model)


@contextmanager
def pytest_live_lab(
    driver: str,
    fixture: Callable[[str], Any | None],
    *,
    keep_model: bool = False,
    controller_version: Callable[[], str | None] = detect_controller_version,
    existed_before: Callable[[], bool] = lambda: True,
    juju_defaults: bool = True,
) -> Iterator[Lab]:
    """The live Lab the pytest ``lab`` fixture yields, on the driver asked for.

    ``fixture(name)`` gives another fixture's value, or None where no such fixture exists.
    A repository on pytest-jubilant has a ``juju`` fixture (a ``jubilant.Juju`` bound to a
    module's model): unless libjuju is forced, the Lab is built on it and the model stays
    that fixture's to make and destroy. Otherwise the controller's version picks the
    driver: libjuju through pytest-operator's ``ops_test``, or jubilant on a temporary model
    of its own (``jubilant.temp_model``, kept with ``keep_model``). EnvironmentUnavailable
    when no controller (or, for pytest-operator, no charmcraft) is there. ``existed_before``
    says whether ``ops_test``'s model existed before it was set up: only a model it made
    gets Juju's default hook settings.
    """
    import jubilant

    if driver != "libjuju":
        given = fixture("juju")
        if isinstance(given, jubilant.Juju):
            yield lab_from_jubilant(given)
            return
    missing = live_prerequisites_missing(charmcraft=False)
    if missing:
        raise EnvironmentUnavailable(f"needs a live Juju controller on MicroK8s: {missing}")
    if choose_driver(driver, controller_version()) == "jubilant":
        _require_jubilant()  # jubilant before 1.5 may never finish destroying temp_model's model
        with jubilant.temp_model(keep=keep_model) as juju:
            lab = lab_from_jubilant(juju)
            _own(lab, created=True, juju_defaults=juju_defaults)
            yield lab
        return
    missing = live_prerequisites_missing()
    if missing:
        raise EnvironmentUnavailable(f"needs a live Juju controller on MicroK8s: {missing}")
    ops_test = fixture("ops_test")
    lab = lab_from_ops_test(ops_test)
    _own(
        lab,
        # Known only from before ops_test was set up (pytest_operator_model_existed, which
        # the plugin runs then); unknown: the model is the user's.
        created=not existed_before(),
        juju_defaults=juju_defaults,
        user_set=_user_model_config_keys(ops_test),
    )
    yield lab


def pytest_operator_model_existed(
    config: Any,
    models_before: Callable[[str | None], tuple[str, ...] | None] = controller_models,
) -> bool:
    """Whether pytest-operator's ``--model`` names a model its controller already has (it
    connects to it) rather than none or a new one (it adds it). Ask before ``ops_test`` is
    set up: afterwards its state is the same either way (0.43 records a cloud for both).
    Unknown counts as existing, so the harness never changes a user's model's settings."""
    named, controller = _pytest_operator_model_option(config)
    if named is None:
        return False
    return controller is None or _had_model(models_before(controller), named)


def _pytest_operator_model_option(config: Any) -> tuple[str | None, str | None]:
    """pytest-operator's ``--model`` option, and the controller it will use: ``--controller``,
    else controllers.yaml's current-controller (None if that is unknown)."""
    if config is None:
        return None, None
    model = config.getoption("model", default=None)
    controller = config.getoption("controller", default=None) or _libjuju_current_controller()
    return (str(model) if model else None), (str(controller) if controller else None)


def _libjuju_current_controller() -> str | None:
    """The controller pytest-operator connects to without ``--controller`` (libjuju's
    ``FileJujuData.current_controller``). Not the CLI's: JUJU_MODEL and JUJU_CONTROLLER
    override it there, and the user's model may be on the other controller."""
    try:
        from juju.client import jujudata

        files: Any = jujudata.FileJujuData  # untyped in libjuju
        current = files().current_controller()
    except Exception:  # no controllers.yaml, or one libjuju cannot read: unknown
        return None
    return str(current) if current else None


def _had_model(models: tuple[str, ...] | None, named: str) -> bool:
    """Whether the controller had ``named``; unknown counts as yes, so a model the harness
    cannot show it made keeps its owner's settings."""
    return models is None or named.rsplit("/", 1)[-1] in models


def _user_model_config_keys(ops_test: Any) -> frozenset[str]:
    """Keys of the user's ``--model-config`` file. Not ``ops_test.model_config``: that is
    the model's whole config (pytest-operator sets it from ``Model.get_config()``)."""
    given = getattr(ops_test, "_init_model_config", None)
    if not given:
        return frozenset()
    try:
        config = ops_test.read_model_config(given)
    except Exception as error:  # pytest-operator read it already; this only labels evidence
        log.warning("could not read the --model-config file %s: %s", given, error)
        return frozenset()
    return frozenset(str(key) for key in config or {})


def _own(
    lab: Lab, *, created: bool, juju_defaults: bool, user_set: frozenset[str] = frozenset()
) -> None:
    if isinstance(lab.juju, LiveJuju):
        lab.juju.adopt(created=created, juju_defaults=juju_defaults, user_set=user_set)


async def open_lab(lab: Lab) -> None:
    """Before hooks run: a model of the harness's own gets Juju's default hook settings
    (not a CI bootstrap's model-defaults) and a logging-config that keeps hook lines and no
    chatter; a model it did not create is left as it is (refused if it drops hook lines)."""
    if isinstance(lab.juju, LiveJuju):
        if lab.juju.own_model:
            await lab.juju.use_juju_defaults()
        await lab.juju.keep_hook_logging()


async def close_lab(lab: Lab) -> None:
    """At teardown: libjuju connected again if a node restart killed it, so the model's
    owner can destroy it; the logging-config restored if (and only if) we changed it."""
    if not isinstance(lab.juju, LiveJuju):
        return
    try:
        await lab.juju.ready_for_teardown()
    except Exception as error:  # teardown must not hide the run's own outcome
        log.warning("could not make the model ready for teardown: %s", error)
    try:
        await lab.juju.restore_logging()
    except Exception as error:
        log.warning("could not restore logging-config: %s", error)


async def _destroy(cli: JujuCLI, name: str, timeout: float, clock: Clock, echo: Echo) -> bool:
    """Destroy ``name`` with force within ``timeout``; False (and one line) if it stays."""
    try:
        await cli.destroy_model(name, timeout=timeout)
        await wait_for(
            f"model {name} to be removed",
            cli.models,
            lambda names: name not in names,
            timeout=timeout,
            clock=clock,
            describe=lambda names: f"models: {', '.join(names) or 'none'}",
            interval=5.0,
        )
    except (HarnessError, WaitTimeout) as error:
        echo(
            f"model {name} was left behind ({error}); remove it with: "
            f"juju destroy-model {name} --force --no-wait --destroy-storage"
        )
        return False
    echo(f"model {name} destroyed")
    return True


def _default_model() -> Any:
    from juju.model import Model

    return Model()


@asynccontextmanager
async def connect_lab(
    model: str | None,
    keep: bool,
    *,
    echo: Echo = _stderr,
    clock: Clock | None = None,
    cli_for: Callable[[str | None], JujuCLI] = lambda name: JujuCLI(SubprocessJuju(name)),
    model_factory: Callable[[], Any] = _default_model,
    destroy_timeout: float = DESTROY_TIMEOUT,
    driver: str = "auto",
    jubilant_factory: Callable[[str], Any] = _jubilant_juju,
    juju_defaults: bool = True,
) -> AsyncIterator[Lab]:
    """A live Lab on the current controller: ``model`` if given, else a new model.

    A model this made is destroyed on exit unless ``keep``; an existing one never is.
    ``driver`` (auto, libjuju, jubilant) picks the Juju driver; auto follows the
    controller's version (``harness.live.drivers``).
    """
    clock = clock or RealClock()
    root = cli_for(None)
    try:
        details = await root.show_controller()
    except HarnessError as error:
        raise no_controller() from error
    check_versions((await root.version()).major, details.get("agent-version"))
    chosen = choose_driver(driver, details.get("agent-version") or await root.version())
    if chosen == "jubilant":
        _require_jubilant()  # before a model is made that an old jubilant could not serve
    existing = await root.models()
    name = model or new_model_name()
    # `juju models` lists short names; a user may give `owner/model` or `controller:model`.
    short = name.rsplit(":", 1)[-1].rsplit("/", 1)[-1]
    if short not in existing and short != name:
        raise UnknownName(
            f"no model {name} on the current controller (models: {', '.join(existing) or 'none'})",
            "name an existing model, or give a plain name for a model the harness creates",
        )
    created = False
    libjuju: Any = None
    lab: Lab | None = None
    try:
        if short not in existing:
            try:
                await root.add_model(name)
            except ProcessTimeout:
                created = True  # it may have made the model: destroy what it may have made
                raise
            # Only now is it ours: a model another made meanwhile ("already exists") is not.
            created = True
        echo(f"live model: {name} ({'created' if created else 'existing'}; namespace {short})")
        juju: LiveJuju
        if chosen == "jubilant":
            from harness.live.jubilant_port import JubilantJujuPort

            juju = JubilantJujuPort(jubilant_factory(name), clock=clock, cli=cli_for(name))
        else:
            libjuju = model_factory()
            await libjuju.connect(name)
            juju = LiveJujuPort(libjuju, cli_for(name), model_name=name, clock=clock)
        juju.adopt(created=created, juju_defaults=juju_defaults)
        lab = Lab(
            backend="live",
            juju=juju,
            cluster=LiveClusterPort(short),
            node=MicroK8sNode(clock=clock),
            clock=clock,
        )
        await open_lab(lab)
        yield lab
    finally:
        if lab is not None:
            await close_lab(lab)
        try:
            if libjuju is not None:
                await libjuju.disconnect()
        except Exception as error:  # the model may be gone with the controller
            log.warning("disconnecting from %s: %s", name, error)
        if created and not keep:
            await _destroy(root, name, destroy_timeout, clock, echo)
        elif created:
            echo(f"model {name} kept (remove it with: juju destroy-model {name})")
