"""``repro run DISRUPTION --bundle FILE --app APP``: the plan, the twin's bundle, bad input."""

from __future__ import annotations

import json
import urllib.error
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main as cli
from harness.cli import run as cli_run
from harness.evidence.bundle import read_bundle, schema_errors
from harness.scenario import charm_meta

DATA = Path(__file__).parents[1] / "data" / "bundles" / "postgresql-k8s"
BUNDLE = DATA / "bundle.yaml"
PG_DATA = "/var/lib/postgresql/data/pgdata/PG_VERSION"
MARK = "/etc/postgresql/.harness-marker"


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def charmhub(monkeypatch: pytest.MonkeyPatch, *, reachable: bool = True) -> list[str]:
    """Charmhub's info endpoint, answering with the charms' real metadata.yaml."""
    asked: list[str] = []

    def urlopen(url: str) -> bytes:
        asked.append(url)
        if not reachable:
            raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")
        name = url.split("/v2/charms/info/")[1].split("?")[0]
        text = (DATA / f"{name}.metadata.yaml").read_text()
        return json.dumps({"default-release": {"revision": {"metadata-yaml": text}}}).encode()

    monkeypatch.setattr(charm_meta, "_urlopen", urlopen)
    return asked


def forbid_deploying(monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.live.lab
    import harness.run.launch
    import harness.twin

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("bad input must be refused before anything is deployed")

    monkeypatch.setattr(harness.live.lab, "connect_lab", forbidden)
    monkeypatch.setattr(harness.twin, "make_lab", forbidden)
    monkeypatch.setattr(harness.run.launch, "deploy_stack", forbidden)
    monkeypatch.setattr(cli_run, "_controller_reachable", lambda: True)


def test_live_dry_run_prints_the_exact_plan_for_a_postgresql_bundle(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import harness.live.drivers

    monkeypatch.chdir(tmp_path)  # where no probe charm is packed
    asked = charmhub(monkeypatch)
    forbid_deploying(monkeypatch)
    monkeypatch.setattr(harness.live.drivers, "client_version", lambda: "3.6.1-genericlinux-amd64")
    digest = read_sha(BUNDLE)

    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(BUNDLE), "--app", "postgresql-k8s",
        "--backend", "live", "--dry-run", "--model", "bug",
        "--watch", f"postgresql-k8s:postgresql:{PG_DATA}",
        "--mark", f"postgresql-k8s:postgresql:{MARK}",
    )  # fmt: skip

    assert code == 0, err
    assert len(asked) == 2  # one metadata look-up per Charmhub charm, before any deploy
    assert out.splitlines() == [
        "backend: live (dry run: nothing is touched)",
        "# juju client 3.6.1-genericlinux-amd64 (Juju 3.6): Juju driver libjuju "
        "(covers Juju 2.9 and 3.x)",
        "# model config: a model the harness creates gets Juju's defaults "
        "(automatically-retry-hooks=true update-status-hook-interval=5m), not the "
        "controller's model-defaults; an existing --model is used as it is",
        "# model bug (Kubernetes namespace bug)",
        "# metadata of postgresql-k8s: charmhub:postgresql-k8s@edge",
        "# metadata of pgbouncer-k8s: charmhub:pgbouncer-k8s@edge",
        f"# deploy bundle postgresql-k8s from {BUNDLE.resolve()} (sha256 {digest})",
        "#   app by app, as `juju deploy ./bundle.yaml --trust` would: "
        "pgbouncer-k8s, postgresql-k8s",
        "# add the probe observer (probe, probe-peer): its own apps, related only to each "
        "other, disrupted alongside",
        f"# note: ./charms/probe/probe_amd64.charm does not exist in {tmp_path}: pack the "
        "probe in a clone of this repository, (cd charms/probe && charmcraft pack), and pass "
        "--probe-charm PATH",
        "juju deploy -m bug pgbouncer-k8s pgbouncer-k8s --channel edge --revision 5 "
        "--constraints arch=amd64 --resource pgbouncer-image=2",
        "juju deploy -m bug postgresql-k8s postgresql-k8s --channel edge --revision 19 --trust "
        "--constraints arch=amd64 --storage pgdata=kubernetes,1,1024 "
        "--resource postgresql-image=18",
        "juju deploy -m bug ./charms/probe/probe_amd64.charm probe "
        "--resource workload-image=ubuntu/nginx:1.24-24.04_beta",
        "juju deploy -m bug ./charms/probe/probe_amd64.charm probe-peer "
        "--resource workload-image=ubuntu/nginx:1.24-24.04_beta",
        "juju integrate -m bug pgbouncer-k8s:backend-database postgresql-k8s:database",
        "juju integrate -m bug probe:probe-provider probe-peer:probe-requirer",
        "# wait until settled: pgbouncer-k8s, postgresql-k8s, probe, probe-peer active and idle",
        "# write the probe markers and databag values (actions write-marker, set-databag)",
        f"# write a marker into postgresql-k8s postgresql:{MARK} (kubectl exec)",
        f"# watch postgresql-k8s postgresql:{PG_DATA} "
        "(storage: judged on content and metadata; undetermined if rewritten)",
        f"# watch postgresql-k8s postgresql:{MARK} (container-root)",
        "# watch probe workload:/probe/workload-marker (container-root)",
        "# relation data of every relation of postgresql-k8s (juju show-unit): "
        "pgbouncer-k8s:backend-database postgresql-k8s:database",
        "# snapshot before: pods, watched files, relation data, statuses, probe journal",
        "# disrupt: pod-delete",
        "# pods that go: postgresql-k8s-0 (every unit of postgresql-k8s)",
        "# pods that go: probe-0 (every unit of probe)",
        "kubectl -n bug delete pod -l app.kubernetes.io/name=postgresql-k8s",
        "kubectl -n bug wait pod -l app.kubernetes.io/name=postgresql-k8s "
        "--for=condition=Ready --timeout=900s",
        "kubectl -n bug delete pod -l app.kubernetes.io/name=probe",
        "kubectl -n bug wait pod -l app.kubernetes.io/name=probe "
        "--for=condition=Ready --timeout=900s",
        "# wait until settled: each disrupted postgresql-k8s, probe unit shows a new incarnation"
        " (new pod uid, restart count or agent start) and runs the catalogue's required hooks"
        " (missing after 600s: reported, not awaited), then pods Ready, agents idle, no new"
        " hook line for 20s",
        "# snapshot after: pods, watched files, relation data, statuses, probe journal",
        "juju debug-log -m bug --replay --no-tail --include-module juju.worker.uniter "
        "--include-module juju.worker.caasoperator --include-module juju.cmd "
        "--date --utc --ms --level INFO",
        "# ops' event lines, only where logging-config keeps unit DEBUG lines (Juju's "
        "default, <root>=INFO, does not), read back to the disruption's start:",
        "juju debug-log -m bug --no-tail --lines N --include-module unit --date --utc --ms "
        "--level DEBUG",
        "# judge against the catalogue and write bundle.json, report.md, timeline.svg",
        "# the catalogue expects on Juju 3.6: stop, upgrade-charm, config-changed, start, "
        "postgresql-pebble-ready",  # its container, from the charm's metadata
    ]


def read_sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_live_dry_run_offline_says_what_it_could_not_check(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    charmhub(monkeypatch, reachable=False)
    forbid_deploying(monkeypatch)

    code, out, _ = repro(
        capsys, "run", "pod-delete", "--bundle", str(BUNDLE), "--app", "postgresql-k8s",
        "--backend", "live", "--dry-run", "--no-probe",
    )  # fmt: skip

    assert code == 0
    assert "# metadata of postgresql-k8s not read (cannot reach Charmhub" in out
    assert "# no probe observer (--no-probe): hooks come from debug-log only" in out
    assert "probe" not in out.replace("--no-probe", "").replace("no probe observer", "")


def test_live_run_without_charmhub_refuses_before_deploying(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    charmhub(monkeypatch, reachable=False)
    forbid_deploying(monkeypatch)
    probe = tmp_path / "probe_amd64.charm"
    probe.write_text("zip")

    code, _, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(BUNDLE), "--app", "postgresql-k8s",
        "--backend", "live", "--probe-charm", str(probe),
    )  # fmt: skip

    assert code == 2
    assert err.count("\n") == 1
    assert "cannot reach Charmhub" in err
    assert "--charm-source pgbouncer-k8s=DIR" in err  # the first app it could not read


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bundle.yaml"
    path.write_text(text)
    return path


BAD_INPUT = {
    "not YAML": ("applications: [pgbouncer-k8s\n", "postgresql-k8s", (), "not YAML (line"),
    "app missing": (
        BUNDLE.read_text(),
        "postgresql",
        (),
        "application 'postgresql' is not in bundle bundle.yaml",
    ),
    "undeclared container": (
        BUNDLE.read_text(),
        "postgresql-k8s",
        ("--watch", "postgresql-k8s:postgres:/etc/hosts"),
        "postgresql-k8s declares no container 'postgres'",
    ),
    "nonexistent endpoint": (
        BUNDLE.read_text().replace("postgresql-k8s:database", "postgresql-k8s:databases"),
        "postgresql-k8s",
        (),
        "relation endpoint postgresql-k8s:databases does not exist",
    ),
    "machine bundle": (
        "series: jammy\napplications:\n  postgresql:\n    charm: postgresql\n"
        "    channel: 14/stable\n    num_units: 1\n    to: ['0']\nmachines:\n  '0': {}\n",
        "postgresql",
        (),
        "a machine (non-Kubernetes) bundle",
    ),
}


@pytest.mark.parametrize("backend", ["live", "twin"])
@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_is_one_line_exit_2_before_anything_is_deployed(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    backend: str,
    case: str,
) -> None:
    charmhub(monkeypatch)
    forbid_deploying(monkeypatch)
    text, app, extra, words = BAD_INPUT[case]
    bundle = write(tmp_path, text)
    probe = tmp_path / "probe_amd64.charm"
    probe.write_text("zip")
    # The twin reads metadata from charm sources: give it the real metadata as a folder.
    sources: list[str] = []
    if backend == "twin":
        for name in ("postgresql-k8s", "pgbouncer-k8s"):
            folder = tmp_path / name
            (folder / "src").mkdir(parents=True)
            (folder / "src" / "charm.py").write_text("")
            (folder / "metadata.yaml").write_text((DATA / f"{name}.metadata.yaml").read_text())
            sources += ["--charm-source", f"{name}={folder}"]

    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(bundle), "--app", app,
        "--backend", backend, "--probe-charm", str(probe), *extra, *sources,
        "--evidence-dir", str(tmp_path / "ev"),
    )  # fmt: skip

    assert code == 2, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("repro: ")
    assert words in lines[0]
    assert "Traceback" not in err
    assert not (tmp_path / "ev").exists()


def test_bundle_only_options_need_a_bundle(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = repro(capsys, "run", "pod-delete", "--watch", "probe:workload:/x")
    assert code == 2
    assert "--watch needs --bundle" in err


def test_twin_run_writes_a_complete_simulated_bundle(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(BUNDLE), "--app", "postgresql-k8s",
        "--backend", "twin", "--evidence-dir", str(tmp_path),
        "--mark", f"postgresql-k8s:postgresql:{MARK}",
    )  # fmt: skip

    assert code == 0, err
    folder = Path(out.splitlines()[-1])
    digest = read_sha(BUNDLE)
    assert folder.name.startswith(f"pod-delete-postgresql-k8s-{digest[:12]}-twin-")
    raw = json.loads((folder / "bundle.json").read_text())
    assert schema_errors(raw) == []
    assert raw["simulated"] is True
    assert raw["bundle"]["digest"] == digest
    assert raw["bundle"]["yaml"] == BUNDLE.read_text()
    assert raw["bundle"]["probe"] is True
    stand_in = "generic stand-in (SIMULATED: records hooks, keeps databags, writes nothing)"
    implied = "metadata: implied by bundle.yaml (no charm source given): containers"
    assert {r["app"]: r["ran_by"] for r in raw["bundle"]["runs"]} == {
        "pgbouncer-k8s": f"{stand_in}; {implied} workload",
        "postgresql-k8s": f"{stand_in}; {implied} postgresql",  # the container --mark names
    }
    evidence = read_bundle(folder)
    assert evidence.bundle is not None
    assert evidence.bundle.app == "postgresql-k8s"
    units = {h.unit for h in evidence.hooks}
    assert {"postgresql-k8s/0", "probe/0"} <= units
    # The disrupted app's relation data is recorded from both sides of its relation.
    assert {b.seen_by for b in evidence.before.relations if b.endpoint == "database"} >= {
        "postgresql-k8s/0"
    }
    report = (folder / "report.md").read_text()
    assert report.startswith("# SIMULATED reproduction: pod-delete")
    reproduce = report.split("## Reproduce", 1)[1]
    assert "juju deploy ./bundle.yaml --trust" in reproduce
    assert f"sha256 `{digest}`" in reproduce
    assert "charm: postgresql-k8s" in reproduce  # the bundle itself
    assert "The probe observer (`probe`, `probe-peer`" in report
    # The marker's container is one the bundle implies (no metadata): what rests on it is
    # unchecked, so the stand-in cannot confirm itself (it was a match on a fresh root).
    marker = [f for f in evidence.findings if f.check == "file" and MARK in f.subject]
    assert [(f.expected, f.verdict) for f in marker] == [("lost (container-root)", "undetermined")]
    assert "no metadata for postgresql-k8s" in marker[0].detail
    assert raw["bundle"]["watched"][0] == {
        "app": "postgresql-k8s",
        "container": "postgresql",
        "path": MARK,
        "layer": "container-root",
        "judged": "marker, judged",
    }


@pytest.mark.parametrize("bundle", [True, False], ids=["with-bundle", "default-stack"])
def test_a_twin_dry_run_prints_the_plan_and_touches_nothing(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    bundle: bool,
) -> None:
    # One meaning of --dry-run, the one its help gives, on either backend and either stack.
    forbid_deploying(monkeypatch)
    evidence_dir = tmp_path / "ev"
    what = ["--bundle", str(BUNDLE), "--app", "postgresql-k8s"] if bundle else []
    code, out, err = repro(
        capsys, "run", "pod-delete", *what, "--backend", "twin", "--dry-run",
        "--evidence-dir", str(evidence_dir),
    )  # fmt: skip

    assert code == 0, err
    assert "kubectl -n repro-pod-delete delete pod" in out  # the plan
    assert not evidence_dir.exists()
    assert "SIMULATED plan" not in out


def test_twin_run_without_the_probe_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(BUNDLE), "--app", "pgbouncer-k8s",
        "--backend", "twin", "--no-probe", "--evidence-dir", str(tmp_path),
    )  # fmt: skip

    assert code == 0, err
    folder = Path(out.splitlines()[-1])
    evidence = read_bundle(folder)
    assert evidence.bundle is not None
    assert evidence.bundle.probe is False
    assert not any(h.unit.startswith("probe") for h in evidence.hooks)
    report = (folder / "report.md").read_text()
    assert "**The probe observer was not deployed**" in report
    assert "--no-probe" in report  # the repro command says it too


# --- disruption names as scenarios --------------------------------------------------------


def test_a_disruption_name_runs_on_the_default_stack(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_run, "_controller_reachable", lambda: False)

    code, out, err = repro(capsys, "run", "pod-delete", "--backend", "live", "--dry-run")

    assert code == 0, err
    assert "kubectl -n repro-pod-delete delete pod mysql-router-k8s-0" in out
    assert "juju deploy -m repro-pod-delete mysql-k8s mysql-k8s --channel 8.0/edge --trust" in out


def test_list_shows_disruptions_and_named_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = repro(capsys, "list")
    assert code == 0
    assert "disruptions (repro run NAME: the default stack; add --bundle FILE --app APP):" in out
    assert "scenarios (named reproductions on the default stack):" in out
    assert "  lp2021891-pod-delete" in out
    assert "  pod-delete " in out


def test_a_probe_only_disruption_is_refused_for_a_bundle_app(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = repro(
        capsys, "run", "charm-pod-spec-change", "--bundle", str(BUNDLE),
        "--app", "postgresql-k8s", "--backend", "twin", "--evidence-dir", str(tmp_path),
    )  # fmt: skip
    assert code == 2
    assert "use pod-spec-change" in err
    assert not any(tmp_path.iterdir())


EXAMPLE = Path(__file__).parents[2] / "examples" / "charm-repo"


def test_twin_runs_real_charm_code_given_by_charm_source(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(EXAMPLE / "bundle.yaml"), "--app", "demo",
        "--charm-source", f"demo={EXAMPLE}", "--backend", "twin", "--no-probe",
        "--watch", "demo:app:/etc/demo/demo.conf", "--evidence-dir", str(tmp_path),
    )  # fmt: skip

    assert code == 0, err
    evidence = read_bundle(Path(out.splitlines()[-1]))
    assert evidence.bundle is not None
    runs = dict(evidence.bundle.runs)
    assert runs["demo"].startswith("real charm code (charm-repo")
    assert runs["demo-client"] == runs["demo"]  # the bundle gives both the same charm
    # The real charm wrote its config on pebble-ready, again in the new pod.
    after = {(f.unit, f.path): f.digest for f in evidence.after.files}
    assert after[("demo/0", "/etc/demo/demo.conf")].startswith("sha256:")
    # The relation the bundle declares carries the real charm's app databag (with the
    # bundle's option), as the other side's show-unit sees it.
    bags = [b for b in evidence.after.relations if b.owner == "demo" and b.scope == "app"]
    assert [(b.seen_by, b.endpoint, dict(b.data)) for b in bags if b.data] == [
        ("demo-client/0", "upstream", {"greeting": "bonjour"})
    ]


def test_live_run_deploys_the_bundles_apps_as_written_then_disrupts_its_app(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import contextlib
    import types

    import harness.live.lab
    import harness.run.launch
    from harness.lab.ports import AppSpec

    charmhub(monkeypatch)
    monkeypatch.setattr(cli_run, "_controller_reachable", lambda: True)
    seen: dict[str, Any] = {}
    lab = types.SimpleNamespace(juju=types.SimpleNamespace(model_name="m", driver="libjuju"))

    @contextlib.asynccontextmanager
    async def connect_lab(
        model: str | None, keep: bool, driver: str, juju_defaults: bool = True
    ) -> Any:
        yield lab

    async def deploy_stack(got: Any, stack: Any, **kw: Any) -> None:
        seen["apps"], seen["relations"] = stack.apps, stack.relations

    async def run_scenario(got: Any, scenario: Any, stack: Any, folder: Path, **kw: Any) -> Any:
        seen["targets"] = scenario.targets
        seen["layers"] = stack.layers
        raise RuntimeError("the controller went away")  # a failing run still leaves a bundle

    monkeypatch.setattr(harness.live.lab, "connect_lab", connect_lab)
    monkeypatch.setattr(harness.run.launch, "deploy_stack", deploy_stack)
    monkeypatch.setattr(harness.run.launch, "run_scenario", run_scenario)
    probe = tmp_path / "probe_amd64.charm"
    probe.write_text("zip")

    code, out, err = repro(
        capsys, "run", "container-restart", "--bundle", str(BUNDLE), "--app", "postgresql-k8s",
        "--probe-charm", str(probe), "--mark", f"postgresql-k8s:postgresql:{MARK}",
        "--evidence-dir", str(tmp_path / "ev"),
    )  # fmt: skip

    assert code == 2
    assert "the controller went away" in err
    assert seen["apps"][1] == AppSpec(
        "postgresql-k8s",
        "postgresql-k8s",
        channel="edge",
        trust=True,
        resources={"postgresql-image": "18"},
        revision=19,
        constraints="arch=amd64",
        storage={"pgdata": "kubernetes,1,1024"},
    )
    assert [a.app for a in seen["apps"]] == [
        "pgbouncer-k8s",
        "postgresql-k8s",
        "probe",
        "probe-peer",
    ]
    # container-restart: the container comes from the charm's metadata (Charmhub).
    assert [(t.app, t.container) for t in seen["targets"]] == [("postgresql-k8s", "postgresql")]
    assert seen["layers"] == {
        ("postgresql", MARK): "container-root",
        ("workload", "/probe/workload-marker"): "container-root",
    }
    folder = Path(out.splitlines()[-1])
    assert folder.name.startswith("container-restart-postgresql-k8s-")
    stopped = read_bundle(folder)
    assert stopped.error == "RuntimeError: the controller went away"
    assert stopped.bundle is not None
    assert stopped.bundle.digest == read_sha(BUNDLE)  # named even when the run failed
    assert stopped.commands[0].startswith("repro run container-restart --bundle ./bundle.yaml ")
    assert stopped.commands[1] == "juju deploy ./bundle.yaml --trust"


def test_a_bare_relation_is_completed_from_the_metadata_or_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    charmhub(monkeypatch)
    forbid_deploying(monkeypatch)
    bare = write(
        tmp_path,
        BUNDLE.read_text().replace(
            "- - pgbouncer-k8s:backend-database\n  - postgresql-k8s:database",
            "- [pgbouncer-k8s, postgresql-k8s]",
        ),
    )
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(bare), "--app", "postgresql-k8s",
        "--backend", "live", "--dry-run", "--no-probe",
    )  # fmt: skip
    assert code == 0, err
    integrate = "juju integrate -m repro-pod-delete"
    assert f"{integrate} pgbouncer-k8s:backend-database postgresql-k8s:database" in out

    # postgresql-k8s:db provides pgsql; pgbouncer-k8s only provides pgsql too: no fit.
    ambiguous = write(
        tmp_path,
        BUNDLE.read_text()
        .replace("pgbouncer-k8s:backend-database", "pgbouncer-k8s")
        .replace("postgresql-k8s:database", "postgresql-k8s:db"),
    )
    code, _, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(ambiguous), "--app", "postgresql-k8s",
        "--backend", "live", "--dry-run", "--no-probe",
    )  # fmt: skip
    assert code == 2
    assert "relation pgbouncer-k8s postgresql-k8s:db: no endpoints that fit" in err


def test_a_bundle_without_its_kubernetes_type_is_planned_with_a_note(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    charmhub(monkeypatch)
    forbid_deploying(monkeypatch)
    untyped = write(tmp_path, BUNDLE.read_text().replace("bundle: kubernetes\n", ""))
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(untyped), "--app", "postgresql-k8s",
        "--backend", "live", "--dry-run", "--no-probe",
    )  # fmt: skip
    assert code == 0, err
    assert "# note: the bundle does not say `bundle: kubernetes`" in out


def with_postgresql_scale(tmp_path: Path, units: int) -> Path:
    """The recorded postgresql bundle with ``units`` units of postgresql-k8s."""
    text = BUNDLE.read_text()
    at = text.index("  postgresql-k8s:")
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(text[:at] + text[at:].replace("scale: 1", f"scale: {units}", 1))
    return bundle


def test_a_hook_the_twin_cannot_run_is_undetermined_on_a_non_leader_not_a_deviation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # ops.testing cannot emit leader-settings-changed, which Juju before 4.0 runs on every
    # non-leader after start: a user's bundle with two units must not read as a Juju
    # deviation on the twin, nor pass as a match, but say the hook could not be judged.
    bundle = with_postgresql_scale(tmp_path, 2)

    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(bundle), "--app", "postgresql-k8s",
        "--backend", "twin", "--juju", "3.6", "--evidence-dir", str(tmp_path / "ev"),
    )  # fmt: skip

    assert code == 0, out + err
    evidence = read_bundle(Path(out.splitlines()[-1]))
    (finding,) = [f for f in evidence.findings if f.subject == "postgresql-k8s/1 [debug-log]"]
    assert finding.verdict == "undetermined"
    assert "leader-settings-changed" in finding.detail
    assert "ops.testing" in finding.detail
    assert not [f for f in evidence.findings if f.verdict == "deviation"]


