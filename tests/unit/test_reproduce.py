"""The report's Reproduce command reproduces: every option that shapes the result is in it.

The twin test runs the command the report gives, from the place the report says, and gets
the same findings; the others pin the options a live run and the default stack need.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest

from harness.cli import main as cli
from harness.evidence.bundle import read_bundle
from harness.evidence.model import Evidence
from harness.run.options import RunOptions
from harness.run.reproduce import repro_command
from harness.scenario.bundle.load import load_bundle
from harness.scenario.bundle_stack import prepare
from harness.scenario.scenarios import scenario
from harness.scenario.stack import default_stack

EXAMPLE = Path(__file__).parents[2] / "examples" / "charm-repo"


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def reproduce_line(folder: Path) -> str:
    """The ``repro run`` line of the report's Reproduce section."""
    report = (folder / "report.md").read_text("utf-8")
    section = report.split("## Reproduce", 1)[1]
    return next(line for line in section.splitlines() if line.startswith("repro run "))


def outcome(evidence: Evidence) -> list[tuple[str, str, str, str, str]]:
    return sorted(
        (f.check, f.subject, f.expected, f.observed, f.verdict) for f in evidence.findings
    )


def options(**given: object) -> RunOptions:
    values: dict[str, object] = {
        "scenario": "pod-delete",
        "backend": "live",
        "juju": None,
        "app": None,
        "unit": None,
        "evidence_dir": "evidence",
        "model": None,
        "keep_model": False,
        "dry_run": False,
        "probe_charm": None,
        "bundle": None,
        "overlay": (),
        "watch": (),
        "mark": (),
        "charm_source": (),
        "charm_venv": (),
        "no_probe": False,
        "juju_driver": "auto",
        "inherit_model_config": False,
    }
    values.update(given)
    return RunOptions(**values)  # type: ignore[arg-type]


def a_project(tmp_path: Path) -> Path:
    """A charm author's checkout: the bundle, an overlay, and the charm's source."""
    project = tmp_path / "my-project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    shutil.copytree(EXAMPLE, project / "charm", ignore=shutil.ignore_patterns("tests"))
    shutil.copy(EXAMPLE / "bundle.yaml", project / "bundle.yaml")
    # The overlay changes what the charm publishes: without it the result differs.
    (project / "overlay.yaml").write_text(
        "applications:\n  demo:\n    options:\n      greeting: hola\n"
    )
    return project


def test_the_reproduce_command_of_a_twin_bundle_run_reproduces_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project = a_project(tmp_path)
    monkeypatch.chdir(tmp_path)  # the run is started from elsewhere, with other paths

    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(project / "bundle.yaml"),
        "--overlay", str(project / "overlay.yaml"), "--app", "demo",
        "--charm-source", f"demo={project / 'charm'}", "--no-probe", "--juju", "3.4.2",
        "--watch", "demo:app:/etc/demo/demo.conf", "--mark", "demo:app:/srv/data/.marker",
        "--backend", "twin", "--evidence-dir", str(tmp_path / "first"),
    )  # fmt: skip
    assert code == 0, err
    first = Path(out.splitlines()[-1])
    line = reproduce_line(first)

    words = shlex.split(line)
    for expected in (
        ["--bundle", "./bundle.yaml"],
        ["--overlay", "./overlay.yaml"],
        ["--app", "demo"],
        ["--charm-source", "demo=./charm"],
        ["--juju", "3.4.2"],
        ["--watch", "demo:app:/etc/demo/demo.conf"],
        ["--mark", "demo:app:/srv/data/.marker"],
        ["--backend", "twin"],
    ):
        at = words.index(expected[0])
        assert words[at : at + 2] == expected, line
    assert "--no-probe" in words
    assert str(tmp_path) not in line  # no path of this machine
    report = (first / "report.md").read_text("utf-8")
    assert "names its paths from the folder that holds `bundle.yaml`" in report

    # Run it as a reader would, from the folder the report names.
    monkeypatch.chdir(project)
    assert words[:2] == ["repro", "run"]
    code, out, err = repro(capsys, *words[1:], "--evidence-dir", str(tmp_path / "again"))
    assert code == 0, err
    again = Path(out.splitlines()[-1])

    before, after = read_bundle(first), read_bundle(again)
    assert outcome(after) == outcome(before)
    assert after.juju_version == before.juju_version == "3.4.2"
    assert reproduce_line(again) == line
    greeting = {
        b.data.get("greeting") for b in after.after.relations if b.owner == "demo"
    } - {None}  # fmt: skip
    assert greeting == {"hola"}  # the overlay was applied again
    # The picture's title names the disruption once, with the app and the bundle.
    heading = (again / "timeline.svg").read_text("utf-8").split("<title>", 1)[1].split("<", 1)[0]
    assert heading.startswith("SIMULATED reproduction: pod-delete of demo, bundle my-project (")


