"""A charm shaped like mysql-router-k8s through every disruption, with the public API only.

``router_charm.BrokenRouter`` (re)configures its workload on ``upgrade-charm``, as
mysql-router-k8s did before its fix for the bug reported as Juju bug 2021891;
``FixedRouter`` does it on ``pebble-ready``. The workload configures itself through
``mysqlrouter --bootstrap`` (an exec handler). The twin must show the bug where Juju sends
no ``upgrade-charm`` but the workload container's root is fresh (node restart, workload
container restart), and nowhere else; and never on the fixed charm. SIMULATED.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ops
import pytest
from ops import testing
from router_charm import (
    CONFIG,
    CONTAINER,
    IMAGES,
    META,
    SERVICE,
    BootstrapsOnStart,
    BrokenRouter,
    FixedRouter,
    MySQLRouterBinary,
    configured_unit,
)

from harness.lab.ports import AppSpec
from harness.twin import CharmHookError, TwinResult, make_lab, run_disruption
from harness.twin.charms import CharmSource

# (disruption, container restarted); every disruption run_disruption accepts.
DISRUPTIONS = [
    ("pod-delete", None),
    ("node-restart", None),
    ("pod-spec-change", None),
    ("charm-refresh", None),
    ("container-restart", CONTAINER),
    ("container-restart", "charm"),
    ("scale-down-up", None),
]
# Where the workload's root is fresh and no upgrade-charm comes (Juju bug 2021891).
BUG_SHOWS_ON = {("node-restart", None), ("container-restart", CONTAINER)}
VERSIONS = ("2.9.43", "3.1.3", "3.6")


def disrupt(
    tmp_path: Path, charm: type[Any], disruption: str, container: str | None, **kwargs: Any
) -> tuple[TwinResult, MySQLRouterBinary]:
    binary = MySQLRouterBinary()
    ctx = testing.Context(charm, meta=META)
    result = run_disruption(
        ctx,
        configured_unit(tmp_path, leader=kwargs.pop("leader", True)),
        disruption,
        kwargs.pop("juju_version", "3.6"),
        container=container,
        images=IMAGES,
        exec_handlers={CONTAINER: {"mysqlrouter --bootstrap": binary}},
        **kwargs,
    )
    return result, binary


def router_works(result: TwinResult) -> bool:
    """Configured and running: the workload's config is there and Pebble runs it."""
    plan = result.state.get_container(CONTAINER).plan
    return result.read_text(CONTAINER, CONFIG) is not None and SERVICE in plan.services


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("disruption", "container"), DISRUPTIONS)
def test_the_broken_router_fails_only_where_no_upgrade_charm_comes(
    tmp_path: Path, disruption: str, container: str | None, version: str
) -> None:
    result, _ = disrupt(tmp_path, BrokenRouter, disruption, container, juju_version=version)
    broken = (disruption, container) in BUG_SHOWS_ON
    assert router_works(result) is not broken, str(result)
    if broken:
        assert "upgrade-charm" not in result.hooks
        assert result.read_text(CONTAINER, CONFIG) is None
        # The image's directory is there: the workload could have been bootstrapped.
        assert result.path(CONTAINER, "/etc/mysqlrouter").is_dir()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("disruption", "container"), DISRUPTIONS)
@pytest.mark.parametrize("leader", [True, False])
def test_the_fixed_router_works_after_every_disruption(
    tmp_path: Path, disruption: str, container: str | None, version: str, leader: bool
) -> None:
    result, binary = disrupt(
        tmp_path, FixedRouter, disruption, container, juju_version=version, leader=leader
    )
    assert router_works(result), str(result)
    # It bootstraps only when the workload's root was fresh, and never twice.
    fresh_root = (disruption, container) != ("container-restart", "charm")
    assert binary.bootstraps == (1 if fresh_root else 0)


def test_the_fix_bootstraps_in_pebble_ready_as_the_trace_shows(tmp_path: Path) -> None:
    result, _ = disrupt(tmp_path, FixedRouter, "node-restart", None)
    ready = next(t for t in result.trace if t.hook == f"{CONTAINER}-pebble-ready")
    assert [run.command[:2] for run in ready.commands] == [("mysqlrouter", "--bootstrap")]
    assert ready.commands[0].exit_code == 0
    assert ready.status == "active"
    start = next(t for t in result.trace if t.hook == "start")
    assert start.commands == ()


def test_a_wrong_fix_that_bootstraps_twice_fails_with_the_hook_named(tmp_path: Path) -> None:
    with pytest.raises(CharmHookError) as caught:
        disrupt(tmp_path, BootstrapsOnStart, "container-restart", "charm")
    error = caught.value
    assert (error.disruption, error.hook) == ("container-restart", "start")
    assert "ExecError" in str(error)
    assert "Juju 3.6" in str(error)
    assert "after: container charm restarted" in str(error)
    assert isinstance(error.__cause__, ops.pebble.ExecError)
    assert "\n" not in str(error)
    failed = error.partial.trace[-1]
    assert (failed.hook, failed.outcome) == ("start", "failed")
    assert failed.commands[0].exit_code == 1


def test_the_result_state_keeps_running_with_the_callers_context(tmp_path: Path) -> None:
    binary = MySQLRouterBinary()
    ctx = testing.Context(FixedRouter, meta=META)
    result = run_disruption(
        ctx,
        configured_unit(tmp_path),
        "node-restart",
        images=IMAGES,
        exec_handlers={CONTAINER: {"mysqlrouter --bootstrap": binary}},
    )
    after = ctx.run(ctx.on.update_status(), result.state)
    container = after.get_container(CONTAINER)
    conf = container.get_filesystem(ctx) / "etc" / "mysqlrouter" / "mysqlrouter.conf"
    assert conf.read_text().startswith("[metadata_cache:bootstrap]")
    assert SERVICE in container.plan.services


@pytest.mark.parametrize(("charm", "works"), [(BrokenRouter, False), (FixedRouter, True)])
async def test_the_lab_applies_the_same_engine_to_the_same_charm(
    tmp_path: Path, charm: type[Any], works: bool
) -> None:
    binary = MySQLRouterBinary()
    source = CharmSource(
        "router",
        charm,
        META,
        images=IMAGES,
        exec_handlers={CONTAINER: {"mysqlrouter --bootstrap": binary}},
    )
    lab = make_lab(juju_version="3.6", workdir=tmp_path / "twin", charms={"router": source})
    await lab.juju.deploy(AppSpec(app="mysql-k8s", charm="mysql-k8s"))
    await lab.juju.deploy(AppSpec(app="router", charm="router"))
    await lab.juju.integrate("router:backend-database", "mysql-k8s:database")
    assert binary.bootstraps == 1
    await lab.node.stop()
    await lab.node.start()
    (config,) = await lab.cluster.list_files("router-0", CONTAINER, [CONFIG])
    assert config.exists is works
