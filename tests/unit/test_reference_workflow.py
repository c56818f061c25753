"""reference.yaml: builds the lifecycle reference with the newest live evidence, reads it in
Chromium, publishes it from main only, and keeps the project's workflow rules; and the
script that fetches the evidence, run against a stand-in ``gh``."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
REFERENCE = WORKFLOWS / "reference.yaml"
FETCH = ROOT / ".github" / "scripts" / "fetch-live-evidence.sh"
SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _workflow() -> dict[str, Any]:
    data = yaml.safe_load(REFERENCE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    if True in data:  # YAML 1.1 reads the bare key `on` as True
        data["on"] = data.pop(True)
    return data


def _steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    steps = job["steps"]
    assert isinstance(steps, list)
    return steps


def _tox() -> configparser.ConfigParser:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    return tox


def test_it_builds_on_main_on_dispatch_after_the_nightly_run_and_checks_pull_requests() -> None:
    on = _workflow()["on"]
    assert on["push"]["branches"] == ["main"]
    assert "workflow_dispatch" in on
    assert on["schedule"], "fold in the nightly integration run's evidence"
    assert "pull_request" in on
    assert "pull_request_target" not in on, "never run a fork's code with secrets"


def test_only_main_publishes_and_only_the_deploy_job_can_write() -> None:
    workflow = _workflow()
    assert workflow["permissions"] == {"contents": "read"}
    jobs = workflow["jobs"]
    for name, job in jobs.items():
        granted = job["permissions"]
        if name == "deploy":
            assert granted == {"pages": "write", "id-token": "write"}
        else:
            assert "write" not in granted.values(), name
    deploy = jobs["deploy"]
    assert "refs/heads/main" in deploy["if"]
    assert "pull_request" in deploy["if"]
    assert deploy["environment"]["name"] == "github-pages"
    assert any("actions/deploy-pages@" in s.get("uses", "") for s in _steps(deploy))
    assert jobs["evidence"]["permissions"] == {"contents": "read", "actions": "read"}


def test_every_action_is_pinned_to_a_full_commit_with_its_version_noted() -> None:
    text = REFERENCE.read_text(encoding="utf-8")
    used = [s["uses"] for job in _workflow()["jobs"].values() for s in _steps(job) if "uses" in s]
    assert {u.split("@")[0] for u in used} >= {
        "actions/checkout",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    }
    for ref in used:
        assert SHA_PIN.match(ref), ref
        assert re.search(rf"{re.escape(ref)} # v\d", text), f"no version comment: {ref}"


def test_every_step_has_a_timeout_within_its_jobs_and_no_checkout_keeps_credentials() -> None:
    for name, job in _workflow()["jobs"].items():
        assert job["runs-on"] == "ubuntu-24.04", name
        steps = _steps(job)
        assert all(isinstance(s.get("timeout-minutes"), int) for s in steps), name
        assert sum(s["timeout-minutes"] for s in steps) + 5 <= job["timeout-minutes"], name
        for step in steps:
            assert "${{" not in step.get("run", ""), f"{name}: expressions go through env"
            if "actions/checkout" in step.get("uses", ""):
                assert step["with"]["persist-credentials"] is False
            if "actions/upload-artifact" in step.get("uses", ""):
                assert step["with"]["overwrite"] is True, "Re-run failed jobs uploads again"


def test_the_build_runs_the_browser_test_and_keeps_its_screenshots() -> None:
    build = _workflow()["jobs"]["build"]
    steps = _steps(build)
    test = next(s for s in steps if "tox -e reference" in s.get("run", ""))
    assert test["env"]["REQUIRE_CHROMIUM"] == "1", "in CI the browser test may not skip"
    installs = next(s for s in steps if "apt-get install" in s.get("run", ""))
    assert "chromium" in installs["run"]
    assert "chromium-driver" in installs["run"]
    assert build["container"]["image"].startswith("debian:"), "Debian's chromium, as .ci/run"
    shots = next(s for s in steps if s.get("with", {}).get("name") == "reference-screenshots")
    assert "!cancelled()" in shots["if"], "kept when the test fails"
    commands = _tox()["testenv:reference"]["commands"]
    assert f"--screenshots {{tox_root}}/{shots['with']['path']}" in commands


def test_the_site_folded_with_the_live_evidence_is_what_pages_gets() -> None:
    jobs = _workflow()["jobs"]
    fetch = next(
        s for s in _steps(jobs["evidence"]) if "fetch-live-evidence.sh" in s.get("run", "")
    )
    handed = next(s for s in _steps(jobs["evidence"]) if "upload-artifact" in s.get("uses", ""))
    folder = fetch["run"].split()[-1]
    assert handed["with"]["path"] == folder
    steps = _steps(jobs["build"])
    got = next(s for s in steps if "download-artifact" in s.get("uses", ""))
    assert got["with"]["name"] == handed["with"]["name"]
    build = next(s for s in steps if "repro reference" in s.get("run", ""))
    out = re.search(r"--out (\S+)", build["run"])
    assert out
    assert f"--evidence {got['with']['path']}" in build["run"]
    pages = next(s for s in steps if "upload-pages-artifact" in s.get("uses", ""))
    assert pages["with"]["path"] == out.group(1)
    assert jobs["build"]["needs"] == "evidence"
    assert jobs["deploy"]["needs"] == "build"


def test_lint_checks_every_workflow_against_the_schema() -> None:
    commands = _tox()["testenv:lint"]["commands"]
    line = next(c for c in commands.splitlines() if "check-jsonschema" in c)
    for workflow in sorted(WORKFLOWS.glob("*.y*ml")):
        assert f"{{tox_root}}/.github/workflows/{workflow.name}" in line, workflow.name


def test_ci_run_runs_the_browser_test_in_its_own_env_not_in_a_bare_tox() -> None:
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "tox -e reference" in run
    assert "apt-get install -y -qq chromium chromium-driver" in run
    assert "REQUIRE_CHROMIUM=1" in run
    env_list = {e.strip() for e in _tox()["tox"]["env_list"].split(",")}
    assert "reference" not in env_list, "a browser start is too slow for a bare tox"


# --- fetch-live-evidence.sh against a stand-in gh -----------------------------------------

# What `gh run list ... --jq` prints: newest first, "<id> <event> <created>".
RUNS = """\
50 workflow_dispatch 2026-12-03T09:00:00Z
40 schedule 2026-12-03T02:23:00Z
35 workflow_dispatch 2026-12-02T20:00:00Z
30 schedule 2026-12-02T02:23:00Z
"""
FAKE_GH = """\
#!/usr/bin/env bash
# A stand-in for gh: `run list` prints $RUNS_FILE; `run download ID ... --dir D` makes a bundle
# for the ids in $WITH_BUNDLES and fails like gh for the others.
echo "$*" >>"$CALLS"
if [[ $1 == run && $2 == list ]]; then
  [[ -n $LIST_FAILS ]] && { echo "HTTP 403" >&2; exit 1; }
  cat "$RUNS_FILE"; exit 0
