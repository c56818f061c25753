"""The live Juju port against the real python-libjuju 2.9 classes (``tox -e libjuju29``).

A 2.9 controller needs libjuju 2.9, whose ``Model.deploy`` accepts ``base`` and never reads
it (2.9.49.1, ``juju/model.py``): the series must be passed. These tests autospec that real
``Model``; they skip under libjuju 3, where ``test_live_juju_port`` covers the port.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any
from unittest.mock import create_autospec

import pytest

LIBJUJU = importlib.metadata.version("juju")
pytestmark = pytest.mark.skipif(
    not LIBJUJU.startswith("2.9."),
    reason=f"needs python-libjuju 2.9 (installed: {LIBJUJU}); run `tox -e libjuju29`",
)


def model_29() -> Any:
    from juju.client import client as juju_client
    from juju.model import Model

    model = create_autospec(Model, instance=True)
    model.applications = {}
    model.get_config.return_value = {
        "logging-config": juju_client.ConfigValue(source="model", value="<root>=INFO")
    }
    return model


def port(model: Any) -> Any:
    from live_fakes import FakeClock, FakeJujuRunner

    from harness.live.juju_cli import JujuCLI
    from harness.live.juju_port import LiveJujuPort

    return LiveJujuPort(
        model,
        JujuCLI(FakeJujuRunner("2.9.49-ubuntu-amd64")),
        model_name="m",
        clock=FakeClock(),
    )


async def test_deploy_on_libjuju_29_passes_the_series_that_29_reads() -> None:
    from harness.lab.ports import AppSpec

    model = model_29()
    await port(model).deploy(
        AppSpec("probe", "probe", channel="latest/edge", units=2, base="ubuntu@22.04")
    )
    model.deploy.assert_awaited_once_with(
        "probe",
        application_name="probe",
        num_units=2,
        trust=False,
        channel="latest/edge",
        series="jammy",
    )


async def test_integrate_on_libjuju_29_uses_add_relation() -> None:
    model = model_29()
    await port(model).integrate("probe:database", "mysql-router-k8s:database")
    model.add_relation.assert_awaited_once_with("probe:database", "mysql-router-k8s:database")


async def test_reconnect_uses_the_29_model_connect() -> None:
    from live_fakes import FakeClock, FakeJujuRunner

    from harness.live.juju_cli import JujuCLI
    from harness.live.juju_port import LiveJujuPort

    model = model_29()
    runner = FakeJujuRunner("2.9.49-ubuntu-amd64")
    runner.answer(("status",), 0, "{}")
    juju = LiveJujuPort(
        model, JujuCLI(runner), model_name="m", clock=FakeClock(), connect_name="c:admin/m"
    )
    await juju.reconnect()
    model.connect.assert_awaited_with("c:admin/m")
