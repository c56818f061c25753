"""``repro reference``: the site says what the catalogue says, cites every claim, counts only
finished live runs as observed, and is written whole, the same bytes each time."""

from __future__ import annotations

import html
import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest
from evidence_samples import evidence

from harness.catalogue import load
from harness.cli import main as cli
from harness.common.versions import JujuVersion
from harness.evidence.write import write_bundle
from harness.reference.model import matrix
from harness.reference.observed import gather
from harness.reference.seeds import SEEDS
from harness.reference.sequence import for_unit
from harness.reference.site import site_files
from harness.reference.write import write_site

SEED_DATA = Path(__file__).resolve().parent.parent / "data" / "seeds"
NOT_OBSERVED = "From source, not yet observed"


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def site() -> dict[str, str]:
    return {path: data.decode() for path, data in site_files(load()).items()}


def text_of(page: str) -> str:
    """What a reader reads: tags out, entities decoded, white space collapsed."""
    inline = re.sub(r"</?(?:a|code|span|small|strong|em|i)\b[^>]*>", "", page)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", inline)).split())


# --- what the pages say ------------------------------------------------------------------


def test_the_matrix_has_every_disruption_and_columns_from_29_on_without_gaps() -> None:
    catalogue = load()
    overview = matrix(catalogue)

    assert [row.disruption for row in overview.rows] == list(catalogue.disruptions())
    columns = overview.columns
    assert columns[0].low == JujuVersion.parse("2.9")
    assert columns[-1].high is None
    assert all(a.high == b.low for a, b in itertools.pairwise(columns))
    for row in overview.rows:
        for cell in row.cells:
            if cell.entry is None:  # its kind of charm is gone on these versions
                assert cell.gone == catalogue.gone_on(row.disruption, cell.span.low) is not None
                continue
            entry = catalogue.expect(row.disruption, cell.span.low)
            leader = [h.name for h in for_unit(cell.hooks, leader=True)]
            other = [h.name for h in for_unit(cell.hooks, leader=False)]
            assert leader == list(entry.required_hooks(leader=True))
            assert other == list(entry.required_hooks(leader=False))


def test_neighbouring_columns_differ_somewhere() -> None:
    overview = matrix(load())

    def column(index: int) -> list[object]:
        found: list[object] = []
        for row in overview.rows:
            cell = row.cells[index]
            confidence = None if cell.entry is None else cell.entry.confidence
            found.append((cell.hooks, cell.survival, confidence, cell.gone))
        return found

    for index in range(len(overview.columns) - 1):
        assert column(index) != column(index + 1), overview.columns[index]


def test_the_index_shows_the_matrix_with_a_header_per_version_range(site: dict[str, str]) -> None:
    index = site["index.html"]
    overview = matrix(load())
    headers = re.findall(r'<th scope="col">Juju ([^<]+)</th>', index)
    assert headers == [span.label for span in overview.columns]
    for name in load().disruptions():
        assert f'<a href="{name}.html">{name}</a>' in index
    assert "pod-delete" in text_of(index)
    pod_delete = index.split('<a href="pod-delete.html">', 1)[1].split("</tr>", 1)[0]
    assert "<li><code>stop</code></li><li><code>upgrade-charm</code></li>" in pod_delete
    assert NOT_OBSERVED in text_of(index)


def test_every_claim_of_every_entry_is_on_its_disruptions_page_with_its_link(
    site: dict[str, str],
) -> None:
    catalogue = load()
    for entry in catalogue.entries:
        page = site[f"{entry.disruption}.html"]
        for source in entry.sources:
            assert f'href="{html.escape(source.url)}"' in page, (entry.label, source.url)
            assert html.escape(source.claim) in page, (entry.label, source.claim)
            if source.unverified:
                assert html.escape(source.unverified) in page


def test_low_confidence_ranges_say_so(site: dict[str, str]) -> None:
    # Juju 4.0: each entry is its 3.6 expectation, not re-read (checked_in_source false).
    assert load().expect("pod-delete", "4.0").confidence == "low"
    page = text_of(site["pod-delete.html"])
    assert "Low confidence: inferred, not confirmed" in page
    assert "No hook sequence, file or relation claim was re-read in Juju 4.0" in page


def test_a_disruption_page_draws_each_group_of_ranges_and_names_its_branches(
    site: dict[str, str],
) -> None:
    page = site["pod-delete.html"]
    pictures = re.findall(r'<img src="(img/pod-delete-[^"]+\.svg)" alt="([^"]+)"', page)
    assert pictures, "no timeline picture"
    for path, alt in pictures:
        assert path in site
        assert alt.startswith("Timeline of the hooks: ")
    assert "Branch: interrupted-stop" in text_of(page)
    assert "leader-settings-changed (non-leader)" in text_of(page)
    assert "Juju bug 2021891: Inconsistent events on pod restart" in text_of(page)
    survives = text_of(page)
    for what in ("container root", "charm directory", "storage", "relation data", "unit identity"):
        assert what in survives


