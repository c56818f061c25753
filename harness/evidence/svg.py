"""timeline.svg: one lane per unit, hooks as labelled marks in time order, steps as bands.

The time axis is drawn to scale (``harness.evidence.time_axis`` places everything), and the
picture says where it is not: a break (//) on the axis with the time it skips, a dashed
stretch where hooks of one lane were spread apart to be read; a caption under the axis gives
the scale as a bar. Steps are shaded bands across the lanes, named in a header with one row
per step. When a unit's hooks come from two sources (the debug-log and the probe journal),
the debug-log's are the labelled marks and the other source's are small hollow marks under
them, placed by time without widening the axis. A lane without hooks is a short one that
says so; the legend wraps to the picture's width. Written with xml.etree, which does the
escaping.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence

from harness.common.observations import HookRecord, Step
from harness.common.times import parse_instant
from harness.evidence.markdown import visible
from harness.evidence.model import Evidence
from harness.evidence.report import title
from harness.evidence.time_axis import TimeAxis, bar_seconds, scale_caption, span

SVG_NS = "http://www.w3.org/2000/svg"

OUTCOME_COLOURS = {
    "ok": "#2e7d32",
    "failed": "#c62828",
    "terminated": "#ef6c00",
    "skipped": "#9e9e9e",
    "not-run": "#6d4c41",
}
OTHER_KIND_COLOUR = "#6a1b9a"  # reboot, agent-start, ...
BAND_COLOURS = ("#1565c0", "#00838f", "#5d4037", "#ad1457", "#558b2f", "#6a1b9a")

LEFT = 190  # unit labels
TITLE_HEIGHT = 40
STEP_ROW = 15  # one header row per step
LANE_HEIGHT = 150  # the most a lane takes: its longest label, drawn at 55 degrees
EMPTY_LANE = 34  # a lane without hooks
LABEL_CHARS = 30
CHAR = 6.5  # px a character takes at font-size 11 (sans-serif, generously)
MIN_WIDTH = 900.0
PRIMARY_SOURCE = "debug-log"


def _label(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "\u2026"


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(
        parent, tag, {k.rstrip("_").replace("_", "-"): visible(v) for k, v in attrs.items()}
    )
    if text is not None:
        element.text = visible(text)  # XML has no place for most control characters
    return element


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def _text_px(text: str, size: float = 11) -> float:
    """How wide ``text`` is drawn, estimated (no font metrics in a pure-Python writer)."""
    return len(text) * CHAR * size / 11


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
    sources: dict[str, str] = {}
    for record in records:
        current = sources.get(record.unit)
        if current is None or record.source == PRIMARY_SOURCE:
            sources[record.unit] = record.source
    primary = [sources[r.unit] == r.source for r in records]
    axis = TimeAxis(records, primary, steps, float(LEFT + 30))
    heading = f"SIMULATED: {title}" if simulated and "SIMULATED" not in title else title

    heights = [_lane_height([r for r in records if r.unit == unit]) for unit in lanes]
    widest_step = max(
        (
            axis.x_of_edge.get((i, "end"), float(LEFT)) + 4 + _text_px(s.name)
            for i, s in enumerate(steps)
        ),
        default=0.0,
    )
    width = max(axis.end + 40, MIN_WIDTH, 20 + _text_px(heading, 16), widest_step + 10)
    top = TITLE_HEIGHT + STEP_ROW * len(steps) + 12
    lanes_bottom = top + (sum(heights) if lanes else EMPTY_LANE)
    scale_lines = _wrap(scale_caption(axis), width - 20)
    legend_rows = _legend_rows(width, secondary=not all(primary))
    scale_top = lanes_bottom + 52  # under the tick labels and the scale bar
    legend_top = scale_top + 16 * len(scale_lines) + 14
    height = legend_top + 22 * len(legend_rows) + 10

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
    _sub(svg, "rect", class_="background", x="0", y="0", width=_fmt(width), height=_fmt(height),
         fill="#ffffff")  # fmt: skip
    _sub(svg, "text", heading, x="10", y="22", font_size="16", font_weight="bold")

    lane_top = float(top)
    for index, unit in enumerate(lanes):
        _lane(svg, unit, index, lane_top, heights[index], width, records, primary, axis)
        lane_top += heights[index]
    _steps(svg, steps, axis, top, lanes_bottom)
    _axis_ticks(svg, steps, axis, lanes_bottom)
    _time_scale(svg, axis, top, lanes_bottom, scale_top, scale_lines)
    _legend(svg, legend_top, legend_rows)
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


def _lane_height(records: Sequence[HookRecord]) -> float:
    """Room for the lane's longest label, drawn rotated above the baseline; short if none."""
    if not records:
        return float(EMPTY_LANE)
    longest = max(len(_label(_name(r))) for r in records)
    # A label at 55 degrees rises 0.82 of its length; 28 px below the baseline, 14 above.
    return float(min(LANE_HEIGHT, max(70.0, 42 + 0.82 * CHAR * longest)))


