"""pytest plugin: options, markers and fixtures that delegate to the harness library.

Kept thin on purpose: `repro run` and these fixtures share one code path
(``harness.run.deploy``, ``harness.run.scenario``), so a reproduction behaves the same in both.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.lab.ports import Lab
from harness.suite.options import HarnessOptions

if TYPE_CHECKING:
    from harness.charm_suite import BundleDeployment, CharmStack, Disrupt
    from harness.suite.session import Deployment, Disrupter

NODE_RESTART_SKIP = (
    "stops MicroK8s, which takes every pod and the Juju controller down: "
    "pass --allow-node-restart to run it"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("juju-lifecycle-harness")
    group.addoption(
        "--backend",
        choices=("live", "twin"),
        default="live",
        help="live: a real Juju controller on MicroK8s; twin: the in-process simulation",
    )
    group.addoption("--juju-version", default="3.6", help="the Juju version the twin simulates")
    group.addoption(
        "--evidence-dir", default="evidence", help="where each test's evidence bundle lands"
    )
    group.addoption(
        "--probe-charm",
        default=os.environ.get("PROBE_CHARM"),
        help="a prebuilt probe .charm (default: $PROBE_CHARM, else built with charmcraft)",
    )
    group.addoption("--mysql-channel", default="8.0/edge", help="mysql-k8s channel")
    group.addoption("--router-channel", default="8.0/edge", help="mysql-router-k8s channel")
    group.addoption(
        "--juju-driver",
        choices=("auto", "libjuju", "jubilant"),
        default=os.environ.get("JUJU_DRIVER", "auto"),
        help="live: python-libjuju via pytest-operator (Juju 2.9, 3.x) or jubilant (3.x, 4.x; "
        "a pytest-jubilant `juju` fixture is used when there is one); auto follows the "
        "controller's version (default: $JUJU_DRIVER, else auto)",
    )
    group.addoption(
        "--allow-node-restart",
        action="store_true",
        help="run the tests that stop and start MicroK8s (and with it the controller)",
    )
    group.addoption(
        "--inherit-model-config",
        action="store_true",
        help="live: leave the harness's own models with the controller's model-defaults "
        "(e.g. automatically-retry-hooks=false from a CI bootstrap) instead of Juju's defaults",
    )
    group.addoption(
        "--require-live",
        action="store_true",
        help="fail the session unless tests ran on the live backend and wrote evidence "
        "(for CI: a run where every live test skipped must not go green)",
    )


def pytest_configure(config: pytest.Config) -> None:
    require_live = bool(config.getoption("--require-live", default=False))
    problem = HarnessOptions.from_config(config).usage_problem(require_live)
    if problem is not None:
        raise pytest.UsageError(problem)
    if require_live:
        from harness.suite.require_live import RequireLive

        config.pluginmanager.register(RequireLive(config), "juju-lifecycle-require-live")
    config.addinivalue_line("markers", "disruptive: takes pods or the node down")
    config.addinivalue_line(
        "markers", "node_restart: stops and starts MicroK8s (needs --allow-node-restart)"
    )
    config.addinivalue_line(
        "markers",
        "known_bug(url): asserts the reporter's expected behaviour; a strict xfail "
        "pointing at the bug, so the suite alarms when Juju changes",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    options = HarnessOptions.from_config(config)
    for item in items:
        bug = item.get_closest_marker("known_bug")
        if bug is not None:
            url = bug.args[0] if bug.args else bug.kwargs.get("url", "?")
            item.add_marker(
                pytest.mark.xfail(
                    strict=True,
                    raises=AssertionError,
                    reason=f"known bug {url}: Juju does not (yet) behave as the reporter "
                    "expected; an XPASS means Juju changed",
                )
            )
        if (
            item.get_closest_marker("node_restart") is not None
            and options.backend == "live"
            and not options.allow_node_restart
        ):
            item.add_marker(pytest.mark.skip(reason=NODE_RESTART_SKIP))


# Per module: whether pytest-operator's --model existed before its ops_test was set up.
_MODEL_EXISTED = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: pytest.FixtureRequest) -> Iterator[None]:
    """Just before ``ops_test`` is set up (by ``lab`` or any fixture or test asking first),
    note whether its ``--model`` already exists: the lab may change only a model it made."""
    if fixturedef.argname == "ops_test":
        from harness.live.lab import pytest_operator_model_existed

        request.node.stash[_MODEL_EXISTED] = pytest_operator_model_existed(request.config)
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    bundles = [value for name, value in item.user_properties if name == "evidence"]
    if report.failed and bundles:
        lines = "\n".join(f"{Path(str(b)) / 'report.md'}" for b in bundles)
        report.sections.append(("evidence (paste report.md into the bug)", lines))


def _fixture_or_none(request: pytest.FixtureRequest) -> Callable[[str], object | None]:
    """Another fixture's value by name, or None where the session has no such fixture."""

    def fixture(name: str) -> object | None:
        try:
            value: object = request.getfixturevalue(name)
            return value
        except pytest.FixtureLookupError:
            return None

    return fixture


