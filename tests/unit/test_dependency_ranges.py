"""The kubernetes client: the range pyproject.toml allows is the range that is tested.

python-libjuju 3.6.1.3 caps it (``kubernetes<31.0.0,>=12.0.1``), 2.9.49.1 does not
(``kubernetes>=12.0.1``, read in the wheels' METADATA): beside libjuju 2.9 pip took
kubernetes 37, a rewritten client (it needs pydantic; ``ApiClient.deserialize`` takes a
``content_type``), and nine cluster-port and pod tests failed. So the range has an upper
bound, and tox runs every test that imports the client at both ends of it, beside libjuju
2.9.49.1 (issue 23, point 6).
"""

from __future__ import annotations

import configparser
import re
import sys
from pathlib import Path

from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def requirement(name: str) -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    declared = [*project["dependencies"], *project["optional-dependencies"]["live"]]
    found = [Requirement(r) for r in declared if Requirement(r).name == name]
    assert len(found) == 1, found
    return found[0]


def tox() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini")
    return parser


def bounds(req: Requirement) -> tuple[str, str]:
    lows = [s.version for s in req.specifier if s.operator == ">="]
    highs = [s.version for s in req.specifier if s.operator == "<"]
    assert len(lows) == 1, f"{req}: one lower bound (>=)"
    assert len(highs) == 1, f"{req}: an upper bound (<): a new major is a new client"
    return lows[0], highs[0]


def deps(env: str) -> list[str]:
    text = tox()[f"testenv:{env}"]["deps"]
    return [line.split("#")[0].strip() for line in text.splitlines() if line.strip()]


def kubernetes_test_files() -> set[str]:
    uses = re.compile(r"^\s*(from kubernetes[. ]|import kubernetes)", re.MULTILINE)
    found = set()
    for path in sorted((ROOT / "tests" / "unit").glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        text = path.read_text("utf-8")
        if uses.search(text) or "load_kube_apis" in text:
            found.add(path.name)
    return found


def test_the_kubernetes_client_has_an_upper_bound() -> None:
    low, high = bounds(requirement("kubernetes"))
    assert int(high.split(".")[0]) <= 31, "kubernetes 31 and later are not tested"
    assert low.split(".")[0] == "27"


def test_tox_tests_the_lowest_and_the_highest_kubernetes_beside_libjuju_2_9() -> None:
    req = requirement("kubernetes")
    low, _ = bounds(req)
    lowest, highest = deps("kubernetes-lowest"), deps("kubernetes-highest")
    assert f"kubernetes=={low}" in lowest
    # The highest: pip's newest within the very range pyproject.toml declares.
    assert any(
        Requirement(d).name == "kubernetes" and Requirement(d).specifier == req.specifier
        for d in highest
        if d.startswith("kubernetes")
    )
    for env in (lowest, highest):
        assert "juju==2.9.49.1" in env  # the libjuju that does not cap the client itself


def test_both_kubernetes_envs_run_every_test_that_uses_the_client() -> None:
    wanted = kubernetes_test_files()
    assert {"test_live_cluster_port.py", "test_pods.py"} <= wanted
    config = tox()
    for env in ("kubernetes-lowest", "kubernetes-highest"):
        commands = config[f"testenv:{env}"]["commands"]
        # {[vars:kubernetes]tests}, as tox substitutes it
        commands = re.sub(r"\{\[([^\]]+)\](\w+)\}", lambda m: config[m[1]][m[2]], commands)
        ran = set(re.findall(r"tests/unit/(test_\w+\.py)", commands))
        assert wanted <= ran, f"{env} does not run {sorted(wanted - ran)}"


def test_a_bare_tox_runs_both_kubernetes_envs() -> None:
    env_list = {e.strip() for e in tox()["tox"]["env_list"].split(",")}
    assert {"kubernetes-lowest", "kubernetes-highest"} <= env_list