def _name(record: HookRecord) -> str:
    is_hook = record.kind == "hook"
    name = record.hook if is_hook and record.hook else f"[{record.kind}]"
    outcome = record.outcome or "ok"
    return name if outcome == "ok" or not is_hook else f"{name} ({outcome})"


def _lane(
    svg: ET.Element,
    unit: str,
    index: int,
    top: float,
    height: float,
    width: float,
    records: Sequence[HookRecord],
    primary: Sequence[bool],
    axis: TimeAxis,
) -> None:
    lane = _sub(svg, "g", class_="lane", data_unit=unit)
    _sub(lane, "rect", x="0", y=_fmt(top), width=_fmt(width), height=_fmt(height),
         fill="#f5f5f5" if index % 2 else "#ffffff")  # fmt: skip
    if not any(r.unit == unit for r in records):
        middle = top + height / 2 + 4
        _sub(lane, "text", unit, class_="unit", x="10", y=_fmt(middle), font_size="13",
             font_weight="bold")  # fmt: skip
        _sub(lane, "text", "no hooks in this window", x=str(LEFT), y=_fmt(middle),
             fill="#757575", font_style="italic")  # fmt: skip
        return
    baseline = top + height - 28
    _sub(lane, "line", x1=str(LEFT), y1=_fmt(baseline), x2=_fmt(width - 20), y2=_fmt(baseline),
         stroke="#9e9e9e", stroke_width="1")  # fmt: skip
    _sub(lane, "text", unit, class_="unit", x="10", y=_fmt(baseline + 4), font_size="13",
         font_weight="bold")  # fmt: skip
    used: dict[float, int] = {}
    for position, record in enumerate(records):
        if record.unit != unit:
            continue
        x = axis.x_of_record[position]
        if primary[position]:
            _mark(lane, record, x, baseline)
        else:
            # Hollow marks of a second source must not sit exactly on each other.
            nudge = used.get(round(x), 0)
            used[round(x)] = nudge + 1
            _secondary_mark(lane, record, x + 7 * nudge, baseline + 14)


def _tip(record: HookRecord, name: str, outcome: str, is_hook: bool) -> str:
    tip = f"{record.time} {record.unit} {name}"
    if is_hook and outcome != "ok":
        tip += f" ({outcome})"
    if record.detail:
        tip += f": {record.detail}"
    return f"{tip} [{record.source}]"


def _mark(lane: ET.Element, record: HookRecord, x: float, baseline: float) -> None:
    is_hook = record.kind == "hook"
    name = record.hook if is_hook and record.hook else f"[{record.kind}]"
    outcome = record.outcome or "ok"
    colour = OUTCOME_COLOURS.get(outcome, "#000000") if is_hook else OTHER_KIND_COLOUR
    mark = _sub(lane, "g", class_="hook", data_outcome=outcome if is_hook else record.kind,
                data_source=record.source)  # fmt: skip
    _sub(mark, "title", _tip(record, name, outcome, is_hook))
    if is_hook:
        _sub(mark, "circle", cx=_fmt(x), cy=_fmt(baseline), r="5", fill=colour)
    else:
        d = f"M {_fmt(x)} {_fmt(baseline - 7)} l 7 7 l -7 7 l -7 -7 z"
        _sub(mark, "path", d=d, fill=colour)
    label = _label(name if outcome == "ok" or not is_hook else f"{name} ({outcome})")
    _sub(mark, "text", label, x=_fmt(x + 2), y=_fmt(baseline - 10), fill=colour,
         transform=f"rotate(-55 {_fmt(x + 2)} {_fmt(baseline - 10)})")  # fmt: skip


