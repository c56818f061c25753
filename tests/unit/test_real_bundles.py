"""Real Kubernetes bundles from public repositories, through what a user runs.

Each file under tests/data/bundles names its source (repository, path, commit) in its
header. On the twin every charm these bundles name is a stand-in (no charm source is
given); live, only the dry run can be tried here (no controller, no Charmhub).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_bundle_run import charmhub, forbid_deploying, repro

from harness.common.errors import HarnessError
from harness.evidence.bundle import read_bundle, schema_errors
from harness.evidence.model import Evidence
from harness.scenario.bundle.load import load_bundle

DATA = Path(__file__).parents[1] / "data" / "bundles"


def twin(capsys: pytest.CaptureFixture[str], tmp_path: Path, bundle: str, app: str) -> Evidence:
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(DATA / bundle), "--app", app,
        "--backend", "twin", "--no-probe", "--evidence-dir", str(tmp_path),
    )  # fmt: skip
    assert code == 0, err
    return read_bundle(Path(out.splitlines()[-1]))


def related(evidence: Evidence) -> set[tuple[str, str]]:
    """(unit, endpoint) of every databag snapshot before the disruption."""
    return {(b.seen_by, b.endpoint) for b in evidence.before.relations}


def live_plan(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    bundle: str | Path,
    app: str,
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
    evidence = twin(capsys, tmp_path, "cos-lite/bundle.yaml", "prometheus")
    assert {("prometheus/0", "grafana-source"), ("prometheus/0", "alertmanager")} <= related(
        evidence
    )


def test_iam_two_apps_of_one_charm_run_on_the_twin(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # traefik-admin and traefik-public are both traefik-k8s, each related on `ingress`.
    evidence = twin(capsys, tmp_path, "iam/bundle.yaml", "traefik-public")
    assert evidence.bundle is not None
    runs = dict(evidence.bundle.runs)
    assert runs["traefik-admin"] == runs["traefik-public"]
    assert "stand-in" in runs["traefik-public"]
    assert {("traefik-public/0", "ingress"), ("hydra/0", "public-ingress")} <= related(evidence)


def test_kubeflow_keys_juju_does_not_know_are_ignored_as_juju_does_and_said(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Charmed Kubeflow 1.11 gives 35 apps `_github_repo_name`/`_github_repo_branch` for its
    # own tooling; `juju deploy` ignores fields it does not know.
    bundle = load_bundle(DATA / "kubeflow-1.11" / "bundle.yaml")
    assert len(bundle.apps) == 37
    out = live_plan(capsys, monkeypatch, "kubeflow-1.11/bundle.yaml", "minio")
    assert (
        "# note: _github_repo_branch (in admission-webhook, argo-controller, dex-auth and " in out
    )
    deploy = "juju deploy -m repro-pod-delete istio-gateway istio-ingressgateway"
    assert f"{deploy} --channel 1.28/stable --trust" in out
    assert "--config kind=ingress" in out


def test_iam_series_is_deployed_as_the_base_juju_36_gives_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = live_plan(capsys, monkeypatch, "iam/bundle.yaml", "hydra")
    deploys = {
        line.split()[5]: line for line in out.splitlines() if line.startswith("juju deploy")
    }
    assert "--base ubuntu@22.04" in deploys["hydra"]
    assert "--base ubuntu@20.04" in deploys["traefik-public"]
    assert "# note: hydra: series jammy deployed with --base ubuntu@22.04" in out


@pytest.mark.parametrize(
    ("top", "app", "expected"),
    [
        ("default-base: ubuntu@22.04\n", "", "ubuntu@22.04"),
        ("series: jammy\n", "", "ubuntu@22.04"),
        ("default-base: ubuntu@22.04\n", "    base: ubuntu@24.04\n", "ubuntu@24.04"),
        ("", "    series: kubernetes\n", "ubuntu@20.04"),
        ("", "", None),
    ],
)
def test_the_base_follows_juju_36_base_series_then_the_bundles_default(
    tmp_path: Path, top: str, app: str, expected: str | None
) -> None:
    path = tmp_path / "bundle.yaml"
    path.write_text(f"bundle: kubernetes\n{top}applications:\n  a:\n    charm: x\n{app}")
    assert load_bundle(path).app("a").app_spec().base == expected


@pytest.mark.parametrize(
    ("app", "expected"),
    [
        (
            "    series: jammy\n    base: ubuntu@20.04\n",
            "a has series jammy and base ubuntu@20.04",
        ),
        ("    series: warty\n", "a has series 'warty', which names no base"),
        ("    base: jammy\n", "a has base 'jammy' (write it as OS@VERSION"),
    ],
)
def test_a_base_juju_would_refuse_is_one_line(tmp_path: Path, app: str, expected: str) -> None:
    path = tmp_path / "bundle.yaml"
    path.write_text(f"bundle: kubernetes\napplications:\n  a:\n    charm: x\n{app}")
    with pytest.raises(HarnessError) as caught:
        load_bundle(path)
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_2019_kubeflow_bundles_charm_store_urls_are_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    forbid_deploying(monkeypatch)
    code, _, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(DATA / "kubeflow-v1" / "bundle.yaml"),
        "--app", "minio", "--backend", "twin",
    )  # fmt: skip
    assert code == 2
    assert err.count("\n") == 1
    assert "ambassador has charm cs:~kubeflow-charmers/ambassador, a charm store URL" in err
    assert "use its Charmhub name" in err


def test_a_ch_prefixed_charm_is_looked_up_on_charmhub_by_its_name(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Juju reads `ch:NAME` as NAME on Charmhub (its own test bundles write it so).
    text = (DATA / "postgresql-k8s" / "bundle.yaml").read_text()
    path = tmp_path / "bundle.yaml"
    path.write_text(text.replace("charm: postgresql-k8s", "charm: ch:postgresql-k8s"))
    asked = charmhub(monkeypatch)
    forbid_deploying(monkeypatch)
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(path), "--app", "postgresql-k8s",
        "--backend", "live", "--dry-run", "--no-probe",
    )  # fmt: skip
    assert code == 0, err
    assert any("/v2/charms/info/postgresql-k8s?" in url for url in asked)
    assert "# metadata of postgresql-k8s: charmhub:postgresql-k8s@edge" in out


def overlaid(tmp_path: Path, *parts: str) -> Path:
    """The cos-lite bundle and its overlays as one multi-document file."""
    path = tmp_path / "bundle.yaml"
    path.write_text("\n---\n".join((DATA / "cos-lite" / p).read_text() for p in parts))
    return path


def test_cos_lite_with_its_overlays_in_one_file_is_merged_as_juju_merges_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = overlaid(tmp_path, "bundle.yaml", "storage-small-overlay.yaml", "offers-overlay.yaml")
    bundle = load_bundle(path)
    loki = bundle.app("loki")
    assert loki.storage == {
        "active-index-directory": "kubernetes,2G,1",
        "loki-chunks": "kubernetes,10G,1",
    }
    assert (loki.charm, loki.channel, loki.trust) == ("loki-k8s", "edge", True)  # kept
    assert "prometheus: offers not applied (the harness makes no offers)" in bundle.notes
    out = live_plan(capsys, monkeypatch, path, "loki")
    assert (
        "juju deploy -m repro-pod-delete loki-k8s loki --channel edge --trust --storage "
        "active-index-directory=kubernetes,2G,1 --storage loki-chunks=kubernetes,10G,1"
    ) in out
    assert "# note: grafana: offers not applied (the harness makes no offers)" in out


def test_an_overlay_removes_an_app_with_its_relations_and_adds_relations(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bundle.yaml"
    base = (DATA / "cos-lite" / "bundle.yaml").read_text()
    overlay = (
        "applications:\n  loki:\n  grafana:\n    options: {web_external_url: x}\n"
        "relations:\n- [grafana:grafana-source, alertmanager:grafana-source]\n"
    )
    path.write_text(f"{base}---\n{overlay}")
    bundle = load_bundle(path)
    assert bundle.app_names == ("alertmanager", "prometheus", "grafana")
    assert bundle.relations == (
        ("prometheus:alertmanager", "alertmanager:alerting"),
        ("grafana:grafana-source", "prometheus:grafana-source"),
        ("grafana:grafana-source", "alertmanager:grafana-source"),
    )
    assert bundle.app("grafana").options == {"web_external_url": "x"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\n"
            "    offers:\n      o:\n        endpoints: [db]\n",
            "applications.a.offers can only appear in an overlay",
        ),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\n---\nservices:\n  a:\n"
            "    scale: 2\n",
            "overlay (YAML document 2) uses the old services key",
        ),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\nservices:\n  b:\n"
            "    charm: y\n",
            "it has both applications and services",
        ),
        ("bundle: kubernetes\napplications:\n  a:\n    charm: x\n---\n- 1\n", "is not a mapping"),
        ("bundle: kubernetes\napplications:\n  My_App:\n    charm: x\n", "'My_App' is not a Juju"),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\n    options:\n      k:\n",
            "a.options.k has no value",
        ),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\n    resources:\n"
            "      img: [a, b]\n",
            "a.resources.img has a list, not a single value",
        ),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\n  b:\n    charm: y\n"
            "relations:\n- [a:db, b:db]\n- [b:db, a:db]\n",
            "relation ['b:db', 'a:db'] is defined more than once",
        ),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\nrelations:\n- [a:db, a:dba]\n",
            "relation ['a:db', 'a:dba'] relates an application to itself",
        ),
    ],
)
def test_overlay_relation_and_name_rules_juju_enforces_are_one_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "bundle.yaml"
    path.write_text(text)
    with pytest.raises(HarnessError) as caught:
        load_bundle(path)
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


def test_what_the_harness_did_not_do_is_in_the_evidence_not_only_the_plan(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = overlaid(tmp_path, "bundle.yaml", "offers-overlay.yaml")
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(path), "--app", "loki",
        "--backend", "twin", "--no-probe", "--evidence-dir", str(tmp_path / "evidence"),
    )  # fmt: skip
    assert code == 0, err
    assert "note: loki: offers not applied (the harness makes no offers)" in out
    folder = Path(out.splitlines()[-1])
    raw = json.loads((folder / "bundle.json").read_text())
    assert schema_errors(raw) == []
    assert "loki: offers not applied (the harness makes no offers)" in raw["bundle"]["notes"]
    evidence = read_bundle(folder)
    assert evidence.bundle is not None
    assert len([n for n in evidence.bundle.notes if "offers not applied" in n]) == 4
    report = (folder / "report.md").read_text()
    assert "Not as `juju deploy` of the file would be:" in report
    assert "- alertmanager: offers not applied (the harness makes no offers)" in report


def test_kubeflow_with_a_bare_relation_runs_on_the_twin_stand_ins(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `- - argo-controller\n  - minio`: Juju completes it from the real metadata; a
    # stand-in names the end for the other one (minio:argo-controller).
    evidence = twin(capsys, tmp_path, "kubeflow-1.11/bundle.yaml", "minio")
    assert ("minio/0", "argo-controller") in related(evidence)
    assert evidence.bundle is not None
    assert len(evidence.bundle.runs) == 37


def test_a_resource_file_is_found_beside_the_bundle_as_juju_finds_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "bundle"
    folder.mkdir()
    (folder / "image.yaml").write_text("registrypath: ubuntu/nginx:latest\n")
    text = (DATA / "postgresql-k8s" / "bundle.yaml").read_text()
    path = folder / "bundle.yaml"
    path.write_text(text.replace("postgresql-image: 18", "postgresql-image: ./image.yaml"))
    monkeypatch.chdir(tmp_path)  # not the bundle's folder
    app = load_bundle(path).app("postgresql-k8s")
    assert app.resources == {"postgresql-image": str(folder / "image.yaml")}
    assert load_bundle(path).app("pgbouncer-k8s").resources == {"pgbouncer-image": "2"}


def test_cos_lite_with_overlay_files_as_its_readme_deploys_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # canonical/cos-lite-bundle: juju deploy cos-lite --trust --overlay ./offers-overlay.yaml
    cos = DATA / "cos-lite"
    bundle = load_bundle(
        cos / "bundle.yaml",
        overlays=(cos / "storage-small-overlay.yaml", cos / "offers-overlay.yaml"),
    )
    assert bundle.app("grafana").storage == {"database": "kubernetes,2G,1"}
    assert "grafana: offers not applied (the harness makes no offers)" in bundle.notes
    assert bundle.deploy_command() == (
        "juju deploy ./bundle.yaml --trust --overlay ./storage-small-overlay.yaml"
        " --overlay ./offers-overlay.yaml"
    )
    assert bundle.text.count("--- # overlay ") == 2  # the evidence keeps what was merged
    charmhub(monkeypatch, reachable=False)
    forbid_deploying(monkeypatch)
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(cos / "bundle.yaml"), "--app", "grafana",
        "--overlay", str(cos / "storage-small-overlay.yaml"), "--backend", "live", "--dry-run",
        "--no-probe",
    )  # fmt: skip
    assert code == 0, err
    deploy = "juju deploy -m repro-pod-delete grafana-k8s grafana"
    assert f"{deploy} --channel edge --trust --storage database=" in out
    assert "as `juju deploy ./bundle.yaml --trust --overlay ./storage-small-overlay.yaml`" in out


def test_an_overlay_file_that_is_not_there_or_without_a_bundle_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    forbid_deploying(monkeypatch)
    code, _, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(DATA / "cos-lite"), "--app", "loki",
        "--overlay", str(tmp_path / "nope.yaml"), "--backend", "twin",
    )  # fmt: skip
    assert (code, err.count("\n")) == (2, 1)
    assert f"no such overlay file: {tmp_path / 'nope.yaml'}" in err
    code, _, err = repro(capsys, "run", "pod-delete", "--overlay", str(tmp_path / "x.yaml"))
    assert (code, err.count("\n")) == (2, 1)
    assert "--overlay needs --bundle" in err


def test_an_option_included_from_a_file_is_read_as_juju_reads_it(tmp_path: Path) -> None:
    (tmp_path / "rules.txt").write_text("groups: []\n")
    path = tmp_path / "bundle.yaml"
    path.write_text(
        "bundle: kubernetes\napplications:\n  a:\n    charm: x\n    options:\n"
        "      rules: include-file://rules.txt\n      b64: include-base64://./rules.txt\n"
    )
    assert load_bundle(path).app("a").options == {
        "rules": "groups: []\n",
        "b64": "Z3JvdXBzOiBbXQo=",
    }
    (tmp_path / "rules.txt").unlink()
    with pytest.raises(HarnessError) as caught:
        load_bundle(path)
    assert f"a.options.rules: cannot include {tmp_path / 'rules.txt'}" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_keys_juju_40_no_longer_reads_are_said(tmp_path: Path) -> None:
    path = tmp_path / "bundle.yaml"
    path.write_text("bundle: kubernetes\nseries: jammy\nservices:\n  a:\n    charm: x\n")
    bundle = load_bundle(path)
    assert bundle.app("a").base == "ubuntu@22.04"
    assert bundle.notes == (
        "services: the old name of applications; Juju 4.0 reads only applications",
        "series jammy: apps without a base of their own deployed with --base ubuntu@22.04, "
        "as Juju 3.6 does (Juju 4.0 has no series key: write default-base:)",
    )


def test_an_overlay_elsewhere_naming_relative_paths_is_one_line(tmp_path: Path) -> None:
    # Juju resolves an overlay's ./x.charm and include-file:// from the overlay's folder
    # (internal/charm/overlay.go, per data source); the merged text would use the bundle's.
    (tmp_path / "elsewhere").mkdir()
    overlay = tmp_path / "elsewhere" / "overlay.yaml"
    overlay.write_text("applications:\n  loki:\n    options:\n      x: include-file://x.txt\n")
    with pytest.raises(HarnessError) as caught:
        load_bundle(DATA / "cos-lite" / "bundle.yaml", overlays=(overlay,))
    assert "loki names a path relative to the overlay, outside the bundle's folder" in str(
        caught.value
    )
    overlay.write_text("applications:\n  loki:\n    options:\n      x: y\n")
    assert load_bundle(DATA / "cos-lite", overlays=(overlay,)).app("loki").options == {"x": "y"}