def test_a_scale_the_twin_cannot_hold_is_one_line_before_anything_is_deployed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A typo such as scale: 100000000 ran until memory ran out: every simulated unit lives
    # in this process. Juju itself takes it, so the live backend is not limited.
    forbid_deploying(monkeypatch)
    bundle = with_postgresql_scale(tmp_path, 100000000)

    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(bundle), "--app", "pgbouncer-k8s",
        "--backend", "twin", "--evidence-dir", str(tmp_path / "ev"),
    )  # fmt: skip

    assert code == 2, out + err
    (line,) = err.strip().splitlines()
    assert "postgresql-k8s has scale 100000000" in line
    assert "the twin simulates at most 100 units" in line
    assert not (tmp_path / "ev").exists()


# --- one unit of a scaled application (--unit) ---------------------------------------------


def two_postgresql_units(tmp_path: Path) -> Path:
    text = BUNDLE.read_text()
    scaled = text.replace(
        "      postgresql-image: 18\n    scale: 1", "      postgresql-image: 18\n    scale: 2"
    )
    assert scaled != text
    return write(tmp_path, scaled)


def test_the_plan_says_which_pods_go_and_unit_chooses_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    charmhub(monkeypatch)
    forbid_deploying(monkeypatch)
    bundle = two_postgresql_units(tmp_path)
    argv = [
        "run", "pod-delete", "--bundle", str(bundle), "--app", "postgresql-k8s",
        "--backend", "live", "--dry-run", "--no-probe", "--model", "bug",
    ]  # fmt: skip

    code, every, err = repro(capsys, *argv)
    assert code == 0, err
    assert (
        "# pods that go: postgresql-k8s-0, postgresql-k8s-1 (every unit of postgresql-k8s, "
        "deleted together; --unit postgresql-k8s/N deletes one)"
    ) in every.splitlines()

    code, one, err = repro(capsys, *argv, "--unit", "postgresql-k8s/1")
    assert code == 0, err
    lines = one.splitlines()
    assert "# pods that go: postgresql-k8s-1 (postgresql-k8s/1)" in lines
    assert "kubectl -n bug delete pod postgresql-k8s-1" in lines
    assert not any("delete pod" in line and "postgresql-k8s-0" in line for line in lines)
    assert not any("-l app.kubernetes.io/name=postgresql-k8s" in line for line in lines)


