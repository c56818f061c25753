"""The jubilant driver refuses a jubilant too old for what it relies on, in one line.

What changed in jubilant's own source (each release's wheel, ``jubilant/_juju.py`` and
``jubilant/_test_helpers.py``): 1.5 bounds ``temp_model``'s ``destroy-model`` at 10 minutes
(1.0 to 1.4 wait forever when MicroK8s hangs the destroy); 1.6 copies a local charm and its
resources into ``~/snap/juju/common`` for a snap ``juju`` (``Juju._deploy_tempdir``), which
``deploy`` and ``refresh`` here rely on for a charm in /tmp.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

import jubilant
import pytest
from live_fakes import FakeClock
from packaging.requirements import Requirement
from test_live_lab_jubilant import Controller

from harness.common.errors import EnvironmentUnavailable
from harness.live import jubilant_port
from harness.live import lab as lab_module
from harness.live.jubilant_port import MIN_JUBILANT, JubilantJujuPort, require_jubilant
from harness.live.lab import pytest_live_lab

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("old", ["1.0.0", "1.4.0", "1.5.0"])
def test_a_jubilant_before_16_is_refused_with_the_fix(
    old: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jubilant_port, "installed_jubilant", lambda: old)
    with pytest.raises(EnvironmentUnavailable, match=rf"jubilant {re.escape(old)} .*1\.6") as err:
        JubilantJujuPort(jubilant.Juju(model="lab"), clock=FakeClock())
    assert "\n" not in str(err.value)
    assert "pip install 'jubilant>=1.6'" in str(err.value)


@pytest.mark.parametrize("good", ["1.6.0", "1.14.0", "1.20.1"])
def test_a_jubilant_from_16_on_is_taken(good: str) -> None:
    require_jubilant(good)


@pytest.mark.parametrize("unknown", [None, "unknown"])
def test_a_jubilant_of_unknown_version_is_not_refused(unknown: str | None) -> None:
    require_jubilant(unknown)  # no metadata (vendored, a source tree): nothing to tell


def test_pip_installs_no_jubilant_the_driver_would_refuse() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = [
        *project["project"]["dependencies"],
        *(d for extra in project["project"]["optional-dependencies"].values() for d in extra),
    ]
    (spec,) = {Requirement(d).specifier for d in declared if Requirement(d).name == "jubilant"}
    major, minor = MIN_JUBILANT
    assert not spec.contains(f"{major}.{minor - 1}.99"), f"pip may install a refused one: {spec}"
    assert spec.contains(f"{major}.{minor}.0")


async def test_repro_on_an_old_jubilant_is_refused_before_a_model_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jubilant_port, "installed_jubilant", lambda: "1.4.0")
    controller = Controller("4.0")
    with pytest.raises(EnvironmentUnavailable, match=r"jubilant 1\.4\.0 is too old"):
        async with controller.connect():
            pass
    assert [c[0] for c in controller.cli.calls if c[0] in ("add-model", "destroy-model")] == []


def test_pytest_on_an_old_jubilant_is_refused_before_a_temporary_model_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jubilant_port, "installed_jubilant", lambda: "1.4.0")
    made: list[bool] = []

    @contextlib.contextmanager
    def temp_model(keep: bool = False) -> Iterator[Any]:
        made.append(keep)
        yield Controller("4.0").juju("mk8s:admin/jubilant-0a1b2c3d")

    monkeypatch.setattr(jubilant, "temp_model", temp_model)
    monkeypatch.setattr(lab_module, "live_prerequisites_missing", lambda **_: None)
    with (
        pytest.raises(EnvironmentUnavailable, match=r"jubilant 1\.4\.0 is too old"),
        pytest_live_lab("auto", {"juju": None}.get, controller_version=lambda: "4.0.1"),
    ):
        pass
    assert made == []
