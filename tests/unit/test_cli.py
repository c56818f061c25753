"""``repro``: every command, its output and its error paths (exit 2, one line, no traceback)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from evidence_samples import evidence

from harness.catalogue.names import NAMES, PREDICT_ONLY
from harness.cli import catalogue, timeline
from harness.cli import main as cli
from harness.cli import run as cli_run
from harness.evidence.write import write_bundle
from harness.run import launch
from harness.scenario.podspec import PODSPEC_SCENARIOS
from harness.scenario.scenarios import SCENARIOS

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"
BUNDLES = SAMPLES.parent / "bundles"
LOGS = sorted(p for p in SAMPLES.iterdir() if p.name.startswith(("debuglog_", "agentlogfile_")))
SVG = "{http://www.w3.org/2000/svg}"


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, *words: str) -> None:
    assert code == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("repro: ")
    for word in words:
        assert word in lines[0]


# --- list ------------------------------------------------------------------------------


def test_list_names_every_disruption_and_scenario_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = repro(capsys, "list")

    assert code == 0
    names = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    # Last, apart: the disruptions only catalogued (repro predict), not yet runnable.
    podspec = [p.name for p in PODSPEC_SCENARIOS]
    assert names == [*NAMES, *(s.name for s in SCENARIOS), *podspec, *PREDICT_ONLY]
    # container-restart scenarios show the container and the signal they use.
    assert re.search(
        r"^  container-restart-charm +\[container-restart \(container charm, signal TERM\)\]",
        out,
        re.M,
    )


# --- predict ---------------------------------------------------------------------------


def test_predict_json_is_the_catalogue_expectation(capsys: pytest.CaptureFixture[str]) -> None:
    from harness.catalogue import load

    code, out, _ = repro(capsys, "predict", "pod-delete", "--juju", "3.6", "--format", "json")

    assert code == 0
    data = json.loads(out)
    branches = data.pop("branches")
    assert data == json.loads(json.dumps(load().expect("pod-delete", "3.6").to_json()))
    assert [b["branch"] for b in branches] == ["main", "interrupted-stop"]
    assert {"hooks", "survives", "sources", "known_bugs"} <= set(data)
    # The seed fact, in order (other hooks may be placed between them).
    ordered = [
        h for h in data["hooks"] if h in ("stop", "upgrade-charm", "config-changed", "start")
    ]
    assert ordered == ["stop", "upgrade-charm", "config-changed", "start"]


def test_predict_node_restart_is_start_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = repro(capsys, "predict", "node-restart", "--juju", "2.9.43", "--format", "json")

    assert code == 0
    data = json.loads(out)
    assert "start" in data["hooks"]
    assert "upgrade-charm" not in data["hooks"]
    assert data["survives"]["container-root"] is False


def test_predict_text_says_the_hooks_and_the_known_bug(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = repro(capsys, "predict", "pod-delete", "--juju", "3.6")

    assert code == 0
    assert out.splitlines()[0].startswith("pod-delete on Juju 3.6")
    assert re.search(
        r"^hooks, in order \(leader\): stop, upgrade-charm, config-changed, start", out, re.M
    )
    assert "https://bugs.launchpad.net/juju/+bug/2021891" in out


@pytest.mark.parametrize(
    ("juju", "timing", "first_hooks"),
    [
        ("2.9.3", "grace period 30 s; no stop runs", "upgrade-charm, config-changed"),
        ("2.9.4", "grace period 30 s; stop has 30 s", "stop, upgrade-charm"),
        ("2.9.32", "grace period 300 s; stop has 300 s", "stop, upgrade-charm"),
        ("2.9.37", "grace period 300 s; stop has 5 s", "stop, upgrade-charm"),
        ("2.9.43", "grace period 300 s; stop has 300 s", "stop, upgrade-charm"),
        ("3.1.2", "grace period 300 s; stop has 5 s", "stop, upgrade-charm"),
        ("3.1.3", "grace period 300 s; stop has 300 s", "stop, upgrade-charm"),
        ("3.3", "grace period 30 s; stop has 30 s", "stop, upgrade-charm"),
        ("3.6", "grace period 30 s; stop has 30 s", "stop, upgrade-charm"),
        ("4.0", "grace period 30 s; stop has 30 s", "stop, upgrade-charm"),
    ],
)
def test_predict_shows_branches_grace_period_and_stop_budget_per_version(
    capsys: pytest.CaptureFixture[str], juju: str, timing: str, first_hooks: str
) -> None:
    code, out, _ = repro(capsys, "predict", "pod-spec-change", "--juju", juju)
    assert code == 0
    lines = out.splitlines()
    assert lines[2].startswith(timing), lines[2]
    # On 4.0 (no leader-settings-changed) leaders and non-leaders run the same hooks.
    who = "" if juju == "4.0" else " (non-leader)"
    assert f"hooks, in order{who}: {first_hooks}" in out
    hook_lines = "\n".join(line for line in lines if line.startswith("hooks, in order"))
    assert ("leader-settings-changed" in hook_lines) == (juju != "4.0")
    branches = re.findall(r"^branch (\S+) \(", out, re.M)
    expected = ["second-roll"] if juju == "2.9.3" else ["interrupted-stop", "second-roll"]
    assert branches == expected
    if juju != "2.9.3":
        assert "when a stop is terminated or fails" in out


def test_predict_container_restart_by_container_and_signal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = repro(
        capsys, "predict", "container-restart", "--juju", "3.0", "--container", "charm",
        "--signal", "TERM", "--format", "json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert (data["variant"], data["stop_budget_seconds"]) == ("charm", 5)
    assert data["hooks"][:2] == ["stop", "start"]
    code, out, _ = repro(
        capsys, "predict", "container-restart", "--juju", "3.6", "--container", "charm",
        "--signal", "KILL",
    )  # fmt: skip
    assert code == 0
    assert "hooks, in order (leader): start, {container}-pebble-ready" in out
    code, out, _ = repro(capsys, "predict", "container-restart", "--juju", "3.6")
    assert re.findall(r"^branch (\S+) ", out, re.M) == ["charm", "charm-kill"]
    assert "charm container, signal KILL/OOM" in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            (
                "predict",
                "container-restart",
                "--juju",
                "3.6",
                "--container",
                "charm",
                "--signal",
                "HUP",
            ),
            ("HUP", "TERM, KILL, OOM"),
        ),
        (
            ("predict", "pod-delete", "--juju", "2.9.3", "--variant", "interrupted-stop"),
            ("2.9.4",),
        ),
        (("predict", "pod-kick", "--juju", "3.6"), ("pod-kick", "pod-delete", "node-restart")),
        (("predict", "pod-delete", "--juju", "three"), ("not a Juju version", "3.6")),
        (("predict", "pod-delete"), ("--juju",)),
        (
            ("predict", "pod-delete", "--juju", "3.6", "--container", "app"),
            ("--container and --signal apply to container-restart and container-kill only",),
        ),
        (("predict", "container-restart", "--juju", "3.6", "--signal", "KILL"), ("--container",)),
        (("predict", "pod-delete", "--juju", "3.6", "--format", "xml"), ("xml",)),
    ],
)
def test_predict_errors(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: tuple[str, ...]
) -> None:
    code, _, err = repro(capsys, *argv)

    assert_one_line_error(code, err, *words)


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (("run", "lp2021891-pod-delet"), "lp2021891-pod-delete"),
        (("run", "poddelete"), "pod-delete"),
        (("run", "container-restart-chram"), "container-restart-charm"),
        (("predict", "pod-delet", "--juju", "3.6"), "pod-delete"),
        (("predict", "node-restrat", "--juju", "3.6"), "node-restart"),
    ],
)
def test_a_mistyped_name_gets_the_name_it_resembles(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: tuple[str, ...],
    meant: str,
) -> None:
    no_controller(monkeypatch)

    code, _, err = repro(capsys, *argv)

    assert_one_line_error(code, err, f"did you mean {meant}?")


@pytest.mark.parametrize(("command", "metavar"), [("run", "SCENARIO"), ("predict", "DISRUPTION")])
def test_the_name_a_command_takes_is_explained_in_its_help(
    capsys: pytest.CaptureFixture[str], command: str, metavar: str
) -> None:
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = capsys.readouterr().out

    usage, rest = out.split("positional arguments:", 1)
    assert metavar in usage.split()
    positional = rest.split("options:", 1)[0]
    explained = " ".join(positional.split())
    assert explained.startswith(metavar + " ")  # named, and said what it is
    assert "repro list" in explained


def test_an_unknown_disruption_is_offered_only_what_repro_list_shows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, listed, _ = repro(capsys, "list")
    code, _, err = repro(capsys, "predict", "nosuch", "--juju", "3.6")

    assert_one_line_error(code, err, "unknown disruption 'nosuch'", "repro list")
    offered = err.split("choose one of: ", 1)[1].split(";")[0].split(")")[0].split(", ")
    assert offered == [*NAMES, *PREDICT_ONLY]
    assert all(f"  {name} " in listed for name in offered)
    assert "deploy" not in offered
    assert "integrate" not in offered


@pytest.mark.parametrize(
    ("name", "fix"),
    [
        ("lp2021891-pod-delete", "repro predict pod-delete --juju 3.6"),
        (
            "container-restart-charm",
            "repro predict container-restart --juju 3.6 --container charm",
        ),
    ],
)
def test_predict_of_a_scenario_names_its_disruption(
    capsys: pytest.CaptureFixture[str], name: str, fix: str
) -> None:
    code, _, err = repro(capsys, "predict", name, "--juju", "3.6")

    assert_one_line_error(code, err, f"{name} is a scenario", fix)


# --- timeline --------------------------------------------------------------------------

_ENTITY = r"^unit-(?P<app>[a-z0-9-]+)-(?P<n>\d+): (?:\d{4}-\d{2}-\d{2} )?\d\d:\d\d:\d\d\S* "
_ORACLE = {
    "ok": re.compile(_ENTITY + r'INFO juju\.worker\.uniter\.operation ran "(?P<hook>[^"]+)" hook'),
    "failed": re.compile(
        _ENTITY + r'ERROR juju\.worker\.(?:uniter\.operation hook "(?P<hook>[^"]+)".* failed'
        r'|meterstatus error running "(?P<meter>[^"]+)": (?!charm missing))'
    ),
    "not-run": re.compile(
        _ENTITY + r'ERROR juju\.worker\.meterstatus error running "(?P<hook>[^"]+)": charm missing'
    ),
    "terminated": re.compile(
        _ENTITY + r'\w+ juju\.worker\.uniter\.operation hook "(?P<hook>[^"]+)" was terminated'
    ),
}
_REBOOT = re.compile(_ENTITY + r"INFO juju\.worker\.uniter reboot detected")


def oracle(path: Path) -> list[tuple[str, str, str]]:
    """Hook runs and reboots of units, found by plain patterns independent of the parser."""
    found = []
    for line in path.read_text("utf-8").splitlines():
        for outcome, pattern in _ORACLE.items():
            match = pattern.match(line)
            if match:
                hook = match["hook"] or match.groupdict().get("meter")
                found.append((f"{match['app']}/{match['n']}", hook, outcome))
        reboot = _REBOOT.match(line)
        if reboot:
            found.append((f"{reboot['app']}/{reboot['n']}", "", "reboot"))
    return found


def test_the_samples_are_here() -> None:
    assert len(LOGS) >= 12
    for path in LOGS:
        assert path.read_text("utf-8").startswith("# source:")


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_timeline_json_on_every_sample(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    code, out, _ = repro(capsys, "timeline", str(path), "--format", "json")

    assert code == 0
    records = json.loads(out)
    assert isinstance(records, list)
    for record in records:
        assert re.match(r"^[a-z][a-z0-9-]*/\d+$|^unknown$", record["unit"]), record
        assert record["time"]
        if record["kind"] == "hook":
            assert record["hook"]
            outcomes = ("ok", "failed", "terminated", "skipped", "not-run")
            if record["source"] == "ops-log":
                outcomes = (None,)  # ops logs that an event began, not how it ended
            assert record["outcome"] in outcomes
    uniter = [r for r in records if r["source"] == "debug-log"]
    seen = [
        (r["unit"], r.get("hook", ""), r["outcome"] if r["kind"] == "hook" else r["kind"])
        for r in uniter
        if r["kind"] == "reboot" or (r["kind"] == "hook" and r["outcome"] != "skipped")
    ]
    assert seen == oracle(path)


def test_timeline_finds_the_hooks_of_the_reboot_sample(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "debuglog_3.6.3_k8s_alertmanager_pod_restart_reboot_detected.txt"
    code, out, _ = repro(capsys, "timeline", str(path), "--format", "json")

    assert code == 0
    records = json.loads(out)
    after_stop = [r for r in records if r["kind"] in ("hook", "reboot")]
    names = [r.get("hook") or r["kind"] for r in after_stop]
    tail = names[names.index("stop") :]
    assert tail[:5] == ["stop", "upgrade-charm", "config-changed", "reboot", "start"]
    assert {"unit": "alertmanager/0", "time": "08:36:50", "kind": "hook",
            "hook": "alertmanager-pebble-ready", "outcome": "terminated",
            "source": "debug-log"} in records  # fmt: skip


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
@pytest.mark.parametrize("fmt", ["text", "md", "svg"])
def test_timeline_other_formats_on_every_sample(
    capsys: pytest.CaptureFixture[str], path: Path, fmt: str
) -> None:
    code, out, _ = repro(capsys, "timeline", str(path), "--format", fmt)
    assert code == 0
    _, as_json, _ = repro(capsys, "timeline", str(path), "--format", "json")
    records = json.loads(as_json)
    units = list(dict.fromkeys(r["unit"] for r in records))

    if fmt == "text":
        assert len(out.splitlines()) == len(records)
        for line, record in zip(out.splitlines(), records, strict=True):
            assert line.startswith(record["time"])
            assert record["unit"] in line
    elif fmt == "md":
        for unit in units:
            assert f"\n## {unit}\n" in out
        assert out.count("\n| ") >= len(records)
    else:
        root = ET.fromstring(out)
        lanes = [g.attrib["data-unit"] for g in root.iter(f"{SVG}g") if g.get("class") == "lane"]
        assert sorted(lanes) == sorted(units)
        marks = [g for g in root.iter(f"{SVG}g") if g.get("class") == "hook"]
        assert len(marks) == len(records)


def test_timeline_filters_one_unit(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "debuglog_3.6.3_k8s_cos_lite_full.txt"
    _, everything, _ = repro(capsys, "timeline", str(path), "--format", "json")
    code, out, _ = repro(
        capsys, "timeline", str(path), "--format", "json", "--unit", "unit-loki-0"
    )

    assert code == 0
    records = json.loads(out)
    assert records
    assert {r["unit"] for r in records} == {"loki/0"}
    assert records == [r for r in json.loads(everything) if r["unit"] == "loki/0"]


def test_timeline_reads_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = SAMPLES / "debuglog_2.9.32_k8s_prometheus_unit_lifecycle.txt"
    monkeypatch.setattr(sys, "stdin", io.StringIO(path.read_text("utf-8")))

    code, out, _ = repro(capsys, "timeline", "-", "--format", "json")

    assert code == 0
    _, from_file, _ = repro(capsys, "timeline", str(path), "--format", "json")
    assert json.loads(out) == json.loads(from_file)
    assert json.loads(out)


def test_agent_log_file_takes_its_unit_from_the_file_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "unit-postgresql-k8s-0.log"
    log.write_text((SAMPLES / "agentlogfile_2.8era_machine_with_location.txt").read_text("utf-8"))

    code, out, _ = repro(capsys, "timeline", str(log), "--format", "json")

    assert code == 0
    records = json.loads(out)
    assert records
    assert {r["unit"] for r in records} == {"postgresql-k8s/0"}


def test_timeline_says_when_nothing_was_found(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "empty.log"
    empty.write_text("machine-0: 10:00:00 INFO juju.worker nothing here\n")

    code, out, err = repro(capsys, "timeline", str(empty), "--format", "json")

    assert code == 0
    assert json.loads(out) == []
    assert err.strip() == "repro: no hook lines in empty.log"


def test_timeline_reads_a_gzipped_log_and_a_log_with_a_bom(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import gzip

    path = SAMPLES / "debuglog_2.9.32_k8s_prometheus_unit_lifecycle.txt"
    text = path.read_text("utf-8")
    _, plain, _ = repro(capsys, "timeline", str(path), "--format", "json")
    zipped = tmp_path / "debug-log.txt.gz"
    zipped.write_bytes(gzip.compress(text.encode()))
    first_hook = next(i for i, line in enumerate(text.splitlines()) if 'ran "' in line)
    bom = tmp_path / "from-windows.txt"
    bom.write_text("\ufeff" + "\n".join(text.splitlines()[first_hook:]) + "\n", "utf-8")

    code, from_gz, err = repro(capsys, "timeline", str(zipped), "--format", "json")
    assert code == 0
    assert "no hook lines" not in err
    assert json.loads(from_gz) == json.loads(plain)

    code, from_bom, _ = repro(capsys, "timeline", str(bom), "--format", "json")
    assert code == 0
    assert json.loads(from_bom)[0]["hook"] == "install"  # the first line's hook


def test_timeline_of_a_log_with_only_ops_event_lines(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "debuglog_2.9.31_k8s_traefik_ops_events_only_full.txt"

    code, out, err = repro(capsys, "timeline", str(path), "--format", "text")

    assert code == 0
    assert "no hook lines" not in err
    lines = out.splitlines()
    assert lines[2].split()[-2:] == ["leader-elected", "[ops]"]
    assert any("[re-emitted] update-status (deferred earlier) [ops]" in line for line in lines)


def test_timeline_shows_a_hook_that_was_not_run(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "debuglog_3.6.6_machine_postgresql_with_date_head200.txt"

    code, out, _ = repro(capsys, "timeline", str(path))

    assert code == 0
    assert out.splitlines()[0].endswith("meter-status-changed (not run: charm missing from disk)")


class _WatchedInput:
    """Stdin that checks, while being read, that earlier records were already written."""

    def __init__(self, out: io.StringIO, lines: int) -> None:
        self.out = out
        self.lines = lines
        self.written_early = False

    def __iter__(self) -> Iterator[str]:
        yield 'unit-a-0: 10:00:00 INFO juju.worker.uniter.operation ran "install" hook\n'
        for i in range(self.lines):
            if i == self.lines - 1:
                self.written_early = "install" in self.out.getvalue()
            yield f"unit-a-0: 10:00:01 DEBUG juju.worker.uniter noise {i}\n"


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_timeline_streams_json_and_text(monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    out = io.StringIO()
    watched = _WatchedInput(out, 1000)
    monkeypatch.setattr(sys, "stdin", watched)
    monkeypatch.setattr(sys, "stdout", out)

    assert cli.main(["timeline", "-", "--format", fmt]) == 0

    assert watched.written_early  # the record was out before the input ended


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("timeline", "/no/such/debug.log"), ("no such file", "/no/such/debug.log")),
        (("timeline", "."), ("is a folder",)),
        (("timeline", "-", "--unit", "probe"), ("not a unit name", "app/N")),
        (("timeline", "-", "--format", "pdf"), ("pdf",)),
        (("timeline",), ("DEBUG_LOG_FILE",)),
    ],
)
def test_timeline_errors(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: tuple[str, ...]
) -> None:
    code, _, err = repro(capsys, *argv)

    assert_one_line_error(code, err, *words)


@pytest.mark.parametrize("fmt", ["text", "md", "json", "svg"])
def test_timeline_never_prints_a_logs_control_characters(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    # A log is someone else's text: an OSC escape in a "hook name" would retitle the
    # terminal (or write its clipboard) when the timeline is printed.
    log = tmp_path / "hostile.log"
    log.write_text(
        'unit-probe-0: 12:00:00 INFO juju.worker.uniter.operation ran "\x1b]0;owned\x07x" hook\n'
        'unit-probe-0: 12:00:01 INFO juju.worker.uniter.operation ran "start" hook\n'
        "unit-probe-0: 12:00:02 DEBUG unit.probe/0.juju-log Emitting Juju event \x1b[2Jbad.\n",
        "utf-8",
    )

    code, out, _ = repro(capsys, "timeline", str(log), "--format", fmt)

    assert code == 0
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "start" in out
    assert "owned" in out  # still shown, as visible text


def test_timeline_of_a_closed_stdin_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `repro timeline - <&-`: Python sets sys.stdin to None when fd 0 is closed.
    monkeypatch.setattr(sys, "stdin", None)

    code, _, err = repro(capsys, "timeline", "-")

    assert_one_line_error(code, err, "stdin is closed", "pipe")
    assert "TypeError" not in err


def test_timeline_of_an_unreadable_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    locked = tmp_path / "locked.log"
    locked.write_text("x")

    def denied(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    # Tests may run as root, where chmod 000 does not stop a read.
    monkeypatch.setattr(timeline, "open", denied, raising=False)

    code, _, err = repro(capsys, "timeline", str(locked))

    assert_one_line_error(code, err, "cannot read", "Permission denied")


class _FullDisk(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


@pytest.mark.parametrize(
    "argv",
    [("list",), ("predict", "pod-delete", "--juju", "3.6"), ("timeline", str(LOGS[0]))],
)
def test_output_to_a_full_disk_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]
) -> None:
    # `repro timeline big.log > /full/disk/out.txt`
    monkeypatch.setattr(sys, "stdout", _FullDisk())

    code, _, err = repro(capsys, *argv)

    assert_one_line_error(code, err, "No space left on device", "free space")
    assert "OSError" not in err


# --- report ----------------------------------------------------------------------------


@pytest.fixture
def bundle_dir(tmp_path: Path) -> Path:
    return write_bundle(evidence(), tmp_path / "run")


def test_report_renders_md_svg_and_json(
    capsys: pytest.CaptureFixture[str], bundle_dir: Path
) -> None:
    code, md, _ = repro(capsys, "report", str(bundle_dir))
    assert code == 0
    assert md == (bundle_dir / "report.md").read_text("utf-8")

    code, svg, _ = repro(capsys, "report", str(bundle_dir), "--format", "svg")
    assert code == 0
    assert svg == (bundle_dir / "timeline.svg").read_text("utf-8")

    code, raw, _ = repro(capsys, "report", str(bundle_dir / "bundle.json"), "--format", "json")
    assert code == 0
    assert raw == (bundle_dir / "bundle.json").read_text("utf-8")


def test_report_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bundle_dir: Path
) -> None:
    code, _, err = repro(capsys, "report", str(tmp_path / "missing"))
    assert_one_line_error(code, err, "no such bundle folder")

    code, _, err = repro(capsys, "report", str(tmp_path))
    assert_one_line_error(code, err, "no bundle.json")

    (bundle_dir / "bundle.json").write_text("{not json", "utf-8")
    code, _, err = repro(capsys, "report", str(bundle_dir))
    assert_one_line_error(code, err, "is not JSON")

    (bundle_dir / "bundle.json").write_text(json.dumps({"schema": "1"}), "utf-8")
    code, _, err = repro(capsys, "report", str(bundle_dir))
    assert_one_line_error(code, err, "does not follow the bundle schema")


def test_report_of_a_bundle_json_that_is_not_a_file_is_refused_not_read_forever(
    tmp_path: Path,
) -> None:
    # A FIFO (or a link to /dev/zero) named bundle.json never ends; a hostile folder can
    # hold one. In a child with a deadline, so old code fails the test instead of hanging.
    folder = tmp_path / "run"
    folder.mkdir()
    os.mkfifo(folder / "bundle.json")

    done = subprocess.run(
        [sys.executable, "-m", "harness.cli.main", "report", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert_one_line_error(done.returncode, done.stderr, "bundle.json", "not a regular file")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_run_with_a_bundle_that_is_not_a_regular_file_is_refused_not_read_forever(
    tmp_path: Path, kind: str
) -> None:
    bundle = tmp_path / "bundle.yaml"
    if kind == "fifo":
        os.mkfifo(bundle)
    else:
        bundle.symlink_to("/dev/zero")

    done = subprocess.run(
        [sys.executable, "-m", "harness.cli.main", "run", "pod-delete", "--bundle", str(bundle)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert_one_line_error(done.returncode, done.stderr, "bundle.yaml", "not a regular file")


def test_run_with_an_app_not_in_the_bundle_names_the_one_it_resembles(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    no_controller(monkeypatch)
    bundle = BUNDLES / "postgresql-k8s" / "bundle.yaml"

    code, _, err = repro(capsys, "run", "pod-delete", "--bundle", str(bundle), "--app", "postgres")

    assert_one_line_error(code, err, "did you mean postgresql-k8s?")


def test_report_of_a_bundle_nested_too_deeply_is_one_line(
    capsys: pytest.CaptureFixture[str], bundle_dir: Path
) -> None:
    (bundle_dir / "bundle.json").write_text("[" * 100_000 + "]" * 100_000, "utf-8")

    code, _, err = repro(capsys, "report", str(bundle_dir))

    assert_one_line_error(code, err, "nested too deeply")
    assert "RecursionError" not in err


# --- matrix ----------------------------------------------------------------------------


def test_matrix_finds_bundles_recursively(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write_bundle(evidence(backend="live", juju="3.6.1"), tmp_path / "a" / "job-3.6" / "run")
    write_bundle(evidence(backend="live", juju="2.9.43", deviation=False), tmp_path / "b" / "run")

    code, out, _ = repro(capsys, "matrix", str(tmp_path / "a"), str(tmp_path / "b"))

    assert code == 0
    runs = out.split("## By Juju series")[0]  # the per-run table
    rows = [line for line in runs.splitlines() if line.startswith("| pod-delete")]
    assert [row.split(" | ")[1] for row in rows] == ["2.9.43", "3.6.1"]
    assert rows[1].rstrip(" |").endswith("| 1 | 1")  # one deviation, one known bug
    assert rows[0].rstrip(" |").endswith("| 0 | 1")


@pytest.mark.parametrize("case", ["missing", "empty", "file"])
def test_matrix_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str) -> None:
    target = tmp_path / "x"
    if case == "empty":
        target.mkdir()
    if case == "file":
        target.write_text("# a report.md, say")

    code, _, err = repro(capsys, "matrix", str(target))

    words = {
        "missing": "no such folder",
        "empty": "no bundle.json under",
        "file": "is a file, not a folder of bundles",
    }
    assert_one_line_error(code, err, words[case])


@pytest.mark.parametrize("strict", [False, True])
def test_one_bad_bundle_does_not_lose_the_matrix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, strict: bool
) -> None:
    write_bundle(evidence(backend="live", juju="3.6.1"), tmp_path / "job-3.6")
    good = write_bundle(evidence(backend="live", juju="2.9.43"), tmp_path / "job-2.9")
    text = (good / "bundle.json").read_text("utf-8")
    (good / "bundle.json").write_text(text[: len(text) // 2], "utf-8")  # a truncated upload
    (tmp_path / "job-3.1").mkdir()
    (tmp_path / "job-3.1" / "bundle.json").write_text("[]", "utf-8")
    (tmp_path / "job-3.4").mkdir()  # hostile: deeper than Python's JSON reader recurses
    (tmp_path / "job-3.4" / "bundle.json").write_text("[" * 100_000 + "]" * 100_000, "utf-8")

    code, out, err = repro(capsys, "matrix", str(tmp_path), *(["--strict"] if strict else []))

    assert code == (1 if strict else 0)
    assert "| pod-delete | 3.6.1 |" in out
    assert "1 run." in out
    below = out.split("3 unreadable bundles, not in the table:", 1)[1]
    assert "job-2.9/bundle.json`: " in below
    assert "is not JSON" in below
    assert "job-3.1/bundle.json`: " in below
    assert "schema" in below
    assert "job-3.4/bundle.json`: " in below
    assert "nested too deeply" in below
    assert ("unreadable" in err) == strict


def test_counts_of_one_are_singular(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Counts of one are singular: never "1 runs", "1 unreadable bundles", "1 deviations"."""
    write_bundle(evidence(backend="live", juju="3.6.1"), tmp_path / "good")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "bundle.json").write_text("[]", "utf-8")

    code, out, err = repro(capsys, "matrix", str(tmp_path), "--strict")

    assert code == 1
    assert "1 run." in out
    assert "1 unreadable bundle, not in the table:" in out
    assert "(1 deviation)" in out  # the by-series table
    assert "repro: 1 unreadable bundle (listed under the table)" in err
    for wrong in ("1 runs", "1 unreadable bundles", "1 deviations", "1 keys"):
        assert wrong not in out + err