def test_unit_deletes_one_pod_on_the_twin(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bundle = two_postgresql_units(tmp_path)
    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(bundle), "--app", "postgresql-k8s",
        "--unit", "postgresql-k8s/1", "--backend", "twin", "--no-probe",
        "--evidence-dir", str(tmp_path / "ev"),
    )  # fmt: skip

    assert code in (0, 1), err
    evidence = read_bundle(Path(out.splitlines()[-1]))
    deleted = [s.name for s in evidence.steps if s.name.startswith("delete pod")]
    assert deleted == ["delete pod postgresql-k8s-1"]
    assert evidence.before is not None
    assert evidence.after is not None
    uid = {p.unit: p.uid for p in evidence.before.pods}
    after = {p.unit: p.uid for p in evidence.after.pods}
    assert after["postgresql-k8s/0"] == uid["postgresql-k8s/0"]  # the other pod stayed
    assert after["postgresql-k8s/1"] != uid["postgresql-k8s/1"]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--unit", "postgresql-k8s/7"), "no unit postgresql-k8s/7"),
        (("--unit", "postgresql-k8s"), "not a unit name"),
        (("--unit", "pgbouncer-k8s/0"), "--unit pgbouncer-k8s/0 is not of --app postgresql-k8s"),
    ],
)
def test_a_unit_that_cannot_be_chosen_is_one_line(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    extra: tuple[str, ...],
    words: str,
) -> None:
    charmhub(monkeypatch)
    forbid_deploying(monkeypatch)
    code, _, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(two_postgresql_units(tmp_path)),
        "--app", "postgresql-k8s", "--backend", "twin", "--no-probe",
        "--evidence-dir", str(tmp_path / "ev"), *extra,
    )  # fmt: skip

    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert words in err
    assert not (tmp_path / "ev").exists()


def test_unit_is_for_disruptions_of_one_unit(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = repro(
        capsys, "run", "lp2021891-node-restart", "--unit", "probe/0", "--backend", "twin",
        "--dry-run",
    )  # fmt: skip

    assert code == 2
    assert "--unit applies to pod-delete and container-restart" in err