@pytest.fixture(scope="module")
def harness_options(request: pytest.FixtureRequest) -> HarnessOptions:
    from harness.common.errors import HarnessError
    from harness.evidence.folders import check_evidence_root

    options = HarnessOptions.from_config(request.config)
    try:  # checked where the harness is used, before anything is deployed
        check_evidence_root(options.evidence_dir)
    except HarnessError as bad:
        pytest.exit(str(bad), returncode=pytest.ExitCode.USAGE_ERROR)
    return options


@pytest.fixture(scope="module")
def lab(
    request: pytest.FixtureRequest,
    harness_options: HarnessOptions,
    tmp_path_factory: pytest.TempPathFactory,
    event_loop: asyncio.AbstractEventLoop,
) -> Iterator[Lab]:
    """One Juju model per module: live (pytest-jubilant's ``juju``, or pytest-operator's
    ``ops_test``, or a model of its own) or one twin."""
    if harness_options.backend == "twin":
        from harness.twin import make_lab

        yield make_lab(
            juju_version=harness_options.juju_version,
            workdir=tmp_path_factory.mktemp("twin"),
        )
        return
    from harness.common.errors import EnvironmentUnavailable
    from harness.live.extra import require_live

    try:
        require_live()
    except EnvironmentUnavailable as absent:
        pytest.fail(str(absent), pytrace=False)
    from harness.live.lab import close_lab, open_lab, pytest_live_lab

    keep = bool(request.config.getoption("--keep-models", default=False))
    fixture = _fixture_or_none(request)
    try:
        inherit = bool(request.config.getoption("--inherit-model-config"))
        with pytest_live_lab(
            harness_options.juju_driver,
            fixture,
            keep_model=keep,
            juju_defaults=not inherit,
            # noted by pytest_fixture_setup; not noted (not set up here): not ours to change
            existed_before=lambda: request.node.stash.get(_MODEL_EXISTED, True),
        ) as live:
            driver = getattr(live.juju, "driver", "?")
            print(f"\nJuju model: {live.juju.model_name} (Juju driver {driver})")
            event_loop.run_until_complete(open_lab(live))
            try:
                yield live
            finally:
                event_loop.run_until_complete(close_lab(live))
    except EnvironmentUnavailable as unavailable:
        pytest.skip(unavailable.problem)


@pytest.fixture(scope="module")
def stack(
    request: pytest.FixtureRequest,
    lab: Lab,
    harness_options: HarnessOptions,
    event_loop: asyncio.AbstractEventLoop,
) -> Deployment:
    """mysql-k8s, mysql-router-k8s, probe and probe-peer, deployed, related, settled, marked."""
    probe_charm = harness_options.probe_charm
    if probe_charm is None:
        charm_dir = request.config.rootpath / "charms" / "probe"
        if lab.backend == "twin":
            probe_charm = str(charm_dir)
        elif getattr(lab.juju, "driver", None) == "jubilant":
            # pytest-operator builds charms; jubilant (and Juju 4.0) deploy a packed one.
            pytest.fail(
                "the jubilant driver deploys a packed probe charm: run `charmcraft pack` in "
                "charms/probe and pass --probe-charm (or set PROBE_CHARM)",
                pytrace=False,
            )
        else:
            ops_test = request.getfixturevalue("ops_test")
            probe_charm = str(event_loop.run_until_complete(ops_test.build_charm(charm_dir)))
    from harness.suite.session import Deployment

    deployment = Deployment.for_options(lab, harness_options, probe_charm)
    _deploy_or_fail(event_loop, deployment, "the stack")
    return deployment


