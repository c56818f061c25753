"""timeline.svg says what its time axis is: to scale, cut by marked breaks, or not to scale.

Also: the legend fits the picture, a lane without hooks is short, and the title names the
disruption once, with the application and the bundle.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from evidence_samples import evidence

from harness.common.observations import HookRecord, Step
from harness.evidence.report import title
from harness.evidence.svg import render_svg, render_timeline_svg
from harness.evidence.user_bundle import UserBundle

NS = {"svg": "http://www.w3.org/2000/svg"}
CHAR = 6.5  # px per character at font-size 11, generous for sans-serif


def hook(at: str, name: str, unit: str = "app/0") -> HookRecord:
    return HookRecord(unit, f"2026-01-01T10:{at}+00:00", "hook", "debug-log", name, "ok")


def xs(root: ET.Element) -> list[float]:
    """The x of each hook mark, in the order drawn."""
    circles = [m.find("svg:circle", NS) for m in root.iterfind(".//svg:g[@class='hook']", NS)]
    return [float(c.attrib["cx"]) for c in circles if c is not None]


def caption(root: ET.Element) -> str:
    texts = root.findall(".//svg:g[@class='time-scale']//svg:text", NS)
    return " ".join(t.text or "" for t in texts)


def test_equal_times_take_equal_room_and_a_long_wait_is_a_marked_break() -> None:
    records = [
        hook("00:00", "stop"),
        hook("00:01", "upgrade-charm"),
        hook("00:02", "config-changed"),
        hook("00:07", "start"),  # 5 s later
        hook("05:07", "update-status"),  # 5 minutes later
    ]
    root = ET.fromstring(render_timeline_svg(records, title="t"))

    x = xs(root)
    one_second = x[1] - x[0]
    assert x[2] - x[1] == pytest.approx(one_second, abs=0.2)  # drawn to 0.1 px
    assert x[3] - x[2] == pytest.approx(5 * one_second, abs=0.2)  # to scale: 5 s, 5 times 1 s
    assert x[4] - x[3] < 300 * one_second / 4  # the 5-minute wait is cut...
    breaks = root.findall(".//svg:g[@class='break']", NS)
    assert len(breaks) == 1  # ...and the cut is marked, with the time it skips
    skipped = " ".join(t.text or "" for t in breaks[0].iterfind(".//svg:text", NS))
    assert "5 min" in skipped
    assert float(breaks[0].attrib["data-seconds"]) == pytest.approx(300)
    assert "to scale" in caption(root)
    assert "break" in caption(root)


def test_hooks_too_close_to_draw_to_scale_are_marked_not_to_scale() -> None:
    records = [
        hook("00:00.000", "stop"),
        hook("00:00.010", "upgrade-charm"),  # 10 ms later: spread apart to be readable
        hook("00:00.020", "config-changed"),
        *(hook(f"00:0{n}.000", f"hook-{n}") for n in range(1, 6)),  # then one a second
    ]
    root = ET.fromstring(render_timeline_svg(records, title="t"))

    spread = root.findall(".//svg:line[@class='not-to-scale']", NS)
    assert spread  # the stretch of axis that is not to scale is drawn differently
    assert "not to scale" in caption(root)
    x = xs(root)
    assert x[5] - x[4] == pytest.approx(x[4] - x[3], abs=0.2)  # a second and a second
    assert x[6] - x[5] == pytest.approx(x[4] - x[3], abs=0.2)


def text_width(element: ET.Element) -> float:
    size = float(element.attrib.get("font-size", "11"))
    return len(element.text or "") * CHAR * size / 11


def test_the_legend_and_every_label_fit_inside_the_picture() -> None:
    value = evidence()
    records = (*value.hooks, replace(value.hooks[0], source="journal"))
    root = ET.fromstring(render_svg(replace(value, hooks=records)))

    width = float(root.attrib["width"])
    legend = root.findall(".//svg:g[@class='legend']/svg:text", NS)
    assert legend
    for text in legend:
        assert float(text.attrib["x"]) + text_width(text) <= width, text.text
    for text in root.findall(".//svg:g[@class='time-scale']//svg:text", NS):
        assert float(text.attrib["x"]) + text_width(text) <= width, text.text
    heading = root.find("svg:text", NS)
    assert heading is not None
    assert float(heading.attrib["x"]) + text_width(heading) <= width


def test_a_lane_without_hooks_is_short() -> None:
    records = [hook("00:00", "stop", "app/0"), hook("00:01", "start", "app/0")]
    root = ET.fromstring(render_timeline_svg(records, title="t", units=("app/0", "peer/0")))

    heights = {
        g.attrib["data-unit"]: float(g.find("svg:rect", NS).attrib["height"])  # type: ignore[union-attr]
        for g in root.iterfind(".//svg:g[@class='lane']", NS)
    }
    assert heights["peer/0"] <= 40
    assert heights["app/0"] > heights["peer/0"]
    empty = root.find(".//svg:g[@data-unit='peer/0']", NS)
    assert empty is not None
    assert any("no hooks" in (t.text or "") for t in empty.iterfind("svg:text", NS))


def bundle(app: str = "my-db") -> UserBundle:
    return UserBundle(
        "secretdemo", "bundle.yaml", "aa42ee319967" + "0" * 52, "", app, True, (), "juju deploy"
    )


def test_the_title_names_the_disruption_once_with_the_app_and_the_bundle() -> None:
    on_bundle = replace(
        evidence(backend="twin"), scenario="pod-delete", bundle=bundle(), disrupted=("my-db",)
    )
    named = replace(evidence(backend="live"), disrupted=("mysql-router-k8s", "probe"))

    assert title(on_bundle) == (
        "SIMULATED reproduction: pod-delete of my-db, bundle secretdemo (sha256 aa42ee319967)"
    )
    assert title(named) == (
        "Reproduction: lp2021891-pod-delete (pod-delete of mysql-router-k8s, probe)"
    )
    svg = ET.fromstring(render_svg(on_bundle))
    heading = svg.find("svg:text", NS)
    assert heading is not None
    assert heading.text == title(on_bundle)
    assert not re.search(r"pod-delete \(pod-delete", heading.text or "")
    assert "SIMULATED" in (heading.text or "")


def test_a_steps_only_run_still_says_what_its_axis_is() -> None:
    steps = (
        Step("snapshot before", "2026-01-01T10:00:00+00:00", "2026-01-01T10:00:02+00:00"),
        Step("settle", "2026-01-01T10:00:02+00:00", "2026-01-01T10:04:00+00:00"),
    )
    root = ET.fromstring(render_timeline_svg([], steps, title="t"))

    assert caption(root)


def test_the_applications_a_disruption_reaches_are_recorded() -> None:
    from harness.run.reproduce import disrupted_apps
    from harness.scenario.scenarios import scenario
    from harness.scenario.stack import default_stack

    stack = default_stack("./probe.charm")

    assert disrupted_apps(scenario("lp2021891-pod-delete"), stack) == ("mysql-router-k8s", "probe")
    # A node restart takes every unit on the node down, not only the scenario's targets.
    assert disrupted_apps(scenario("lp2021891-node-restart"), stack) == stack.app_names
