"""``--watch`` files are judged on survival, honestly: kept, lost, or undetermined.

A file the charm writes may be written again after the disruption (the example charm
rewrites its config on every pebble-ready); its digest is then the same whether its
layer kept it or not. These tests pin down that such a file is never called "kept", with
the records the live observer really produces (its listing script run here with ``sh``,
with GNU and busybox-like ``stat`` and with none) and with the twin's simulated ones.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from test_live_cluster_port import run_listing_locally

from harness.catalogue import load
from harness.cli import main as cli
from harness.common.findings import Finding
from harness.common.observations import (
    ABSENT,
    UNLISTED,
    ContainerStatus,
    FileState,
    PodIdentity,
    Snapshot,
)
from harness.evidence.bundle import read_bundle
from harness.live.cluster_port import parse_listing
from harness.scenario.charm_meta import read_charm_dir
from harness.scenario.stack import Stack
from harness.scenario.watch import watched_path
from harness.verdict.judge import judge

EXAMPLE = Path(__file__).parents[2] / "examples" / "charm-repo"
UNIT = "demo/0"
CONF = "/etc/demo/demo.conf"  # the example charm rewrites it on every pebble-ready
STATE = "/srv/data/state"  # on the example charm's storage volume
DIGEST = "sha256:" + "a" * 64
OTHER = "sha256:" + "b" * 64
STARTED = "2026-01-02T03:00:00+00:00"  # the container's start, as Kubernetes reports it
T_START = datetime(2026, 1, 2, 3, 0, 0, tzinfo=timezone.utc).timestamp()


def demo_stack() -> Stack:
    meta = read_charm_dir(EXAMPLE)
    watched = tuple(watched_path(f"demo:app:{path}", {"demo": meta}) for path in (CONF, STATE))
    return Stack((), (), watched, metas={"demo": meta})


def pod(started_at: str = STARTED, uid: str = "uid-1", node: str = "node-1") -> PodIdentity:
    return PodIdentity(
        UNIT,
        "demo-0",
        uid,
        "Running",
        node=node,
        containers=(ContainerStatus("app", 0, True, None, started_at),),
    )


def state(path: str, digest: str = DIGEST, **meta: float | int | None) -> FileState:
    values = {"size": 12, "mtime": T_START + 60, "ctime": T_START + 60, "inode": 4242}
    values |= {"clock": T_START + 600}
    values.update(meta)
    return FileState(UNIT, "app", path, digest, **values)  # type: ignore[arg-type]


def judged(
    before: Sequence[FileState],
    after: Sequence[FileState],
    *,
    disruption: str = "pod-delete",
    started_at: str = STARTED,
    node_after: str = "node-1",
) -> dict[str, Finding]:
    stack = demo_stack()
    old = Snapshot("t0", pods=(pod(started_at),), files=tuple(before))
    new = Snapshot("t1", pods=(pod(uid="uid-2", node=node_after),), files=tuple(after))
    findings = judge(
        load().expect(disruption, "3.6"),
        old,
        new,
        [],
        units=[UNIT],
        watched_layers=stack.layers,
        charm_written=stack.charm_written,
    )
    return {f.subject.split(":", 1)[1]: f for f in findings if f.check == "file"}


# --- the watch is judged ----------------------------------------------------------------


def test_a_watched_file_is_judged_against_the_layer_its_metadata_names() -> None:
    stack = demo_stack()
    assert stack.layers == {("app", CONF): "container-root", ("app", STATE): "storage"}
    assert stack.charm_written == {("app", CONF), ("app", STATE)}


def test_unchanged_and_absent_files_are_kept_and_lost_against_the_catalogue() -> None:
    before = [state(CONF), state(STATE, inode=77)]
    found = judged(before, [state(CONF, ABSENT), state(STATE, inode=77)])
    assert (found[STATE].verdict, found[STATE].expected) == ("match", "survives (storage)")
    assert found[STATE].observed.startswith("kept (unchanged")
    assert (found[CONF].verdict, found[CONF].expected) == ("match", "lost (container-root)")
    assert found[CONF].observed.startswith("lost")
    # The finding says what it was judged on and points at --mark.
    assert found[CONF].detail.startswith("judged on existence, content, size, mtime, ctime")
    assert "--mark APP:CONTAINER:PATH" in found[CONF].detail


def test_a_file_the_charm_wrote_again_is_undetermined_never_kept() -> None:
    # Same content after a pod replacement: the new container root got it again on
    # pebble-ready, with a new inode and times after the clock read before.
    rewritten = state(CONF, inode=9001, ctime=T_START + 700, mtime=T_START + 700)
    found = judged([state(CONF)], [rewritten])
    f = found[CONF]
    assert f.verdict == "undetermined"
    assert f.observed.startswith("rewritten after the snapshot before the disruption")
    assert "inode 4242 -> 9001" in f.observed
    assert "after the container's clock read 2026-01-02T03:10:00Z" in f.observed
    assert "kept" not in f.observed


def test_a_rewrite_on_a_layer_predicted_to_survive_is_not_a_deviation() -> None:
    found = judged([state(STATE)], [state(STATE, ctime=T_START + 700, mtime=T_START + 700)])
    assert found[STATE].verdict == "undetermined"


def test_an_older_file_in_its_place_means_the_one_seen_before_was_lost() -> None:
    # The charm edited an image file; after the pod replacement the image's copy is back,
    # with its older ctime: no write can set a ctime back.
    edited = state(CONF, ctime=T_START + 60)
    image_copy = state(CONF, OTHER, ctime=T_START - 3600, mtime=T_START - 3600, inode=11)
    found = judged([edited], [image_copy])
    assert found[CONF].verdict == "match"
    assert found[CONF].observed.startswith("lost: the file there now is older")


def test_an_older_file_on_another_node_is_undetermined_two_clocks_are_not_ordered() -> None:
    edited = state(CONF, ctime=T_START + 60)
    elsewhere = state(CONF, OTHER, ctime=T_START - 3600, mtime=T_START - 3600, inode=11)
    found = judged([edited], [elsewhere], node_after="node-2")[CONF]
    assert found.verdict == "undetermined"
    assert "moved to node node-2" in found.observed


def test_an_unchanged_image_file_in_a_container_root_is_undetermined() -> None:
    # ctime older than the container's start: the image's own file, which a new
    # container root shows identically (same lower-layer inode on the same node).
    shipped = state(CONF, ctime=T_START - 86400, mtime=T_START - 86400)
    found = judged([shipped], [shipped])
    assert found[CONF].verdict == "undetermined"
    assert "as the image ships it" in found[CONF].observed


def test_kubernetes_whole_second_start_counts_a_file_of_that_second_as_older() -> None:
    same_second = state(CONF, ctime=T_START + 0.5, mtime=T_START + 0.5)
    assert judged([same_second], [same_second])[CONF].verdict == "undetermined"
    later = state(CONF, ctime=T_START + 1.5, mtime=T_START + 1.5)
    # Unchanged and written by the container: kept, and a pod delete loses the root.
    assert judged([later], [later])[CONF].verdict == "deviation"


@pytest.mark.parametrize(
    ("before", "after", "why"),
    [
        (state(CONF, ctime=None, inode=None), state(CONF, ctime=None, inode=None), "metadata"),
        (state(CONF, clock=T_START + 600), state(CONF, clock=T_START + 10), "clock went back"),
        (state(CONF, ABSENT), state(CONF), "absent before"),
    ],
)
def test_what_cannot_be_told_is_undetermined(
    before: FileState, after: FileState, why: str
) -> None:
    found = judged([before], [after])[CONF]
    assert found.verdict == "undetermined"
    assert why in found.observed


def test_a_marker_is_still_judged_on_its_content() -> None:
    meta = read_charm_dir(EXAMPLE)
    mark = watched_path(f"demo:app:{CONF}", {"demo": meta}, seed=True)
    stack = Stack((), (), (mark,), metas={"demo": meta})
    assert stack.charm_written == frozenset()
    plain = FileState(UNIT, "app", CONF, DIGEST)
    findings = judge(
        load().expect("pod-delete", "3.6"),
        Snapshot("t0", pods=(pod(),), files=(plain,)),
        Snapshot("t1", pods=(pod(uid="uid-2"),), files=(plain,)),
        [],
        units=[UNIT],
        watched_layers=stack.layers,
        charm_written=stack.charm_written,
    )
    (found,) = [f for f in findings if f.check == "file"]
    assert (found.observed, found.verdict) == (f"survived ({DIGEST[:15]}…)", "deviation")


# --- the live observer's records --------------------------------------------------------


def tools(
    tmp_path: Path,
    *,
    stat: str | None,
    date: str | None = None,
    find: bool = True,
    shell: str = "sh",
) -> str:
    """A PATH with only what the script needs; ``stat`` (and ``date``) replaced, or
    ``stat`` (or ``find``) left out; ``shell`` is what ``sh`` runs."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sh").symlink_to(shutil.which(shell) or pytest.skip(f"no {shell} here"))
    for tool in (*(("find",) if find else ()), "sha256sum", *(() if date else ("date",))):
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    for name, script in (("stat", stat), ("date", date)):
        if script is not None:
            (bin_dir / name).write_text(script)
            (bin_dir / name).chmod(0o755)
    return str(bin_dir)