# --- run -------------------------------------------------------------------------------


def no_controller(monkeypatch: pytest.MonkeyPatch, reachable: bool = False) -> None:
    monkeypatch.setattr(cli_run, "_controller_reachable", lambda: reachable)


def test_run_dry_run_prints_the_plan_and_touches_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def forbidden(*args: Any) -> Any:
        raise AssertionError("a dry run must not run anything")

    monkeypatch.setattr(launch, "deploy_and_run", forbidden)
    code, out, _ = repro(
        capsys, "run", "lp2021891-pod-delete", "--backend", "live", "--dry-run",
        "--model", "bug", "--evidence-dir", str(tmp_path / "ev"),
    )  # fmt: skip

    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "backend: live (dry run: nothing is touched)"
    deploy = lines.index(
        "juju deploy -m bug mysql-router-k8s mysql-router-k8s --channel 8.0/edge --trust"
    )
    delete = next(
        i for i, line in enumerate(lines) if line.startswith("kubectl -n bug delete pod")
    )
    assert deploy < delete
    assert not (tmp_path / "ev").exists()


PROBE_IN_A_CLONE = "./charms/probe/probe_amd64.charm"


@pytest.mark.parametrize("model", [None, "bug"])
def test_a_live_plan_makes_its_model_and_names_it_in_every_juju_command(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    model: str | None,
) -> None:
    # Copied line by line into a terminal, the plan must act on its own model, never on
    # the one `juju switch` last chose; and it is read outside the clone too.
    monkeypatch.setattr(launch, "deploy_and_run", None)
    monkeypatch.chdir(tmp_path)
    code, out, _ = repro(
        capsys, "run", "lp2021891-pod-delete", "--backend", "live", "--dry-run",
        *(["--model", model] if model else []),
    )  # fmt: skip

    assert code == 0
    name = model or "repro-lp2021891-pod-delete"
    lines = out.splitlines()
    commands = [line for line in lines if line.startswith("juju ")]
    first_deploy = next(i for i, line in enumerate(lines) if line.startswith("juju deploy"))
    if model is None:  # the harness makes it, with Juju's hook settings
        assert commands[:2] == [
            f"juju add-model {name} --no-switch",
            f"juju model-config -m {name} automatically-retry-hooks=true "
            "update-status-hook-interval=5m",
        ]
        assert lines.index(commands[1]) < first_deploy
    else:  # an existing model is used as it is
        assert not any(c.startswith(("juju add-model", "juju model-config")) for c in commands)
    for command in commands:
        if not command.startswith("juju add-model"):
            assert command.split()[2:4] == ["-m", name], command
    # The probe it names is where a clone has it once packed; here there is none.
    assert f"juju deploy -m {name} {PROBE_IN_A_CLONE} probe" in out
    missing = [line for line in lines if line.startswith("# note:") and PROBE_IN_A_CLONE in line]
    assert missing == [
        f"# note: {PROBE_IN_A_CLONE} does not exist in {tmp_path}: pack the probe in a clone "
        "of this repository, (cd charms/probe && charmcraft pack), and pass --probe-charm PATH"
    ]
    assert lines.index(missing[0]) < first_deploy


