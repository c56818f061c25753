"""timeline.svg: parses as XML, one lane per unit, one band per step, SIMULATED on the twin."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace

from evidence_samples import evidence, hooks, pod

from harness.common.observations import HookRecord, Step
from harness.evidence.svg import render_svg, render_timeline_svg

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def lanes(root: ET.Element) -> list[str]:
    return [g.attrib["data-unit"] for g in root.iterfind(".//svg:g[@class='lane']", NS)]


def test_svg_parses_and_has_exactly_one_lane_per_unit() -> None:
    value = evidence()
    root = parse(render_svg(value))

    units = {h.unit for h in value.hooks}
    assert sorted(lanes(root)) == sorted(units)
    assert len(lanes(root)) == len(set(lanes(root)))


def test_a_unit_seen_only_in_pods_still_gets_a_lane() -> None:
    value = evidence()
    assert value.after is not None
    after = replace(value.after, pods=(*value.after.pods, pod("probe-peer/0", "eeee", 0)))

    root = parse(render_svg(replace(value, after=after)))

    assert "probe-peer/0" in lanes(root)
    assert len(lanes(root)) == 3


def test_each_step_is_a_named_shaded_band() -> None:
    value = evidence()
    root = parse(render_svg(value))

    bands = root.findall(".//svg:rect[@class='step']", NS)
    assert [b.attrib["data-step"] for b in bands] == [s.name for s in value.steps]
    assert all(float(b.attrib["fill-opacity"]) < 0.5 for b in bands)
    labels = [t.text for t in root.findall(".//svg:text[@class='step-label']", NS)]
    assert labels == [s.name for s in value.steps]


def test_each_hook_is_a_labelled_mark_in_its_lane_and_failed_is_red() -> None:
    root = parse(render_svg(evidence()))

    router = next(
        g
        for g in root.iterfind(".//svg:g[@class='lane']", NS)
        if g.attrib["data-unit"].startswith("mysql")
    )
    marks = router.findall("svg:g[@class='hook']", NS)
    assert [m.find("svg:text", NS).text for m in marks] == [  # type: ignore[union-attr]
        "stop",
        "upgrade-charm",
        "config-changed",
        "start (failed)",
    ]
    failed = marks[-1].find("svg:circle", NS)
    assert failed is not None
    assert failed.attrib["fill"] == "#c62828"
    assert marks[0].find("svg:circle", NS).attrib["fill"] != "#c62828"  # type: ignore[union-attr]


def test_marks_follow_time_order_not_input_order() -> None:
    records = [h for h in hooks() if h.unit == "probe/0"]
    root = parse(render_timeline_svg(list(reversed(records)), title="t"))

    marks = root.findall(".//svg:g[@class='hook']", NS)
    placed = sorted(marks, key=lambda m: float(m.find("svg:circle", NS).attrib["cx"]))  # type: ignore[union-attr]
    assert [m.find("svg:text", NS).text for m in placed] == [  # type: ignore[union-attr]
        "stop",
        "upgrade-charm",
        "config-changed",
        "start",
    ]


def test_twin_svg_says_simulated_and_live_does_not() -> None:
    twin = parse(render_svg(evidence(backend="twin")))
    live_text = render_svg(evidence(backend="live"))

    title = twin.find("svg:title", NS)
    assert title is not None
    assert title.text is not None
    assert "SIMULATED" in title.text
    assert twin.find(".//svg:text[@class='watermark']", NS) is not None
    assert "SIMULATED" not in live_text


def test_names_with_markup_characters_are_escaped() -> None:
    record = HookRecord(
        'a<b>&"c/0', "10:00:00", "hook", "debug-log", "x<y>-relation-changed", "ok"
    )
    root = parse(
        render_timeline_svg([record], [Step("s&<t>", "10:00:00", "10:00:01")], title="<t>")
    )

    assert lanes(root) == ['a<b>&"c/0']


def test_undated_debug_log_times_and_reboots_render() -> None:
    records = [
        HookRecord("am/0", "08:36:50", "hook", "debug-log", "stop", "ok"),
        HookRecord("am/0", "08:37:25", "reboot", "debug-log"),
        HookRecord("am/0", "08:37:26", "hook", "debug-log", "start", "terminated"),
        HookRecord("am/0", "not a time", "hook", "debug-log", "x", "skipped"),
    ]
    root = parse(render_timeline_svg(records, title="log"))

    assert lanes(root) == ["am/0"]
    assert len(root.findall(".//svg:g[@class='hook']", NS)) == 4
    assert root.find(".//svg:g[@data-outcome='reboot']/svg:path", NS) is not None


def test_empty_timeline_is_still_a_document() -> None:
    root = parse(render_timeline_svg([], title="nothing"))

    assert lanes(root) == []


def test_each_step_has_its_own_header_row() -> None:
    value = evidence()
    root = parse(render_svg(value))

    bars = root.findall(".//svg:rect[@class='step-bar']", NS)
    assert len(bars) == len(value.steps)
    assert len({b.attrib["y"] for b in bars}) == len(value.steps)  # no two share a row


def test_a_second_source_is_drawn_hollow_and_unlabelled_in_the_same_lane() -> None:
    records = [
        HookRecord("probe/0", "10:00:01", "hook", "debug-log", "stop", "ok"),
        HookRecord("probe/0", "10:00:02", "hook", "debug-log", "start", "ok"),
        HookRecord("probe/0", "10:00:01.5", "hook", "journal", "stop", None),
        HookRecord("probe/0", "10:00:02.5", "hook", "journal", "start", None),
    ]
    root = parse(render_timeline_svg(records, title="t"))

    assert lanes(root) == ["probe/0"]
    marks = root.findall(".//svg:g[@class='hook']", NS)
    by_source = {m.attrib["data-source"]: [] for m in marks}
    for m in marks:
        by_source[m.attrib["data-source"]].append(m)
    assert [m.find("svg:text", NS) is not None for m in by_source["debug-log"]] == [True, True]
    assert [m.find("svg:text", NS) for m in by_source["journal"]] == [None, None]
    hollow = [m.find("svg:circle", NS) for m in by_source["journal"]]
    assert all(c is not None and c.attrib["fill"] == "none" for c in hollow)
    xs = [float(m.find("svg:circle", NS).attrib["cx"]) for m in marks]  # type: ignore[union-attr]
    # Journal marks fall between the debug-log marks they follow in time.
    assert xs[0] < xs[2] < xs[1] < xs[3]


def test_a_unit_with_journal_records_only_gets_labelled_marks() -> None:
    records = [HookRecord("probe/0", "10:00:01", "hook", "journal", "stop", None)]
    root = parse(render_timeline_svg(records, title="t"))

    mark = root.find(".//svg:g[@class='hook']", NS)
    assert mark is not None
    text = mark.find("svg:text", NS)
    assert text is not None
    assert text.text == "stop"


def test_without_steps_the_axis_shows_the_hooks_own_times() -> None:
    records = [
        HookRecord("am/0", "08:36:30", "hook", "debug-log", "install", "ok"),
        HookRecord("am/0", "08:40:00", "hook", "debug-log", "start", "ok"),
    ]
    root = parse(render_timeline_svg(records, title="log"))

    ticks = [t.text for t in root.findall(".//svg:g[@class='axis']/svg:text", NS)]
    assert ticks == ["08:36:30", "08:40:00"]