def live_judgement(out_before: str, out_after: str, started_at: str) -> dict[str, Finding]:
    before = parse_listing(UNIT, "app", out_before)
    after = parse_listing(UNIT, "app", out_after)
    return judged(before, after, started_at=started_at)


def long_ago() -> str:
    moment = datetime.now(timezone.utc) - timedelta(hours=1)
    return moment.replace(microsecond=0).isoformat()


def test_the_live_listing_reads_metadata_and_the_containers_clock(tmp_path: Path) -> None:
    target = tmp_path / "demo.conf"
    target.write_text("greeting=hello\n")
    (record,) = parse_listing(UNIT, "app", run_listing_locally([str(target)]))
    st = target.stat()
    assert (record.size, record.inode) == (st.st_size, st.st_ino)
    assert record.ctime == pytest.approx(st.st_ctime_ns / 1e9, abs=1e-6)
    assert record.mtime == pytest.approx(st.st_mtime_ns / 1e9, abs=1e-6)
    assert record.clock is not None
    assert record.clock >= record.ctime


def test_live_records_judge_a_rewrite_a_survivor_and_a_loss(tmp_path: Path) -> None:
    """As the observer sees a charm rewrite its config (same content: the trap)."""
    root = tmp_path / "container"
    (root / "etc/demo").mkdir(parents=True)
    (root / "srv/data").mkdir(parents=True)
    conf, kept = root / CONF.lstrip("/"), root / STATE.lstrip("/")
    conf.write_text("greeting=hello\n")
    kept.write_text("state\n")
    paths = [str(conf), str(kept)]
    before = run_listing_locally(paths)
    time.sleep(0.02)  # file times must move on (the kernel's clock tick is coarse)
    rewritten = conf.with_suffix(".tmp")
    rewritten.write_text("greeting=hello\n")
    rewritten.replace(conf)  # an atomic rewrite, as many charms do it: a new inode
    after = run_listing_locally(paths)
    # The listing names host paths; the judged ones are the container's.
    as_container = {str(conf): CONF, str(kept): STATE}

    def rename(text: str) -> str:
        for host, inside in as_container.items():
            text = text.replace(host, inside)
        return text

    found = live_judgement(rename(before), rename(after), long_ago())
    assert found[CONF].verdict == "undetermined", found[CONF]
    assert found[CONF].observed.startswith("rewritten")
    assert found[STATE].verdict == "match"
    assert found[STATE].observed.startswith("kept")
    kept.unlink()
    gone = live_judgement(rename(before), rename(run_listing_locally(paths)), long_ago())
    assert (gone[STATE].verdict, gone[STATE].observed[:4]) == ("deviation", "lost")