@pytest.mark.parametrize("inherit", [False, True])
def test_run_dry_run_says_what_the_model_s_hook_settings_will_be(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, inherit: bool
) -> None:
    monkeypatch.setattr(launch, "deploy_and_run", None)
    code, out, _ = repro(
        capsys, "run", "lp2021891-pod-delete", "--backend", "live", "--dry-run",
        *(["--inherit-model-config"] if inherit else []),
    )  # fmt: skip

    assert code == 0
    said = [line for line in out.splitlines() if line.startswith("# model config:")]
    assert len(said) == 1
    if inherit:
        assert "keeps the controller's model-defaults (--inherit-model-config)" in said[0]
    else:
        assert "gets Juju's defaults (automatically-retry-hooks=true " in said[0]


def test_inherit_model_config_on_the_twin_is_said_to_be_irrelevant_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = repro(
        capsys, "run", "lp2021891-pod-delete", "--backend", "twin", "--dry-run",
        "--inherit-model-config", "--evidence-dir", str(tmp_path / "ev"),
    )  # fmt: skip

    assert code == 0
    said = [line for line in out.splitlines() if "--inherit-model-config" in line]
    assert said == [
        "note: --inherit-model-config is ignored on the twin: it has no controller "
        "and no model-defaults (SIMULATED)"
    ]
    assert not any(line.startswith("# model config:") for line in out.splitlines())


