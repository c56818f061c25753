"""A charm repository on pytest-jubilant gets the ``lab`` fixture from its own ``juju``.

pytester runs a small suite whose conftest stands in for pytest-jubilant: a module-scoped
``juju`` fixture giving an autospecced ``jubilant.Juju`` bound to a model. Its binary is a
fake ``juju`` that answers ``juju status`` with a recorded one (tests/data/samples) only when
the fixture's model is the one named, and logs every call. No pytest-operator fixture is used.
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

HERE = pathlib.Path(__file__).parent
CONFIG = {"logging-config": "<root>=INFO"}


def pytest_addoption(parser):
    # pytest-jubilant 2.x's options (2.0.0 to 2.3.0, pytest_jubilant/_main.py), registered
    # beside pytest-operator's and ours: pytest refuses to start if any name is taken twice.
    group = parser.getgroup("jubilant")
    group.addoption("--juju-model", action="store", default=None)
    group.addoption("--no-juju-setup", action="store_true", default=False)
    group.addoption("--no-juju-teardown", action="store_true", default=False)
    group.addoption("--juju-switch", action="store_true", default=False)
    group.addoption("--juju-dump-logs", action="store", nargs="?", default=None)


@pytest.fixture(scope="module")
def juju():
    juju = create_autospec(jubilant.Juju, instance=True)
    juju.model = "mk8s:admin/charm-it"
    juju.cli_binary = str(HERE / "bin" / "juju")

    def model_config(values=None, reset=()):
        if values is None and not reset:
            return dict(CONFIG)
        CONFIG.update(values or {})

    juju.model_config.side_effect = model_config
    yield juju
    # pytest-jubilant's model, not the harness's: its logging-config was never changed
    assert CONFIG["logging-config"] == "<root>=INFO"
"""

TESTS = """
def test_the_lab_is_built_on_the_repos_juju(lab, juju, event_loop):
    assert lab.backend == "live"
    assert lab.juju.driver == "jubilant"
    assert lab.juju.model_name == "charm-it"
    assert lab.cluster.namespace == "charm-it"
    statuses = event_loop.run_until_complete(lab.juju.statuses(("alertmanager",)))
    assert [s.unit for s in statuses] == ["alertmanager/0"]
    # Juju's default keeps hook lines; a model the harness did not create is left as it is
    assert juju.model_config()["logging-config"] == "<root>=INFO"
    assert all(not c.args and not c.kwargs for c in juju.model_config.call_args_list)


def test_the_same_lab_serves_the_whole_module(lab, juju):
    assert lab.juju.juju is juju
    import pathlib
    calls = pathlib.Path("juju-calls.log").read_text().splitlines()
    assert calls == ["mk8s:admin/charm-it status --format json"]
"""

FAKE_JUJU = """#!/bin/sh
echo "$JUJU_MODEL $*" >> "{log}"
if [ "$1" = status ] && [ "$JUJU_MODEL" = mk8s:admin/charm-it ]; then
  cat "{status}"
  exit 0
fi
echo "ERROR model not found" >&2
exit 1
"""


def suite(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_charm=TESTS)
    status = pytester.path / "status.json"
    status.write_text(load_sample("status_json_3.1.2_k8s_cos_lite.json"))
    juju = pytester.path / "bin" / "juju"
    juju.parent.mkdir()
    juju.write_text(FAKE_JUJU.format(log=pytester.path / "juju-calls.log", status=status))
    juju.chmod(0o755)


def test_a_pytest_jubilant_repo_gets_our_lab_without_pytest_operator(
    pytester: pytest.Pytester,
) -> None:
    suite(pytester)
    result = pytester.runpytest("--backend", "live", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_pytest_jubilant_1_options_clash_with_pytest_operator_so_the_readme_says_2(
    pytester: pytest.Pytester,
) -> None:
    # pytest-jubilant 1.x registers --model and --keep-models, as pytest-operator (our
    # dependency) does; pytest then stops before any test. The README names 2.x for this.
    pytester.makeconftest(
        "def pytest_addoption(parser):\n"
        "    parser.addoption('--model', action='store', default=None)\n"
    )
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest_subprocess()
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*option names*--model*already added*"])


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


CHARM_STACK = """

@pytest.fixture(scope="module")
def charm_stack():
    from harness.charm_suite import CharmStack

    root = pathlib.Path({example!r})
    return CharmStack(bundle=root / "bundle.yaml", app="demo", source=root)  # not packed
"""


def test_a_jubilant_charm_stack_with_only_a_source_says_to_pack_it(
    pytester: pytest.Pytester,
) -> None:
    # pytest-operator's real ops_test is registered but, on the jubilant path, not set up:
    # pytest-asyncio 0.21 sets it up with run_until_complete, so asking for it from inside
    # the running loop fails every test with "This event loop is already running".
    from pathlib import Path

    example = Path(__file__).parents[2] / "examples" / "charm-repo"
    suite(pytester)
    pytester.makeconftest(CONFTEST + CHARM_STACK.format(example=str(example)))
    test = "async def test_pod_delete(charm_disrupt):\n    await charm_disrupt('pod-delete')\n"
    pytester.makepyfile(test_charm=test)
    result = pytester.runpytest(
        "--backend", "live", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto"
    )
    result.assert_outcomes(errors=1)
    result.stdout.no_fnmatch_line("*event loop is already running*")
    result.stdout.fnmatch_lines(
        ["*nothing packs demo's charm*pass CharmStack(packed=Path('./x.charm'))*"]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*During handling*")