def test_the_reproduce_command_keeps_the_app_chosen_on_the_default_stack(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = repro(
        capsys, "run", "lp2021891-pod-delete", "--app", "probe", "--backend", "twin",
        "--evidence-dir", str(tmp_path),
    )  # fmt: skip
    assert code == 0, err
    words = shlex.split(reproduce_line(Path(out.splitlines()[-1])))
    at = words.index("--app")
    assert words[at : at + 2] == ["--app", "probe"]


def test_the_reproduce_command_keeps_the_one_unit_chosen(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = repro(
        capsys, "run", "lp2021891-pod-delete", "--unit", "mysql-router-k8s/0",
        "--backend", "twin", "--evidence-dir", str(tmp_path),
    )  # fmt: skip
    assert code == 0, err
    words = shlex.split(reproduce_line(Path(out.splitlines()[-1])))
    at = words.index("--unit")
    assert words[at : at + 2] == ["--unit", "mysql-router-k8s/0"]


def test_a_live_command_keeps_the_probe_charm_driver_and_model_config() -> None:
    stack = default_stack("/home/someone/juju-lifecycle-harness/charms/probe/probe_amd64.charm")
    given = options(
        scenario="lp2021891-pod-delete",
        probe_charm="/home/someone/juju-lifecycle-harness/charms/probe/probe_amd64.charm",
        juju_driver="jubilant",
        inherit_model_config=True,
    )

    line = repro_command(scenario("lp2021891-pod-delete"), "live", "3.6.1", stack, given)

    words = shlex.split(line)
    assert words[words.index("--juju-driver") + 1] == "jubilant"
    assert "--inherit-model-config" in words
    assert words[words.index("--backend") + 1] == "live"
    assert "--juju" not in words  # live: the controller's version decides
    assert words[words.index("--probe-charm") + 1].endswith("probe_amd64.charm")
    assert "/home/someone" not in line


def test_a_twin_command_keeps_a_probe_charm_folder() -> None:
    probe = Path(__file__).parents[2] / "charms" / "probe"
    given = options(scenario="lp2021891-pod-delete", backend="twin", probe_charm=str(probe))

    line = repro_command(
        scenario("lp2021891-pod-delete"), "twin", "3.6", default_stack(str(probe)), given
    )

    words = shlex.split(line)
    assert words[words.index("--probe-charm") + 1] == "./charms/probe"


def test_a_bundle_overlay_outside_its_folder_is_named_from_the_bundles_folder(
    tmp_path: Path,
) -> None:
    project = a_project(tmp_path)
    (project / "overlays").mkdir()
    overlay = (project / "overlay.yaml").rename(project / "overlays" / "hola.yaml")
    bundle = load_bundle(project / "bundle.yaml", {"demo": project / "charm"}, [overlay])
    stack, chosen = prepare(bundle, "pod-delete", "demo", metas={})
    given = options(
        backend="twin",
        bundle=str(project / "bundle.yaml"),
        overlay=(str(overlay),),
        charm_source=(f"demo={project / 'charm'}",),
    )

    words = shlex.split(repro_command(chosen, "twin", "3.6", stack, given))

    assert words[words.index("--overlay") + 1] == "./overlays/hola.yaml"


def test_the_reproduce_command_carries_the_charms_own_venv(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # wordpress-k8s's trial: its venv was given with --charm-venv, and the report's line
    # left it out, so the line run as the report says failed to import the charm's deps.
    project = tmp_path / "my-project"
    shutil.copytree(Path(__file__).parents[1] / "charms" / "needs-deps", project / "charm")
    (project / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    shutil.copy(project / "charm" / "bundle.yaml", project / "bundle.yaml")
    python = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = project / "deps-venv" / "lib" / python / "site-packages"
    site.mkdir(parents=True)
    (site / "shapes_only_dependency.py").write_text('GREETING = "from its own venv"\n')
    monkeypatch.chdir(tmp_path)

    code, out, err = repro(
        capsys, "run", "pod-delete", "--bundle", str(project / "bundle.yaml"),
        "--app", "needs-deps", "--charm-source", f"needs-deps={project / 'charm'}",
        "--charm-venv", f"needs-deps={project / 'deps-venv'}", "--no-probe",
        "--backend", "twin", "--evidence-dir", str(tmp_path / "first"),
    )  # fmt: skip
    assert code == 0, err
    first = Path(out.splitlines()[-1])
    words = shlex.split(reproduce_line(first))
    at = words.index("--charm-venv")
    assert words[at : at + 2] == ["--charm-venv", "needs-deps=./deps-venv"]

    monkeypatch.chdir(project)
    code, out, err = repro(capsys, *words[1:], "--evidence-dir", str(tmp_path / "again"))
    assert code == 0, err
    assert outcome(read_bundle(Path(out.splitlines()[-1]))) == outcome(read_bundle(first))