def test_run_auto_says_it_fell_back_to_the_twin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    no_controller(monkeypatch)

    code, out, _ = repro(capsys, "run", "lp2021891-node-restart", "--dry-run")

    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("backend: twin")
    assert "fell back" in first
    assert "SIMULATED" in first


def test_run_auto_picks_live_when_a_controller_answers(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    no_controller(monkeypatch, reachable=True)

    code, out, _ = repro(capsys, "run", "lp2021891-node-restart", "--dry-run")

    assert code == 0
    assert out.splitlines()[0] == "backend: live (a Juju controller is reachable)"


def test_run_live_without_a_controller_says_how_to_bootstrap(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    no_controller(monkeypatch)

    code, out, err = repro(capsys, "run", "lp2021891-pod-delete", "--backend", "live")

    assert_one_line_error(code, err, "no Juju controller is reachable", "juju bootstrap microk8s")
    assert out == ""


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("run", "lp0-nothing"), ("unknown scenario", "lp2021891-pod-delete")),
        (("run", "lp2021891-pod-delete", "--juju", "latest"), ("not a Juju version",)),
        (("run", "lp2021891-pod-delete", "--app", "nginx", "--dry-run"), ("nginx", "probe-peer")),
        (("run", "lp2021891-pod-delete", "--backend", "k8s"), ("k8s",)),
        *(
            (("run", *scenario, "--backend", "live", "--dry-run", "--model", model), words)
            for scenario, model, words in (
                (
                    ("lp2021891-pod-delete",),
                    "a;rm -r b",
                    ("not a Juju model name: 'a;rm -r b'", "lowercase letters, digits"),
                ),
                (("lp2021891-pod-delete",), "My-Model", ("not a Juju model name",)),
                (("lp2021891-pod-delete",), "", ("not a Juju model name: ''",)),
                (
                    ("pod-delete", "--bundle", str(BUNDLES / "postgresql-k8s")),
                    "my_lab",
                    ("not a Juju model name: 'my_lab'",),
                ),
            )
        ),
        (
            (
                "run",
                "lp2021891-pod-delete",
                "--backend",
                "twin",
                "--probe-charm",
                "/no/probe.charm",
            ),
            ("no such probe charm",),
        ),
    ],
)
def test_run_errors(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: tuple[str, ...],
    words: tuple[str, ...],
) -> None:
    no_controller(monkeypatch)

    code, _, err = repro(capsys, *argv)

    assert_one_line_error(code, err, *words)