BUSYBOX_STAT = """#!/bin/sh
# Like busybox: whole seconds only; no %W and no precision (it prints '?').
case "$3" in *%.*|*%W*) echo '?'; exit 0 ;; esac
exec {real} "$@"
"""


BUSYBOX_DATE = """#!/bin/sh
# Like a busybox built without nanoseconds: %N comes out as it went in.
case "$1" in *%N*) echo "$({real} +%s).%N"; exit 0 ;; esac
exec {real} "$@"
"""


def test_a_busybox_stat_and_date_give_whole_seconds_and_no_birth(tmp_path: Path) -> None:
    real_stat, real_date = shutil.which("stat"), shutil.which("date")
    assert real_stat is not None
    assert real_date is not None
    path_env = tools(
        tmp_path,
        stat=BUSYBOX_STAT.format(real=real_stat),
        date=BUSYBOX_DATE.format(real=real_date),
    )
    target = tmp_path / "f"
    target.write_text("x")
    (record,) = parse_listing(UNIT, "app", run_listing_locally([str(target)], path_env))
    assert record.ctime == int(target.stat().st_ctime)
    assert (record.inode, record.birth) == (target.stat().st_ino, None)
    assert record.clock is not None
    assert record.clock == int(record.clock) >= record.ctime  # whole seconds, not "%N"