def _secondary_mark(lane: ET.Element, record: HookRecord, x: float, y: float) -> None:
    is_hook = record.kind == "hook"
    name = record.hook if is_hook and record.hook else f"[{record.kind}]"
    outcome = record.outcome or "ok"
    colour = OUTCOME_COLOURS.get(outcome, "#000000") if is_hook else OTHER_KIND_COLOUR
    mark = _sub(lane, "g", class_="hook", data_outcome=outcome if is_hook else record.kind,
                data_source=record.source)  # fmt: skip
    _sub(mark, "title", _tip(record, name, outcome, is_hook))
    _sub(mark, "circle", cx=_fmt(x), cy=_fmt(y), r="3.5", fill="none", stroke=colour,
         stroke_width="1.5")  # fmt: skip


def _steps(
    svg: ET.Element, steps: Sequence[Step], axis: TimeAxis, top: float, bottom: float
) -> None:
    """Each step: a band across the lanes and a named bar in its own header row."""
    group = _sub(svg, "g", class_="steps")
    for index, step in enumerate(steps):
        start = axis.x_of_edge.get((index, "start"), float(LEFT))
        end = max(axis.x_of_edge.get((index, "end"), start), start + 6)
        colour = BAND_COLOURS[index % len(BAND_COLOURS)]
        detail = f" ({step.detail})" if step.detail else ""
        band = _sub(group, "rect", class_="step", data_step=step.name, x=_fmt(start),
                    y=_fmt(top), width=_fmt(end - start), height=_fmt(bottom - top),
                    fill=colour, fill_opacity="0.08", stroke=colour,
                    stroke_opacity="0.35")  # fmt: skip
        _sub(band, "title", f"{step.name}: {step.start} to {step.end}{detail}")
        row = TITLE_HEIGHT + index * STEP_ROW
        _sub(group, "rect", class_="step-bar", x=_fmt(start), y=_fmt(row + 3),
             width=_fmt(end - start), height="9", fill=colour, fill_opacity="0.5")  # fmt: skip
        _sub(group, "text", step.name, class_="step-label", x=_fmt(end + 4), y=_fmt(row + 11),
             fill=colour)  # fmt: skip


def _axis_ticks(svg: ET.Element, steps: Sequence[Step], axis: TimeAxis, y: float) -> None:
    group = _sub(svg, "g", class_="axis")
    # Step edges when there are steps (a run); else the hooks' own times (a debug-log).
    ticks = sorted(
        (x, text)
        for index, step in enumerate(steps)
        for edge, text in (("start", step.start), ("end", step.end))
        if (x := axis.x_of_edge.get((index, edge))) is not None
    ) or sorted(axis.mark_times)
    labelled = -1e9
    for x, text in ticks:
        _sub(group, "line", x1=_fmt(x), y1=_fmt(y), x2=_fmt(x), y2=_fmt(y + 6), stroke="#616161")
        if x - labelled < 56:  # a label needs about this much room
            continue
        labelled = x
        clock = text[11:19] if parse_instant(text) else text
        _sub(group, "text", clock, x=_fmt(x), y=_fmt(y + 18), font_size="9", fill="#616161",
             text_anchor="middle")  # fmt: skip


_Item = tuple[str, str]  # (kind of symbol, text)


def _legend_items(secondary: bool) -> list[_Item]:
    items: list[_Item] = [(outcome, f"hook {outcome}") for outcome in OUTCOME_COLOURS]
    items += [("event", "reboot / agent event"), ("step", "step (shaded while it ran)")]
    if secondary:
        items.append(("second", "the same unit's hooks from a second source (probe journal)"))
    return items


def _legend_rows(width: float, *, secondary: bool) -> list[list[tuple[float, _Item]]]:
    """The legend's items, each with its x, in rows that fit ``width``."""
    rows: list[list[tuple[float, _Item]]] = [[]]
    x = 10.0
    for item in _legend_items(secondary):
        room = 34 + _text_px(item[1]) + 24
        if rows[-1] and x + room > width - 10:
            rows.append([])
            x = 10.0
        rows[-1].append((x, item))
        x += room
    return rows