def test_each_picture_has_a_title_and_a_description_and_no_made_up_clock(
    site: dict[str, str],
) -> None:
    pictures = {path: svg for path, svg in site.items() if path.endswith(".svg")}
    assert pictures
    for path, svg in pictures.items():
        assert re.search(r'<svg [^>]*role="img"[^>]*aria-labelledby="title desc"', svg), path
        assert re.search(r'<title id="title">[^<]+</title>\s*<desc id="desc">[^<]+</desc>', svg)
        assert not re.search(r">\d\d:\d\d:\d\d<", svg), f"{path} shows clock ticks"
        assert "debug-log" not in svg, "a prediction is not a run's record"


def test_the_seed_pages_quote_the_reports_verbatim(site: dict[str, str]) -> None:
    for seed in SEEDS:
        thread = (SEED_DATA / seed.seed_file).read_text(encoding="utf-8")
        header, _, body = thread.partition("\n\n")
        assert all(line.startswith("# ") for line in header.splitlines())
        assert seed.url in header, "the copy names its source"
        page = site[seed.page]
        for quote in seed.quotes:
            assert quote.text in body, f"not verbatim: {quote.text[:60]!r}"
            assert f"[{quote.speaker}]" in body
            assert f'<blockquote cite="{seed.url}">{html.escape(quote.text)}</blockquote>' in page
        assert f'href="{seed.url}"' in page


def test_the_seed_pages_say_what_the_catalogue_says_now(site: dict[str, str]) -> None:
    lp2021891 = text_of(site["bug-2021891.html"])
    assert "Not fixed" in lp2021891
    assert "On Juju 2.9.43, as reported, the catalogue expects:" in lp2021891
    assert "The reporter expected stop → config-changed → start" in lp2021891
    lp1830745 = text_of(site["bug-1830745.html"])
    assert "Fixed in Juju 2.6.4" in lp1830745
    assert "The reporter expected relation data kept; Juju does relation data kept" in lp1830745


# --- accessible, plain, phone-sized ------------------------------------------------------


class _Outline(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.headings: list[int] = []
        self.problems: list[str] = []
        self.lang: str | None = None
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.append(str(found["id"]))
        if tag == "html":
            self.lang = found.get("lang")
        if re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))
        if tag == "th" and found.get("scope") not in ("col", "row", "rowgroup"):
            self.problems.append("a th without scope")
        if tag == "img" and not found.get("alt"):
            self.problems.append(f"an img without alt: {found.get('src')}")
        if tag == "script":
            self.problems.append("a script")
        if tag == "a" and not found.get("href"):
            self.problems.append("a link without href")


def test_every_page_is_plain_accessible_html(site: dict[str, str]) -> None:
    for path, page in site.items():
        if not path.endswith(".html"):
            continue
        outline = _Outline()
        outline.feed(page)
        assert page.startswith("<!DOCTYPE html>")
        assert outline.lang == "en", path
        assert outline.problems == [], (path, outline.problems)
        assert outline.headings[0] == 1, path
        assert outline.headings.count(1) == 1, path
        for before, after in itertools.pairwise(outline.headings):
            assert after <= before + 1, f"{path}: h{before} then h{after}"
        assert len(outline.ids) == len(set(outline.ids)), f"{path}: repeated ids"
        assert 'name="viewport"' in page
        before_each_table = page.split("<table")[:-1]
        assert all(chunk.endswith('tabindex="0">') for chunk in before_each_table), (
            f"{path}: a table outside its scrolling box"
        )


def test_link_text_names_where_it_goes(site: dict[str, str]) -> None:
    for path, page in site.items():
        for text in re.findall(r"<a [^>]*>([^<]*)</a>", page):
            assert text.strip().lower() not in ("here", "link", "source", "click here", ""), path


# --- observed or not ---------------------------------------------------------------------


def _bundle(tmp_path: Path, name: str, **changes: object) -> Path:
    value = evidence(backend="live", juju="3.6.12", deviation=False)
    versions = replace(value.versions, microk8s="MicroK8s v1.34.2 revision 8200")
    value = replace(value, versions=versions)
    return write_bundle(replace(value, **changes), tmp_path / "evidence" / name)  # type: ignore[arg-type]


def test_a_finished_live_run_makes_its_cell_observed_with_where_and_when(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _bundle(tmp_path, "live")
    out = tmp_path / "site"

    code, stdout, err = repro(
        capsys, "reference", "--out", str(out), "--evidence", str(tmp_path / "evidence")
    )

    assert code == 0, err
    assert "1 live run folded in" in stdout
    index = (out / "index.html").read_text()
    says = "Observed on Juju 3.6.12, MicroK8s 1.34 on 2026-01-01"
    assert says in index
    link = re.search(rf'<a href="(evidence-[^"]+\.html)">{says}</a>', index)
    assert link, "the cell links its evidence"
    page = (out / link.group(1)).read_text()
    assert "lp2021891-pod-delete" in page
    folder = re.search(r'href="(evidence/[^"]+)/bundle\.json"', page)
    assert folder
    assert (out / folder.group(1) / "bundle.json").is_file()
    assert (out / folder.group(1) / "timeline.svg").is_file()
    # Only the columns the run's Juju falls in are observed.
    assert index.count(says) == 1


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"backend": "twin", "simulated": True}, "simulated"),
        ({"interrupted": True, "error": "interrupted during settle"}, "did not finish"),
        ({"error": "a unit stayed in error"}, "did not finish"),
        ({"scenario": "rehearsal-pod-delete"}, "rehearsal"),
    ],
)
def test_the_twin_a_rehearsal_and_unfinished_runs_never_count_as_observed(
    tmp_path: Path, changes: dict[str, object], reason: str
) -> None:
    _bundle(tmp_path, "b", **changes)

    gathered = gather([tmp_path / "evidence"])

    assert gathered.runs == ()
    (aside,) = gathered.set_aside
    assert reason in aside.reason


