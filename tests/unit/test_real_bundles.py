"""Real Kubernetes bundles from public repositories, through what a user runs.

Each file under tests/data/bundles names its source (repository, path, commit) in its
header. On the twin every charm these bundles name is a stand-in (no charm source is
given); live, only the dry run can be tried here (no controller, no Charmhub).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_bundle_run import charmhub, forbid_deploying, repro

from harness.evidence.bundle import read_bundle

DATA = Path(__file__).parents[1] / "data" / "bundles"


def twin(capsys: pytest.CaptureFixture[str], tmp_path: Path, bundle: str, app: str) -> Path:
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(DATA / bundle), "--app", app,
        "--backend", "twin", "--no-probe", "--evidence-dir", str(tmp_path),
    )  # fmt: skip
    assert code == 0, err
    return Path(out.splitlines()[-1])


def live_plan(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, bundle: str, app: str
) -> str:
    charmhub(monkeypatch, reachable=False)
    forbid_deploying(monkeypatch)
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(DATA / bundle), "--app", app,
        "--backend", "live", "--dry-run", "--no-probe",
    )  # fmt: skip
    assert code == 0, err
    return out


def test_cos_lite_one_endpoint_in_two_relations_runs_on_the_twin(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # grafana:grafana-source is related to both prometheus and loki: the stand-ins must
    # give one endpoint one interface, or the second relation cannot be made.
    folder = twin(capsys, tmp_path, "cos-lite/bundle.yaml", "prometheus")
    evidence = read_bundle(folder)
    related = {(b.seen_by, b.endpoint) for b in evidence.before.relations}
    assert {("prometheus/0", "grafana-source"), ("prometheus/0", "alertmanager")} <= related


def test_iam_two_apps_of_one_charm_run_on_the_twin(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # traefik-admin and traefik-public are both traefik-k8s, each related on `ingress`.
    folder = twin(capsys, tmp_path, "iam/bundle.yaml", "traefik-public")
    evidence = read_bundle(folder)
    assert evidence.bundle is not None
    runs = dict(evidence.bundle.runs)
    assert runs["traefik-admin"] == runs["traefik-public"]
    assert "stand-in" in runs["traefik-public"]
    related = {(b.seen_by, b.endpoint) for b in evidence.before.relations}
    assert {("traefik-public/0", "ingress"), ("hydra/0", "public-ingress")} <= related