def test_run_with_an_empty_evidence_dir_is_refused_not_written_into_the_cwd(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # `--evidence-dir "$EVIDENCE"` with the variable unset.
    monkeypatch.chdir(tmp_path)

    code, _, err = repro(
        capsys, "run", "lp2021891-pod-delete", "--backend", "twin", "--evidence-dir", ""
    )

    assert_one_line_error(code, err, "--evidence-dir is empty")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (("predict", "pod-delete", "--juju", "3.6", "--unit", "x/0"), "predict"),
        (("timeline", "-", "--juju", "3.6"), "timeline"),
        (("matrix", "evidence", "--format", "md"), "matrix"),
    ],
)
def test_an_option_a_command_does_not_take_points_at_that_commands_help(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], command: str
) -> None:
    code, _, err = repro(capsys, *argv)

    assert_one_line_error(code, err, "unrecognized arguments", f"see repro {command} --help")


def test_run_on_the_twin_with_a_folder_that_is_not_the_probe_says_which_option(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = repro(
        capsys,
        "run",
        "lp2021891-pod-delete",
        "--backend",
        "twin",
        "--probe-charm",
        str(SAMPLES),
        "--evidence-dir",
        str(tmp_path / "ev"),
    )

    assert_one_line_error(code, err, f"--probe-charm {SAMPLES}", "charms/probe")
    assert "make_lab" not in err  # the library's keyword means nothing on the command line
    assert not (tmp_path / "ev").exists() or not any((tmp_path / "ev").iterdir())


def test_run_app_retargets_the_disruption(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    no_controller(monkeypatch)

    code, out, _ = repro(capsys, "run", "lp2021891-pod-delete", "--app", "probe", "--dry-run")

    assert code == 0
    assert "delete pod probe-0" in out
    assert "delete pod mysql-router-k8s-0" not in out


class _FakeResult:
    def __init__(self, folder: Path, exit_code: int) -> None:
        self.folder = folder
        self.exit_code = exit_code
        self.evidence = SimpleNamespace(charm_errors=())  # none to say on stderr


@pytest.mark.parametrize("deviations", [0, 1])
def test_run_prints_the_folder_last_and_exits_by_verdict(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    deviations: int,
) -> None:
    no_controller(monkeypatch)
    seen: dict[str, Any] = {}

    async def fake_run(
        options: Any, backend: str, scenario: Any, stack: Any, folder: Path, juju: Any, **kw: Any
    ) -> Any:
        seen.update(backend=backend, folder=folder, juju=juju)
        print("progress line")
        write_bundle(evidence(deviation=bool(deviations)), folder)
        return _FakeResult(folder, deviations)

    monkeypatch.setattr(launch, "deploy_and_run", fake_run)
    code, out, _ = repro(
        capsys, "run", "lp2021891-pod-delete", "--juju", "2.9.43", "--evidence-dir", str(tmp_path)
    )

    assert code == deviations
    lines = out.splitlines()
    assert lines[0].startswith("backend: twin")
    assert lines[-1] == str(seen["folder"])
    assert Path(lines[-1]).parent == tmp_path
    assert (Path(lines[-1]) / "bundle.json").exists()
    assert str(seen["juju"]) == "2.9.43"


def test_run_failure_still_points_at_the_bundle(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from harness.common.errors import WaitTimeout

    no_controller(monkeypatch)

    async def failing(
        options: Any, backend: str, scenario: Any, stack: Any, folder: Path, juju: Any, **kw: Any
    ) -> Any:
        write_bundle(evidence(error="timed out"), folder)
        raise WaitTimeout("probe pods Ready", 900, "probe-0 Pending")

    monkeypatch.setattr(launch, "deploy_and_run", failing)
    code, out, err = repro(capsys, "run", "lp2021891-pod-delete", "--evidence-dir", str(tmp_path))

    assert_one_line_error(code, err, "timed out after 900s waiting for probe pods Ready")
    assert (Path(out.splitlines()[-1]) / "bundle.json").exists()


def test_unexpected_errors_are_one_line_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(args: Any) -> int:
        raise RuntimeError("something\nunexpected")

    monkeypatch.setattr(catalogue, "cmd_list", broken)

    code, _, err = repro(capsys, "list")

    assert_one_line_error(code, err, "RuntimeError: something unexpected")


def test_the_entry_point_prints_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from harness.cli.main import main; sys.exit(main())",
         "report", str(tmp_path / "nothing")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip

    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        cli.main(["--help"])

    assert caught.value.code == 0
    assert "timeline" in capsys.readouterr().out


# --- end to end on the twin --------------------------------------------------------------


def test_run_on_the_twin_end_to_end_is_deterministic(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folders = []
    for attempt in ("one", "two"):
        code, out, err = repro(
            capsys, "run", "lp2021891-pod-delete", "--backend", "twin", "--juju", "3.6",
            "--evidence-dir", str(tmp_path / attempt),
        )  # fmt: skip
        assert "Traceback" not in err
        lines = out.splitlines()
        assert lines[0].startswith("backend: twin (SIMULATED")
        folder = Path(lines[-1])
        raw = json.loads((folder / "bundle.json").read_text("utf-8"))
        deviations = [f for f in raw["findings"] if f["verdict"] == "deviation"]
        assert code == (1 if deviations else 0)
        assert raw["simulated"] is True
        assert raw["error"] is None
        hooks = [
            h["hook"] for h in raw["hooks"] if h["unit"] == "probe/0" and h["source"] == "journal"
        ]
        assert hooks[:4] == ["stop", "upgrade-charm", "config-changed", "start"]
        # The report says which catalogue branch each unit was judged against.
        assert raw["branch"] == "main for mysql-router-k8s/0, probe/0"
        report = (folder / "report.md").read_text("utf-8")
        assert "| Catalogue branch | main for mysql-router-k8s/0, probe/0 |" in report
        assert "SIMULATED" in report.splitlines()[0]
        folders.append(folder)

    assert (folders[0] / "bundle.json").read_bytes() == (folders[1] / "bundle.json").read_bytes()

    code, out, _ = repro(capsys, "matrix", str(tmp_path))
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("| pod-delete | 3.6")]
    assert len(rows) == 2
    assert "twin (SIMULATED)" in rows[0]


@pytest.mark.parametrize("inherit", [False, True])
def test_run_live_connects_deploys_and_runs(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    inherit: bool,
) -> None:
    import contextlib
    import types

    import harness.live.lab

    no_controller(monkeypatch, reachable=True)
    calls: list[Any] = []
    lab = types.SimpleNamespace(
        juju=types.SimpleNamespace(model_name="bug-model", driver="jubilant")
    )

    @contextlib.asynccontextmanager
    async def connect_lab(
        model: str | None, keep: bool, driver: str, juju_defaults: bool = True
    ) -> Any:
        calls.append(("connect", model, keep, driver, juju_defaults))
        yield lab

    async def deploy_stack(got: Any, stack: Any, **kw: Any) -> None:
        calls.append(("deploy", got is lab, stack.apps[2].charm))

    async def run_scenario(got: Any, scenario: Any, stack: Any, folder: Path, **kw: Any) -> Any:
        calls.append(("run", scenario.name, sorted(kw)))
        write_bundle(evidence(backend="live"), folder)
        return _FakeResult(folder, 0)

    monkeypatch.setattr(harness.live.lab, "connect_lab", connect_lab)
    monkeypatch.setattr(launch, "deploy_stack", deploy_stack)
    monkeypatch.setattr(launch, "run_scenario", run_scenario)
    charm = tmp_path / "probe_ubuntu-22.04-amd64.charm"
    charm.write_text("zip")

    code, out, _ = repro(
        capsys, "run", "lp2021891-pod-delete", "--model", "bug-model", "--keep-model",
        "--probe-charm", str(charm), "--evidence-dir", str(tmp_path / "ev"),
        *(["--inherit-model-config"] if inherit else []),
    )  # fmt: skip

    assert code == 0
    assert calls == [
        # Juju's defaults on a model it creates, unless told to inherit model-defaults
        ("connect", "bug-model", True, "auto", not inherit),
        ("deploy", True, str(charm)),
        ("run", "lp2021891-pod-delete", ["interruption", "options"]),
    ]
    lines = out.splitlines()
    assert lines[0] == "backend: live (a Juju controller is reachable)"
    assert "model: bug-model (Juju driver jubilant)" in lines
    assert Path(lines[-1]).parent == tmp_path / "ev"


def test_run_live_needs_the_packed_probe_charm(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    no_controller(monkeypatch, reachable=True)

    code, _, err = repro(capsys, "run", "lp2021891-pod-delete", "--backend", "live")

    assert_one_line_error(code, err, "probe charm", "charmcraft pack")


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS])
def test_dry_run_plans_every_scenario(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    no_controller(monkeypatch)
    chosen = next(s for s in SCENARIOS if s.name == name)

    code, out, err = repro(capsys, "run", name, "--dry-run", "--juju", "2.9.43")

    assert code == 0, err
    lines = out.splitlines()
    disrupt = lines.index(f"# disrupt: {chosen.disruption}")
    read_log = next(i for i, line in enumerate(lines) if line.startswith("juju debug-log"))
    commands = [line for line in lines[disrupt + 1 : read_log] if not line.startswith("#")]
    assert commands  # the disruption's own commands, between the snapshots
    assert f"juju relate -m repro-{name} probe:database mysql-router-k8s:database" in lines


def test_timeline_json_keeps_awkward_error_text_exact(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The JSON is assembled per record, not dumped: quotes, backslashes, control characters,
    # non-ASCII and the very text that separates two objects must survive exactly.
    error = 'exit "1" \\ C:\\x\ttab \x01 é \u2028 }, {"hook": "x"} </script>'
    log = tmp_path / "awkward.log"
    log.write_text(
        f'unit-a-0: 10:00:00 ERROR juju.worker.uniter.operation hook "start" failed: {error}\n'
        'unit-a-0: 10:00:01 INFO juju.worker.uniter.operation ran "stop" hook\n',
        "utf-8",
    )

    code, out, _ = repro(capsys, "timeline", str(log), "--format", "json")

    assert code == 0
    assert json.loads(out) == [
        {"unit": "a/0", "time": "10:00:00", "kind": "hook", "source": "debug-log",
         "hook": "start", "outcome": "failed", "detail": error},
        {"unit": "a/0", "time": "10:00:01", "kind": "hook", "source": "debug-log",
         "hook": "stop", "outcome": "ok"},
    ]  # fmt: skip
    assert out.count("\n") == 4  # "[", one object a line, "]" (U+2028 stays as it is)


def test_the_counting_helper_docstring_holds() -> None:
    import doctest

    import harness.common.counts

    assert doctest.testmod(harness.common.counts).attempted > 0
    assert doctest.testmod(harness.common.counts).failed == 0
