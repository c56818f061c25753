"""Whether ``--model NAME`` existed is noted just before ``ops_test`` is set up, whoever asks
for ``ops_test`` first: a test that takes ``ops_test`` before ``lab`` must not make a model
pytest-operator added look like the user's (or the reverse).

pytester runs a suite whose conftest stands in for pytest-operator's ``ops_test`` (it adds the
model to what a fake ``juju models`` lists, as pytest-operator does when the model is new) and
for the live lab (it records what the lab was told, then skips: no controller here).
"""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]

CONFTEST = """
import json
import pathlib
from contextlib import contextmanager

import pytest

import harness.live.lab
from harness.common.errors import EnvironmentUnavailable

HERE = pathlib.Path(__file__).parent
SEEN = HERE / "seen.json"


@pytest.fixture(scope="module")
def ops_test(request):
    listing = HERE / "models.json"
    models = json.loads(listing.read_text())
    name = request.config.getoption("model")
    if name not in [m["short-name"] for m in models["models"]]:
        models["models"].append({"name": "admin/" + name, "short-name": name})
        listing.write_text(json.dumps(models))
    yield object()


@contextmanager
def recording_lab(driver, fixture, **options):
    fixture("ops_test")
    existed = options.get("existed_before")
    SEEN.write_text(json.dumps(existed() if existed else "not told"))
    raise EnvironmentUnavailable("no controller here")
    yield


harness.live.lab.pytest_live_lab = recording_lab
"""

TESTS = """
def test_takes_ops_test_first(ops_test):
    pass


def test_then_the_lab(lab):
    pass
"""

FAKE_JUJU = """#!/bin/sh
[ "$1 $2 $3 $4 $5" = "models --format json --controller mk8s" ] || exit 1
cat "{listing}"
"""


@pytest.mark.parametrize(("already", "existed"), [([], False), (["mine"], True)])
def test_the_model_is_judged_from_before_ops_test_even_when_a_test_asks_for_it_first(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    already: list[str],
    existed: bool,
) -> None:
    listing = pytester.path / "models.json"
    listing.write_text(
        json.dumps({"models": [{"name": f"admin/{m}", "short-name": m} for m in already]})
    )
    juju = pytester.path / "bin" / "juju"
    juju.parent.mkdir()
    juju.write_text(FAKE_JUJU.format(listing=listing))
    juju.chmod(0o755)
    monkeypatch.setenv("PATH", f"{juju.parent}:/usr/bin:/bin")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_charm=TESTS)

    result = pytester.runpytest(
        "--backend", "live", "--model", "mine", "--controller", "mk8s", "-p", "no:cacheprovider"
    )

    result.assert_outcomes(passed=1, skipped=1)
    assert json.loads((pytester.path / "seen.json").read_text()) is existed