@pytest.fixture
def disrupt(request: pytest.FixtureRequest, stack: Deployment) -> Disrupter:
    """``await disrupt("lp2021891-pod-delete")``: one run per scenario per module, reused."""
    from harness.suite.session import Disrupter

    def record(path: Path) -> None:
        request.node.user_properties.append(("evidence", str(path)))

    return Disrupter(stack, record=record)


# --- a charm repository's own bundle (its conftest defines ``charm_stack``) -------------


@pytest.fixture(scope="module")
def charm_stack() -> CharmStack:
    """Override in your conftest.py: return a ``harness.charm_suite.CharmStack``."""
    pytest.fail(
        "define a module-scoped charm_stack fixture in conftest.py that returns "
        "harness.charm_suite.CharmStack(bundle=..., app=..., source=...) (see the README)"
    )


@pytest.fixture(scope="module")
def charm_deployment(
    request: pytest.FixtureRequest,
    charm_stack: CharmStack,
    harness_options: HarnessOptions,
    tmp_path_factory: pytest.TempPathFactory,
    event_loop: asyncio.AbstractEventLoop,
) -> Iterator[BundleDeployment]:
    """The charm_stack's bundle, deployed once per module (live, or SIMULATED on the twin)."""
    from harness import charm_suite
    from harness.common.errors import HarnessError

    root = harness_options.evidence_dir / request.module.__name__.rpartition(".")[2]
    if harness_options.backend == "twin":
        deployment = charm_suite.twin_deployment(
            charm_stack,
            juju_version=harness_options.juju_version,
            workdir=tmp_path_factory.mktemp("twin"),
            evidence_root=root,
        )
        _deploy_or_fail(event_loop, deployment, "the bundle")
        yield deployment
        return
    # The live model is the ``lab`` fixture's (pytest-jubilant's ``juju`` or ops_test).
    live: Lab = request.getfixturevalue("lab")
    try:  # ops_test, if needed, is set up here: outside the running loop
        packer = charm_suite.packer(charm_stack, live, _fixture_or_none(request))
    except HarnessError as bad:  # bad input: its one line, not a chain of tracebacks
        raise pytest.fail.Exception(str(bad), pytrace=False) from None
    packed = event_loop.run_until_complete(packer())
    deployment = charm_suite.live_deployment(charm_stack, live, packed, evidence_root=root)
    _deploy_or_fail(event_loop, deployment, "the bundle")
    yield deployment


def _deploy_or_fail(
    loop: asyncio.AbstractEventLoop, deployment: Deployment | BundleDeployment, what: str
) -> None:
    """Deploy; a failure names the bundle the deploy wrote (where it really went), and a
    HarnessError (Juju refused a charm, bad input) fails as its one line."""
    from harness.common.errors import HarnessError
    from harness.suite.session import DEPLOY_FOLDER

    try:
        loop.run_until_complete(deployment.deploy())
    except Exception as exc:
        # Known once the deploy has written it (a fallback folder when the usual refused).
        folder = deployment.deploy_evidence or deployment.evidence_dir / DEPLOY_FOLDER
        report = folder / "report.md"
        if isinstance(exc, HarnessError):
            raise pytest.fail.Exception(
                f"deploying {what} failed: {exc}; evidence: {report}", pytrace=False
            ) from None
        raise RuntimeError(f"deploying {what} failed; evidence: {report}") from exc


@pytest.fixture
def charm_disrupt(request: pytest.FixtureRequest, charm_deployment: BundleDeployment) -> Disrupt:
    """``await charm_disrupt("pod-delete")``: disrupt the charm_stack's app, then settle."""
    from harness.charm_suite import disrupter

    def record(path: Path) -> None:
        request.node.user_properties.append(("evidence", str(path)))

    return disrupter(charm_deployment, record)
