"""A charm repository on pytest-jubilant gets the ``lab`` fixture from its own ``juju``.

pytester runs a small suite whose conftest stands in for pytest-jubilant: a module-scoped
``juju`` fixture giving an autospecced ``jubilant.Juju`` bound to a model, whose CLI answers
with a recorded ``juju status`` (tests/data/samples). No pytest-operator fixture is used.
"""

from __future__ import annotations

import pytest
from samples import load_sample

pytest_plugins = ["pytester"]

CONFTEST = """
import pathlib
from unittest.mock import create_autospec

import jubilant
import pytest

STATUS = pathlib.Path(__file__).with_name("status.json").read_text()
CONFIG = {"logging-config": "<root>=WARNING"}


@pytest.fixture(scope="module")
def juju():
    juju = create_autospec(jubilant.Juju, instance=True)
    juju.model = "mk8s:admin/charm-it"
    juju.cli_binary = "juju"

    def cli(*args, include_model=True, stdin=None):
        if args[:1] == ("status",):
            assert include_model, "status must name the fixture's model"
            return STATUS
        raise jubilant.CLIError(1, ["juju", *args], "", "ERROR not expected here")

    def model_config(values=None, reset=()):
        if values is None and not reset:
            return dict(CONFIG)
        CONFIG.update(values or {})

    juju.cli.side_effect = cli
    juju.model_config.side_effect = model_config
    yield juju
    # the lab put back the logging-config it raised before this fixture's own teardown
    assert CONFIG["logging-config"] == "<root>=WARNING"
"""

TESTS = """
def test_the_lab_is_built_on_the_repos_juju(lab, juju, event_loop):
    assert lab.backend == "live"
    assert lab.juju.driver == "jubilant"
    assert lab.juju.model_name == "charm-it"
    assert lab.cluster.namespace == "charm-it"
    statuses = event_loop.run_until_complete(lab.juju.statuses(("alertmanager",)))
    assert [s.unit for s in statuses] == ["alertmanager/0"]
    # hook lines are kept while the module runs
    assert "juju.worker.uniter" in juju.model_config()["logging-config"]


def test_the_same_lab_serves_the_whole_module(lab, juju):
    assert lab.juju.juju is juju
"""


def suite(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_charm=TESTS)
    (pytester.path / "status.json").write_text(load_sample("status_json_3.1.2_k8s_cos_lite.json"))


def test_a_pytest_jubilant_repo_gets_our_lab_without_pytest_operator(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester)
    result = pytester.runpytest("--backend", "live", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_forcing_libjuju_ignores_the_jubilant_fixture(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite(pytester)
    monkeypatch.setenv("PATH", str(pytester.path))  # no juju here: the libjuju path skips
    result = pytester.runpytest("--backend", "live", "--juju-driver", "libjuju", "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*the `juju` CLI is not on PATH*"])


def test_the_driver_option_defaults_to_the_environment(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite(pytester)
    monkeypatch.setenv("JUJU_DRIVER", "libjuju")
    monkeypatch.setenv("PATH", str(pytester.path))
    result = pytester.runpytest("--backend", "live", "-rs")
    result.assert_outcomes(skipped=2)
