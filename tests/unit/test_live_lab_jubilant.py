"""Making a live Lab on the jubilant driver: ``repro run`` on a 4.0 controller, a jubilant Juju."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

import jubilant
import pytest
from live_fakes import FakeClock
from test_juju_port_contract import RecordedCLI, autospec_juju
from test_live_lab import ops_test_mock

from harness.common.errors import EnvironmentUnavailable, HarnessError
from harness.live import lab as lab_module
from harness.live.jubilant_port import JubilantJujuPort
from harness.live.juju_cli import JujuCLI
from harness.live.lab import (
    close_lab,
    connect_lab,
    lab_from_jubilant,
    open_lab,
    pytest_live_lab,
)


class Controller:
    """A current controller at ``juju`` version; ``models`` changes with add/destroy-model."""

    def __init__(self, juju: str = "4.0") -> None:
        self.models = ["welcome"]
        self.cli = RecordedCLI(juju)
        self.config: dict[str, str] = {"logging-config": "<root>=WARNING"}
        self.made: list[str] = []

    async def __call__(self, args: Sequence[str], timeout: float | None) -> tuple[int, str, str]:
        if args[0] == "add-model":
            self.models.append(args[1])
        if args[0] == "destroy-model":
            self.models.remove(args[1])
        if args[0] == "models":
            listing = [{"name": f"admin/{m}", "short-name": m} for m in self.models]
            return 0, json.dumps({"models": listing}), ""
        return self.cli.lookup(args)

    def juju(self, model: str) -> Any:
        self.made.append(model)
        return autospec_juju(self.cli, self.config, model)

    def connect(self, model: str | None = None, **overrides: Any) -> Any:
        """``connect_lab`` (the ``repro`` CLI's) on this controller; ``overrides`` win."""
        options: dict[str, Any] = {
            "echo": lambda _: None,
            "clock": FakeClock(),
            "cli_for": lambda name: JujuCLI(self),
            "model_factory": no_libjuju,
            "jubilant_factory": self.juju,
        }
        return connect_lab(model, False, **{**options, **overrides})


def no_libjuju() -> Any:
    raise AssertionError("the jubilant driver must not open a libjuju Model")


async def test_auto_on_a_40_controller_uses_jubilant_and_cleans_up() -> None:
    controller = Controller("4.0")
    lines: list[str] = []
    async with controller.connect(echo=lines.append) as lab:
        name = lab.juju.model_name
        assert isinstance(lab.juju, JubilantJujuPort)
        assert controller.made == [name]
        assert lab.cluster.namespace == name
        # hook lines kept while the lab is open
        assert "juju.worker.uniter" in controller.config["logging-config"]
        assert (await lab.juju.versions()).juju_driver == "jubilant"
    assert controller.config["logging-config"] == "<root>=WARNING"  # put back
    assert name not in controller.models
    assert lines[-1] == f"model {name} destroyed"


async def test_forcing_libjuju_on_a_40_controller_is_refused_before_any_model_is_made() -> None:
    controller = Controller("4.0")
    with pytest.raises(HarnessError, match=r"python-libjuju cannot drive Juju 4\.0\.1"):
        async with controller.connect(driver="libjuju"):
            pass
    assert controller.models == ["welcome"]


async def test_a_jubilant_juju_bound_to_a_model_becomes_a_lab() -> None:
    controller = Controller("3.6")
    juju = controller.juju("mk8s:admin/charm-test")
    lab = lab_from_jubilant(juju, clock=FakeClock(), cli=JujuCLI(controller))
    assert lab.backend == "live"
    assert lab.juju.model_name == "charm-test"
    assert lab.cluster.namespace == "charm-test"
    # The fixture's model, not the harness's: its logging-config is read, never changed.
    with pytest.raises(HarnessError, match="drops the uniter's hook lines"):
        await open_lab(lab)
    assert controller.config["logging-config"] == "<root>=WARNING"
    controller.config["logging-config"] = "<root>=DEBUG"
    await open_lab(lab)
    await close_lab(lab)
    assert controller.config["logging-config"] == "<root>=DEBUG"


@pytest.mark.parametrize(
    ("controller_at", "driver"), [("4.0.1", "jubilant"), ("3.6.1", "libjuju")]
)
def test_without_a_juju_fixture_the_controller_picks_the_driver(
    monkeypatch: pytest.MonkeyPatch, controller_at: str, driver: str
) -> None:
    controller = Controller(controller_at[:3])
    made: list[bool] = []

    @contextlib.contextmanager
    def temp_model(keep: bool = False) -> Iterator[Any]:
        made.append(keep)
        yield controller.juju("mk8s:admin/jubilant-0a1b2c3d")

    monkeypatch.setattr(jubilant, "temp_model", temp_model)
    monkeypatch.setattr(lab_module, "live_prerequisites_missing", lambda **_: None)
    ops_test = ops_test_mock()
    fixtures = {"ops_test": ops_test, "juju": None}
    with pytest_live_lab(
        "auto", fixtures.get, keep_model=True, controller_version=lambda: controller_at
    ) as lab:
        assert lab.juju.driver == driver  # type: ignore[attr-defined]
    assert made == ([True] if driver == "jubilant" else [])


def test_no_controller_is_an_environment_error_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        lab_module, "live_prerequisites_missing", lambda **_: "the `juju` CLI is not on PATH"
    )
    with (
        pytest.raises(EnvironmentUnavailable, match="not on PATH"),
        pytest_live_lab("auto", lambda name: None),
    ):
        pass


# `juju model-config --format json` on a model made under a CI bootstrap's model-defaults.
MODEL_CONFIG_CI = json.dumps(
    {
        "automatically-retry-hooks": {"Value": False, "Source": "controller"},
        "update-status-hook-interval": {"Value": "5m", "Source": "default"},
        "logging-config": {"Value": "<root>=INFO", "Source": "default"},
    }
)


@pytest.mark.parametrize(("juju", "driver"), [("3.6", "libjuju"), ("4.0", "jubilant")])
@pytest.mark.parametrize("inherit", [False, True])
async def test_a_model_it_creates_inherits_model_defaults_only_when_asked(
    juju: str, driver: str, inherit: bool
) -> None:
    from test_live_lab import libjuju_model

    controller = Controller(juju)
    controller.cli.answer(("model-config", "--format", "json"), 0, MODEL_CONFIG_CI)
    async with controller.connect(
        model_factory=libjuju_model, driver=driver, juju_defaults=not inherit
    ) as lab:
        assert lab.juju.driver == driver  # type: ignore[attr-defined]
        versions = await lab.juju.versions()
    settings = [
        c for c in controller.cli.calls if c[0] == "model-config" and "=" in "".join(c[1:])
    ]
    if inherit:
        assert settings == []  # the controller's automatically-retry-hooks=false stays
        assert versions.model_config_from == "inherited"
    else:
        assert settings == [("model-config", "automatically-retry-hooks=true")]
        assert versions.model_config_from == "juju-defaults"


async def test_an_existing_model_is_recorded_as_such() -> None:
    controller = Controller("4.0")
    controller.config["logging-config"] = "<root>=INFO"  # Juju's default: keeps hook lines
    async with controller.connect("welcome") as lab:
        versions = await lab.juju.versions()
    assert versions.model_config_from == "existing-model"
    assert controller.config["logging-config"] == "<root>=INFO"
    assert not [c for c in controller.cli.calls if c[0] == "model-config" and "=" in c[-1]]
