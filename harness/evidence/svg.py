"""timeline.svg: one lane per unit, hooks as labelled marks in time order, steps as bands.

The horizontal axis is ordinal with gaps: every distinct time gets a column, and the space
between columns grows with the logarithm of the time between them, so a burst of hooks stays
readable next to a five-minute wait. Written with xml.etree, which does the escaping.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.evidence.bundle import Evidence
from harness.evidence.times import parse_instant, seconds_of_day
from harness.observations import HookRecord, Step

SVG_NS = "http://www.w3.org/2000/svg"

OUTCOME_COLOURS = {
    "ok": "#2e7d32",
    "failed": "#c62828",
    "terminated": "#ef6c00",
    "skipped": "#9e9e9e",
}
OTHER_KIND_COLOUR = "#6a1b9a"  # reboot, agent-start, ...
BAND_COLOURS = ("#1565c0", "#00838f", "#5d4037", "#ad1457")

LEFT = 190  # unit labels
TOP = 70  # title and step names
LANE_HEIGHT = 150
COLUMN = 22  # per hook at one time in one lane
LABEL_CHARS = 30
BOTTOM = 110  # time ticks and legend


@dataclass(frozen=True)
class _Event:
    order: float  # position on the time axis (seconds, or the last known one)
    hook: int = -1  # index into the hooks
    step: int = -1  # index into the steps
    edge: str = ""  # "start" | "end" for steps


def _time_keys(hooks: Sequence[HookRecord], steps: Sequence[Step]) -> list[float | None]:
    """Seconds for every hook then every step edge; dated when all are dated."""
    texts = [h.time for h in hooks] + [t for s in steps for t in (s.start, s.end)]
    instants = [parse_instant(t) for t in texts]
    if instants and all(i is not None for i in instants):
        return [i.timestamp() if i is not None else None for i in instants]
    # Undated debug-log times (HH:MM:SS, local zone): compare within one day.
    return [seconds_of_day(t) for t in texts]


def _events(hooks: Sequence[HookRecord], steps: Sequence[Step]) -> list[_Event]:
    keys = _time_keys(hooks, steps)
    events: list[_Event] = []
    last = 0.0
    for index in range(len(hooks)):
        key = keys[index]
        # A time we cannot read keeps the record where its source put it.
        last = key if key is not None else last
        events.append(_Event(last, hook=index))
    offset = len(hooks)
    for index in range(len(steps)):
        start, end = keys[offset + 2 * index], keys[offset + 2 * index + 1]
        first = start if start is not None else last
        events.append(_Event(first, step=index, edge="start"))
        events.append(_Event(end if end is not None else first, step=index, edge="end"))
    # Stable: equal times keep their source order.
    return sorted(events, key=lambda e: e.order)


def _label(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "\u2026"


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(
        parent, tag, {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
    )
    if text is not None:
        element.text = text
    return element


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def render_timeline_svg(
    hooks: Iterable[HookRecord],
    steps: Sequence[Step] = (),
    *,
    title: str,
    simulated: bool = False,
    units: Sequence[str] = (),
) -> str:
    """An SVG document: lanes for ``units`` (plus any unit in ``hooks``), in that order."""
    records = list(hooks)
    lanes = list(dict.fromkeys([*units, *sorted({h.unit for h in records})]))
    lane_of = {unit: index for index, unit in enumerate(lanes)}
    events = _events(records, steps)

    # Columns: one x per distinct time, widened for several hooks of one lane at that time.
    x_of_hook: dict[int, float] = {}
    x_of_edge: dict[tuple[int, str], float] = {}
    x = float(LEFT + 20)
    previous: float | None = None
    group: list[_Event] = []

    def place(batch: list[_Event], at: float) -> float:
        per_lane: dict[str, int] = {}
        width = 0
        for event in batch:
            if event.hook >= 0:
                unit = records[event.hook].unit
                slot = per_lane.get(unit, 0)
                per_lane[unit] = slot + 1
                x_of_hook[event.hook] = at + slot * COLUMN
                width = max(width, slot + 1)
        for event in batch:
            if event.step >= 0:
                # Starts sit before this time's marks, ends after them.
                if event.edge == "start":
                    edge_x = at - COLUMN / 2
                else:
                    edge_x = at + max(width, 1) * COLUMN - COLUMN / 2
                x_of_edge[(event.step, event.edge)] = edge_x
        return at + width * COLUMN

    for event in events:
        if previous is not None and event.order != previous:
            x = place(group, x)
            x += min(140.0, 14.0 * math.log1p(max(0.0, event.order - previous)))
            group = []
        group.append(event)
        previous = event.order
    x = place(group, x) if group else x
    # Ends placed in a later batch than their marks must not fall left of their start.
    for (index, edge), value in list(x_of_edge.items()):
        if edge == "end":
            x_of_edge[(index, edge)] = max(value, x_of_edge.get((index, "start"), value) + 6)

    width = max(x + 40, 900.0)
    lanes_bottom = TOP + LANE_HEIGHT * max(len(lanes), 1)
    height = lanes_bottom + BOTTOM
    heading = f"SIMULATED: {title}" if simulated and "SIMULATED" not in title else title

    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "width": _fmt(width),
            "height": _fmt(height),
            "viewBox": f"0 0 {_fmt(width)} {_fmt(height)}",
            "font-family": "sans-serif",
            "font-size": "11",
        },
    )
    _sub(svg, "title", heading)
    _sub(
        svg,
        "rect",
        class_="background",
        x="0",
        y="0",
        width=_fmt(width),
        height=_fmt(height),
        fill="#ffffff",
    )
    _sub(svg, "text", heading, x="10", y="22", font_size="16", font_weight="bold")

    bands = _sub(svg, "g", class_="steps")
    for index, step in enumerate(steps):
        start = x_of_edge.get((index, "start"), LEFT)
        end = x_of_edge.get((index, "end"), start + 6)
        colour = BAND_COLOURS[index % len(BAND_COLOURS)]
        band = _sub(
            bands,
            "rect",
            class_="step",
            data_step=step.name,
            x=_fmt(start),
            y=str(TOP - 10),
            width=_fmt(max(end - start, 6.0)),
            height=_fmt(lanes_bottom - TOP + 10),
            fill=colour,
            fill_opacity="0.12",
            stroke=colour,
            stroke_opacity="0.5",
        )
        _sub(
            band,
            "title",
            f"{step.name}: {step.start} to {step.end}"
            + (f" ({step.detail})" if step.detail else ""),
        )
        _sub(
            bands,
            "text",
            step.name,
            class_="step-label",
            x=_fmt(start + 3),
            y=str(TOP - 14 - 12 * (index % 3)),
            fill=colour,
        )

    for unit, index in lane_of.items():
        top = TOP + index * LANE_HEIGHT
        lane = _sub(svg, "g", class_="lane", data_unit=unit)
        _sub(
            lane,
            "rect",
            x="0",
            y=str(top),
            width=_fmt(width),
            height=str(LANE_HEIGHT),
            fill="#f5f5f5" if index % 2 else "#ffffff",
            fill_opacity="0.6",
        )
        baseline = top + LANE_HEIGHT - 22
        _sub(
            lane,
            "line",
            x1=str(LEFT),
            y1=str(baseline),
            x2=_fmt(width - 20),
            y2=str(baseline),
            stroke="#9e9e9e",
            stroke_width="1",
        )
        _sub(
            lane,
            "text",
            unit,
            class_="unit",
            x="10",
            y=str(baseline + 4),
            font_size="13",
            font_weight="bold",
        )
        for position, record in enumerate(records):
            if record.unit == unit:
                _mark(lane, record, x_of_hook[position], baseline)

    _axis(svg, steps, x_of_edge, lanes_bottom)
    _legend(svg, lanes_bottom + 60)
    if simulated:
        _sub(
            svg,
            "text",
            "SIMULATED",
            class_="watermark",
            x=_fmt(width / 2),
            y=_fmt(height / 2),
            text_anchor="middle",
            font_size="72",
            font_weight="bold",
            fill="#c62828",
            fill_opacity="0.10",
            transform=f"rotate(-20 {_fmt(width / 2)} {_fmt(height / 2)})",
        )
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode") + "\n"


def _mark(lane: ET.Element, record: HookRecord, x: float, baseline: float) -> None:
    is_hook = record.kind == "hook"
    name = record.hook if is_hook and record.hook else f"[{record.kind}]"
    outcome = record.outcome or "ok"
    colour = OUTCOME_COLOURS.get(outcome, "#000000") if is_hook else OTHER_KIND_COLOUR
    mark = _sub(lane, "g", class_="hook", data_outcome=outcome if is_hook else record.kind)
    tip = f"{record.time} {record.unit} {name}"
    if is_hook and outcome != "ok":
        tip += f" ({outcome})"
    if record.detail:
        tip += f": {record.detail}"
    _sub(mark, "title", f"{tip} [{record.source}]")
    if is_hook:
        _sub(mark, "circle", cx=_fmt(x), cy=_fmt(baseline), r="5", fill=colour)
    else:
        d = f"M {_fmt(x)} {_fmt(baseline - 7)} l 7 7 l -7 7 l -7 -7 z"
        _sub(mark, "path", d=d, fill=colour)
    label = _label(name if outcome == "ok" or not is_hook else f"{name} ({outcome})")
    _sub(
        mark,
        "text",
        label,
        x=_fmt(x + 2),
        y=_fmt(baseline - 10),
        fill=colour,
        transform=f"rotate(-55 {_fmt(x + 2)} {_fmt(baseline - 10)})",
    )


def _axis(
    svg: ET.Element, steps: Sequence[Step], x_of_edge: dict[tuple[int, str], float], y: float
) -> None:
    axis = _sub(svg, "g", class_="axis")
    ticks = sorted(
        (x, text)
        for index, step in enumerate(steps)
        for edge, text in (("start", step.start), ("end", step.end))
        if (x := x_of_edge.get((index, edge))) is not None
    )
    labelled = -1e9
    for x, text in ticks:
        _sub(axis, "line", x1=_fmt(x), y1=_fmt(y), x2=_fmt(x), y2=_fmt(y + 6), stroke="#616161")
        if x - labelled < 56:  # a label needs about this much room
            continue
        labelled = x
        clock = text[11:19] if parse_instant(text) else text
        _sub(
            axis,
            "text",
            clock,
            x=_fmt(x),
            y=_fmt(y + 18),
            font_size="9",
            fill="#616161",
            text_anchor="middle",
        )


def _legend(svg: ET.Element, y: float) -> None:
    legend = _sub(svg, "g", class_="legend")
    x = 10.0
    for outcome, colour in OUTCOME_COLOURS.items():
        _sub(legend, "circle", cx=_fmt(x + 5), cy=_fmt(y - 4), r="5", fill=colour)
        _sub(legend, "text", f"hook {outcome}", x=_fmt(x + 14), y=_fmt(y))
        x += 120
    _sub(
        legend,
        "path",
        d=f"M {_fmt(x + 5)} {_fmt(y - 11)} l 7 7 l -7 7 l -7 -7 z",
        fill=OTHER_KIND_COLOUR,
    )
    _sub(legend, "text", "reboot / agent event", x=_fmt(x + 16), y=_fmt(y))
    x += 150
    _sub(
        legend,
        "rect",
        x=_fmt(x),
        y=_fmt(y - 10),
        width="24",
        height="12",
        fill=BAND_COLOURS[0],
        fill_opacity="0.12",
        stroke=BAND_COLOURS[0],
    )
    _sub(legend, "text", "step (shaded while it ran)", x=_fmt(x + 30), y=_fmt(y))


def evidence_units(evidence: Evidence) -> list[str]:
    """Every unit the evidence mentions: pods before and after, and hook records."""
    units: set[str] = {h.unit for h in evidence.hooks}
    for snapshot in (evidence.before, evidence.after):
        if snapshot:
            units |= {p.unit for p in snapshot.pods}
    return sorted(units)


def render_svg(evidence: Evidence) -> str:
    from harness.evidence.report import title

    return render_timeline_svg(
        evidence.hooks,
        evidence.steps,
        title=title(evidence),
        simulated=evidence.simulated,
        units=evidence_units(evidence),
    )