def test_a_twin_bundle_leaves_every_cell_from_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _bundle(tmp_path, "b", backend="twin", simulated=True)
    out = tmp_path / "site"

    code, stdout, err = repro(
        capsys, "reference", "--out", str(out), "--evidence", str(tmp_path / "evidence")
    )

    assert code == 0, err
    assert "0 live runs folded in" in stdout
    assert "not counted as observed" in err
    assert "simulated" in err
    assert not list(out.glob("evidence-*.html"))
    assert "Observed on Juju 3.6.12" not in (out / "index.html").read_text()


def test_a_bundle_marked_as_a_rehearsal_never_counts(tmp_path: Path) -> None:
    folder = _bundle(tmp_path, "b")
    bundle = folder / "bundle.json"
    bundle.write_text(
        bundle.read_text().replace('"backend": "live"', '"backend": "live", "rehearsal": true')
    )
    gathered = gather([tmp_path / "evidence"])
    assert gathered.runs == ()
    assert "rehearsal" in gathered.set_aside[0].reason


# --- written whole, the same bytes, bad input in one line --------------------------------


def test_the_same_catalogue_gives_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _bundle(tmp_path, "live")
    one, two = tmp_path / "one", tmp_path / "elsewhere" / "two"
    for out in (one, two):
        assert (
            repro(
                capsys, "reference", "--out", str(out), "--evidence", str(tmp_path / "evidence")
            )[0]
            == 0
        )

    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    for relative in files:
        assert (one / relative).read_bytes() == (two / relative).read_bytes(), relative
        assert str(tmp_path) not in (one / relative).read_text(errors="replace")


def test_a_previous_site_is_replaced_whole_and_nothing_is_left_beside_it(
    tmp_path: Path, site: dict[str, str]
) -> None:
    out = tmp_path / "site"
    files = {"index.html": site["index.html"].encode(), "img/a.svg": b"<svg/>"}
    write_site(out, files)
    (out / "stale.html").write_text("old")

    write_site(out, files)

    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == [
        "img",
        "img/a.svg",
        "index.html",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert os.stat(out).st_mode & 0o755 == 0o755
    assert os.stat(out / "img").st_mode & 0o755 == 0o755


def _one_line(code: int, err: str, *words: str) -> None:
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    for word in words:
        assert word in err


def test_an_out_that_is_a_file_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "site"
    target.write_text("mine")

    code, _, err = repro(capsys, "reference", "--out", str(target))

    _one_line(code, err, "is a file", "pass a folder path")
    assert target.read_text() == "mine"


def test_a_folder_of_other_files_is_never_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("mine")

    code, _, err = repro(capsys, "reference", "--out", str(tmp_path))

    _one_line(code, err, "not a reference site", "pass a new or empty folder")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_an_out_that_cannot_be_written_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("")

    code, _, err = repro(capsys, "reference", "--out", str(tmp_path / "file" / "site"))

    _one_line(code, err, "cannot write in", "choose a folder you can write")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere: no read-only folder here")
def test_a_read_only_parent_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    try:
        code, _, err = repro(capsys, "reference", "--out", str(locked / "site"))
    finally:
        locked.chmod(0o755)
    _one_line(code, err, "cannot write in", "choose a folder you can write")


def test_evidence_that_is_not_there_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = repro(
        capsys, "reference", "--out", str(tmp_path / "s"), "--evidence", str(tmp_path / "nope")
    )

    _one_line(code, err, "does not exist", "pass folders that hold live evidence")
    assert not (tmp_path / "s").exists()


def test_an_empty_evidence_folder_is_no_live_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "none").mkdir()
    code, out, _ = repro(
        capsys, "reference", "--out", str(tmp_path / "s"), "--evidence", str(tmp_path / "none")
    )
    assert code == 0
    assert "0 live runs folded in" in out
    assert out.splitlines()[-1] == str(tmp_path / "s")


def iter_pages(site: dict[str, str]) -> Iterator[tuple[str, str]]:
    yield from ((p, t) for p, t in site.items() if p.endswith(".html"))


def test_the_site_is_small(site: dict[str, str]) -> None:
    total = sum(len(text.encode()) for text in site.values())
    # About 50 KiB a disruption (its page, its pictures, its row and cells on the index):
    # room for 20 of them. 15 are catalogued (issue 27 added 5 catalogued-only ones).
    assert total < 20 * 50 * 1024, f"{total // 1024} KiB"
    assert all(len(text.encode()) < 80 * 1024 for _, text in iter_pages(site))