def _legend(svg: ET.Element, top: float, rows: Sequence[Sequence[tuple[float, _Item]]]) -> None:
    legend = _sub(svg, "g", class_="legend")
    for number, row in enumerate(rows):
        y = top + 22 * number
        for x, (kind, text) in row:
            if kind in OUTCOME_COLOURS:
                _sub(legend, "circle", cx=_fmt(x + 10), cy=_fmt(y - 4), r="5",
                     fill=OUTCOME_COLOURS[kind])  # fmt: skip
            elif kind == "event":
                _sub(legend, "path", d=f"M {_fmt(x + 10)} {_fmt(y - 11)} l 7 7 l -7 7 l -7 -7 z",
                     fill=OTHER_KIND_COLOUR)  # fmt: skip
            elif kind == "step":
                _sub(legend, "rect", x=_fmt(x), y=_fmt(y - 10), width="24", height="12",
                     fill=BAND_COLOURS[0], fill_opacity="0.2", stroke=BAND_COLOURS[0])  # fmt: skip
            else:
                _sub(legend, "circle", cx=_fmt(x + 10), cy=_fmt(y - 4), r="3.5", fill="none",
                     stroke=OUTCOME_COLOURS["ok"], stroke_width="1.5")  # fmt: skip
            _sub(legend, "text", text, x=_fmt(x + 34), y=_fmt(y))


def _wrap(text: str, width: float) -> list[str]:
    lines = [""]
    for word in text.split():
        candidate = f"{lines[-1]} {word}".strip()
        if lines[-1] and _text_px(candidate) > width:
            lines.append(word)
        else:
            lines[-1] = candidate
    return lines


def _time_scale(
    svg: ET.Element,
    axis: TimeAxis,
    lanes_top: float,
    y: float,
    caption_top: float,
    caption: Sequence[str],
) -> None:
    """The axis line (dashed where not to scale), its breaks, the scale bar and the caption."""
    group = _sub(svg, "g", class_="time-scale")
    start, end = float(LEFT + 10), max(axis.end, LEFT + 40.0)
    _sub(group, "line", class_="axis-line", x1=_fmt(start), y1=_fmt(y), x2=_fmt(end),
         y2=_fmt(y), stroke="#616161", stroke_width="1.5")  # fmt: skip
    for x1, x2 in axis.spread:
        _sub(group, "line", class_="not-to-scale", x1=_fmt(x1), y1=_fmt(y), x2=_fmt(x2),
             y2=_fmt(y), stroke="#ffffff", stroke_width="2",
             stroke_dasharray="3 3")  # fmt: skip
    for x1, x2, seconds in axis.breaks:
        cut = _sub(group, "g", class_="break", data_seconds=f"{seconds:g}")
        middle = (x1 + x2) / 2
        _sub(cut, "rect", x=_fmt(middle - 5), y=_fmt(lanes_top), width="10",
             height=_fmt(y - lanes_top + 8), fill="#ffffff", fill_opacity="0.6")  # fmt: skip
        for dx in (-3.0, 3.0):
            _sub(cut, "line", x1=_fmt(middle + dx - 3), y1=_fmt(y + 6), x2=_fmt(middle + dx + 3),
                 y2=_fmt(y - 6), stroke="#212121", stroke_width="1.5")  # fmt: skip
        _sub(cut, "text", f"+{span(seconds)}", x=_fmt(middle), y=_fmt(y - 9),
             font_size="9", text_anchor="middle", fill="#212121")  # fmt: skip
    if axis.timed:  # the scale bar, with its ends marked, above the caption
        bar = bar_seconds(axis.scale) * axis.scale
        level = caption_top - 20
        _sub(group, "line", class_="scale-bar", x1="10", y1=_fmt(level), x2=_fmt(10 + bar),
             y2=_fmt(level), stroke="#212121", stroke_width="2")  # fmt: skip
        for end_x in (10.0, 10 + bar):
            _sub(group, "line", x1=_fmt(end_x), y1=_fmt(level - 4), x2=_fmt(end_x),
                 y2=_fmt(level + 4), stroke="#212121", stroke_width="2")  # fmt: skip
        _sub(group, "text", span(bar_seconds(axis.scale)), x=_fmt(16 + bar),
             y=_fmt(level + 4))  # fmt: skip
    for number, line in enumerate(caption):
        _sub(group, "text", line, x="10", y=_fmt(caption_top + 16 * number))


def evidence_units(evidence: Evidence) -> list[str]:
    """Every unit the evidence mentions: pods before and after, and hook records."""
    units: set[str] = {h.unit for h in evidence.hooks}
    for snapshot in (evidence.before, evidence.after):
        if snapshot:
            units |= {p.unit for p in snapshot.pods}
    return sorted(units)


def render_svg(evidence: Evidence) -> str:
    return render_timeline_svg(
        evidence.hooks,
        evidence.steps,
        title=title(evidence),
        simulated=evidence.simulated,
        units=evidence_units(evidence),
    )