def test_a_container_without_stat_is_listed_and_judged_undetermined(tmp_path: Path) -> None:
    path_env = tools(tmp_path, stat=None)
    target = tmp_path / "conf"
    target.write_text("x")
    out = run_listing_locally([str(target)], path_env).replace(str(target), CONF)
    (record,) = parse_listing(UNIT, "app", out)
    assert (record.digest.startswith("sha256:"), record.ctime, record.inode) == (True, None, None)
    found = judged([record], [record])[CONF]
    assert found.verdict == "undetermined"
    assert "metadata could not be read" in found.observed


@pytest.mark.parametrize("shell", ["dash", "sh"])
def test_a_container_without_find_says_so_and_its_directory_is_undetermined(
    tmp_path: Path, shell: str
) -> None:
    """Chiseled rocks often lack findutils: the directory must not vanish in silence."""
    path_env = tools(tmp_path, stat=None, find=False, shell=shell)
    data = tmp_path / "data"
    data.mkdir()
    (data / "state").write_text("x")
    missing = tmp_path / "gone"
    out = run_listing_locally([str(data), str(missing)], path_env)
    out = out.replace(str(data), STATE).replace(str(missing), CONF)
    records = {r.path: r for r in parse_listing(UNIT, "app", out)}
    assert set(records) == {STATE, CONF}
    assert records[CONF].digest == ABSENT
    assert records[STATE].digest == UNLISTED
    assert "find" in (records[STATE].reason or "")
    found = judged([records[STATE]], [records[STATE]])[STATE]
    assert found.verdict == "undetermined"
    assert "not listed before the disruption" in found.observed
    assert "find" in found.observed


def test_a_directory_find_could_only_partly_list_is_undetermined(tmp_path: Path) -> None:
    fake_find = tmp_path / "fake-find"
    fake_find.write_text('#!/bin/sh\nprintf "%s\\n" "$1"\necho "find: denied" >&2\nexit 1\n')
    fake_find.chmod(0o755)
    path_env = tools(tmp_path, stat=None, find=False)
    (Path(path_env) / "find").symlink_to(fake_find)
    data = tmp_path / "data"
    data.mkdir()
    out = run_listing_locally([str(data)], path_env).replace(str(data), STATE)
    (record,) = parse_listing(UNIT, "app", out)
    assert (record.digest, record.reason) == (UNLISTED, "find exited 1: listed in part")


# --- the twin's (SIMULATED) records -----------------------------------------------------


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def twin_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, disruption: str, *watch: str
) -> Path:
    args = [
        "run", disruption, "--bundle", str(EXAMPLE / "bundle.yaml"), "--app", "demo",
        "--charm-source", f"demo={EXAMPLE}", "--backend", "twin", "--no-probe",
        "--evidence-dir", str(tmp_path),
    ]  # fmt: skip
    for text in watch:
        args += ["--watch", text]
    code, out, err = repro(capsys, *args)
    assert code == 0, err
    return Path(out.splitlines()[-1])