fi
if [[ $1 == run && $2 == download ]]; then
  id=$3
  dir=${@: -1}
  if [[ " $WITH_BUNDLES " == *" $id "* ]]; then
    mkdir -p "$dir/evidence-live-x/test_$id"
    echo '{}' >"$dir/evidence-live-x/test_$id/bundle.json"
    exit 0
  fi
  echo "no valid artifacts found to download" >&2; exit 1
fi
exit 2
"""


def _fetch(
    tmp_path: Path, with_bundles: str, **env: str
) -> tuple[subprocess.CompletedProcess[str], Path, list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(0o755)
    (tmp_path / "runs.txt").write_text(RUNS)
    calls = tmp_path / "calls.txt"
    calls.touch()
    out = tmp_path / "live-evidence"
    result = subprocess.run(
        ["bash", str(FETCH), str(out)],
        env={
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "GITHUB_REPOSITORY": "owner/repo",
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "RUNS_FILE": str(tmp_path / "runs.txt"),
            "WITH_BUNDLES": with_bundles,
            "CALLS": str(calls),
            **env,
        },
        capture_output=True,
        text=True,
        check=False,
    )
    return result, out, calls.read_text().splitlines()


@needs_bash
def test_the_newest_scheduled_run_with_bundles_and_the_dispatches_after_it(tmp_path: Path) -> None:
    result, out, _ = _fetch(tmp_path, "50 40 35 30")

    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["SOURCES.txt", "run-40", "run-50"]
    sources = (out / "SOURCES.txt").read_text()
    assert "Run 40 (scheduled, 2026-12-03T02:23:00Z): 1 live evidence bundles." in sources
    assert "Run 50 (dispatched" in sources
    assert sources in (tmp_path / "summary.md").read_text()


@needs_bash
def test_a_scheduled_run_without_bundles_gives_way_to_the_one_before(tmp_path: Path) -> None:
    result, out, calls = _fetch(tmp_path, "30 35")

    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["SOURCES.txt", "run-30", "run-35"]
    assert any("download 40" in call for call in calls), "the newest was tried first"
    assert all("--pattern evidence-live-*" in c for c in calls if "download" in c)


@needs_bash
@pytest.mark.parametrize("env", [{"LIST_FAILS": "1"}, {}])
def test_no_evidence_is_a_note_not_a_failure(tmp_path: Path, env: dict[str, str]) -> None:
    result, out, _ = _fetch(tmp_path, "", **env)

    assert result.returncode == 0, result.stderr
    assert [p.name for p in out.iterdir()] == ["SOURCES.txt"]
    assert (out / "SOURCES.txt").read_text().startswith("No live evidence:")