def test_twin_example_charm_rewrite_is_undetermined_everywhere_a_person_reads(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = twin_run(capsys, tmp_path, "pod-delete", f"demo:app:{CONF}", "demo:app:/srv/data")
    evidence = read_bundle(folder)
    files = {f.subject: f for f in evidence.findings if f.check == "file"}
    conf = files[f"{UNIT} app:{CONF}"]
    assert (conf.expected, conf.verdict) == ("lost (container-root)", "undetermined")
    assert conf.observed.startswith("rewritten after the snapshot before the disruption")
    data = files[f"{UNIT} app:/srv/data"]
    assert (data.expected, data.verdict) == ("survives (storage)", "match")
    assert data.observed.startswith("kept")
    # The twin's records carry (simulated) metadata on the twin's clock.
    assert evidence.after is not None
    (after,) = [f for f in evidence.after.files if f.path == CONF]
    assert None not in (after.inode, after.ctime, after.clock)
    report = (folder / "report.md").read_text("utf-8")
    assert "SIMULATED" in report
    assert "## Survival undetermined" in report
    assert "`--watch`: written by the charm, judged on its content and metadata" in " ".join(
        report.split()
    )
    assert re.search(
        r"\| Verdicts \| \d+ match, 0 deviation, \d+ known-bug, 1 undetermined \|", report
    )
    layer_row = next(line for line in report.splitlines() if line.startswith("| container-root"))
    assert "| undetermined |" in layer_row
    assert "kept" not in layer_row
    raw_bundle = evidence.bundle
    assert raw_bundle is not None
    assert [w[4] for w in raw_bundle.watched] == ["judged on content and metadata"] * 2
    _, table, _ = repro(capsys, "matrix", str(folder))
    assert f"survival undetermined app:{CONF}" in table
    assert re.search(r"kept 1/\d+", table), table  # the storage folder only


def test_twin_image_directory_is_undetermined_after_a_container_restart(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # /usr comes from the image and nobody writes it: identical in the new container root.
    folder = twin_run(capsys, tmp_path, "container-restart", "demo:app:/usr")
    (found,) = [f for f in read_bundle(folder).findings if f.check == "file"]
    assert found.verdict == "undetermined"
    assert "as the image ships it" in found.observed


def test_twin_watched_file_records_are_the_same_every_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Simulated metadata comes from the twin's clock and counters, not the host's files."""
    runs = []
    for attempt in ("one", "two"):
        folder = twin_run(
            capsys, tmp_path / attempt, "container-restart", f"demo:app:{CONF}", "demo:app:/etc"
        )
        evidence = read_bundle(folder)
        assert evidence.before is not None
        assert evidence.after is not None
        files = (evidence.before.files, evidence.after.files)
        runs.append((files, [f for f in evidence.findings if f.check == "file"]))
    assert runs[0] == runs[1]


# --- a listing that failed ----------------------------------------------------------------

NO_SH = (
    'OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": '
    "executable file not found in $PATH: unknown"
)


@pytest.mark.parametrize("failing", ["before", "after"])
def test_a_listing_that_failed_is_undetermined_with_its_reason_never_absent_or_a_deviation(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failing: str,
) -> None:
    from harness.common.errors import HarnessError
    from harness.twin.cluster import TwinCluster

    real = TwinCluster.list_files
    calls: list[int] = []

    async def list_files(
        self: TwinCluster, pod: str, container: str, paths: Sequence[str]
    ) -> tuple[FileState, ...]:
        calls.append(1)
        if (len(calls) == 1) == (failing == "before"):
            raise HarnessError(f"listing in {pod}/{container} failed (exit -1): {NO_SH}")
        return await real(self, pod, container, paths)

    monkeypatch.setattr(TwinCluster, "list_files", list_files)
    folder = twin_run(capsys, tmp_path, "pod-delete", "demo:app:/srv/data", "demo:app:/etc/demo")
    assert len(calls) == 2  # one listing per snapshot
    evidence = read_bundle(folder)
    files = [f for f in evidence.findings if f.check == "file"]
    assert {f.subject for f in files} == {f"{UNIT} app:/srv/data", f"{UNIT} app:/etc/demo"}
    for found in files:
        assert found.verdict == "undetermined", found
        assert f"not listed {failing} the disruption" in found.observed
        assert "executable file not found" in found.observed
    snapshot = evidence.before if failing == "before" else evidence.after
    assert snapshot is not None
    assert {(f.path, f.digest) for f in snapshot.files} == {
        ("/srv/data", UNLISTED),
        ("/etc/demo", UNLISTED),
    }
    assert all(NO_SH in (f.reason or "") for f in snapshot.files)
    report = (folder / "report.md").read_text("utf-8")
    assert "executable file not found" in report
    assert "absent before" not in report
    assert "not observed after" not in report
    # The files under a folder that could not be listed are not called absent either.
    rows = [line for line in report.splitlines() if line.startswith(f"| {UNIT} | app | /")]
    assert rows
    assert all("| absent |" not in row and "| absent" not in row for row in rows), rows
    _, table, _ = repro(capsys, "matrix", str(folder))
    assert "; lost app:" not in table, table
    assert "survival undetermined" in table, table


def test_the_files_table_never_calls_two_failed_listings_unchanged(tmp_path: Path) -> None:
    from harness.evidence.document import to_markdown
    from harness.evidence.report import _files_section

    failed = FileState(UNIT, "app", STATE, UNLISTED, reason="no find in the container")
    blocks = _files_section(Snapshot("t0", files=(failed,)), Snapshot("t1", files=(failed,)))
    lines = to_markdown(blocks).splitlines()
    assert "Paths: 1 changed, 0 unchanged." in lines
    assert any("unlisted (no find in the container)" in line for line in lines)
