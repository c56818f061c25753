"""timeline.svg: one lane per unit, hooks as labelled marks in time order, steps as bands.

The horizontal axis is ordinal with gaps: every distinct time gets a column, and the space
between columns grows with the logarithm of the time between them, so a burst of hooks stays
readable next to a five-minute wait. Steps are shaded bands across the lanes, named in a
header with one row per step. When a unit's hooks come from two sources (the debug-log and
the probe journal), the debug-log's are the labelled marks and the other source's are
small hollow marks under them, placed by time without widening the axis.
Written with xml.etree, which does the escaping.
"""

from __future__ import annotations

import bisect
import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence

from harness.common.observations import HookRecord, Step
from harness.common.times import parse_instant, seconds_of_day
from harness.evidence.markdown import visible
from harness.evidence.model import Evidence
from harness.evidence.report import title

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
LANE_HEIGHT = 150
COLUMN = 22  # per hook at one time in one lane
LABEL_CHARS = 30
BOTTOM = 110  # time ticks and legend
PRIMARY_SOURCE = "debug-log"


def _time_keys(texts: Sequence[str]) -> list[float | None]:
    """Seconds for each time stamp: since the epoch when all are dated, else of the day."""
    instants = [parse_instant(t) for t in texts]
    if instants and all(i is not None for i in instants):
        return [i.timestamp() if i is not None else None for i in instants]
    # Undated debug-log times (HH:MM:SS): compare within one day.
    return [seconds_of_day(t) for t in texts]


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


class _Axis:
    """Where each record and step edge goes on the horizontal axis."""

    def __init__(
        self, records: Sequence[HookRecord], primary: Sequence[bool], steps: Sequence[Step]
    ) -> None:
        texts = [r.time for r in records] + [t for s in steps for t in (s.start, s.end)]
        keys = _time_keys(texts)
        # A time we cannot read keeps the record where its source put it.
        last = 0.0
        filled: list[float] = []
        for key in keys:
            last = key if key is not None else last
            filled.append(last)
        self.record_key = filled[: len(records)]
        edge_keys = filled[len(records) :]
        self.x_of_record: dict[int, float] = {}
        self.x_of_edge: dict[tuple[int, str], float] = {}

        # (time, kind order, index): marks of one time before the ends of steps at that time.
        events: list[tuple[float, int, int, str]] = []
        for index, is_primary in enumerate(primary):
            if is_primary:
                events.append((self.record_key[index], 1, index, ""))
        for index in range(len(steps)):
            start, end = edge_keys[2 * index], max(edge_keys[2 * index], edge_keys[2 * index + 1])
            events.append((start, 0, index, "start"))
            events.append((end, 2, index, "end"))
        events.sort(key=lambda e: (e[0], e[1]))

        x = float(LEFT + 30)
        anchors: list[tuple[float, float]] = []
        self.mark_times: list[tuple[float, str]] = []  # x and time text of each column
        position = 0
        while position < len(events):
            moment = events[position][0]
            batch = []
            while position < len(events) and events[position][0] == moment:
                batch.append(events[position])
                position += 1
            per_lane: dict[str, int] = {}
            for _, kind, index, _ in batch:
                if kind == 1:
                    unit = records[index].unit
                    slot = per_lane.get(unit, 0)
                    per_lane[unit] = slot + 1
                    self.x_of_record[index] = x + slot * COLUMN
            width = max(per_lane.values(), default=0)
            for _, kind, index, edge in batch:
                if kind == 0:
                    self.x_of_edge[(index, edge)] = x - COLUMN / 2
                elif kind == 2:
                    self.x_of_edge[(index, edge)] = x + max(width, 1) * COLUMN - COLUMN / 2
            anchors.append((moment, x))
            first_mark = next((e[2] for e in batch if e[1] == 1), None)
            if first_mark is not None:
                self.mark_times.append((x, records[first_mark].time))
            x += width * COLUMN
            if position < len(events):
                gap = events[position][0] - moment
                x += min(140.0, 14.0 * math.log1p(max(0.0, gap)))
        self.end = x
        self._anchors = anchors
        # Secondary marks go where their time falls between the placed ones.
        for index, is_primary in enumerate(primary):
            if not is_primary:
                self.x_of_record[index] = self._interpolate(self.record_key[index])

    def _interpolate(self, key: float) -> float:
        if not self._anchors:
            return float(LEFT + 30)
        times = [t for t, _ in self._anchors]
        at = bisect.bisect_left(times, key)
        if at < len(times) and times[at] == key:
            return self._anchors[at][1]
        if at == 0:
            return self._anchors[0][1] - COLUMN / 2
        if at == len(times):
            return self._anchors[-1][1] + COLUMN / 2
        (t0, x0), (t1, x1) = self._anchors[at - 1], self._anchors[at]
        return x0 + (x1 - x0) * (key - t0) / (t1 - t0)


def render_timeline_svg(
    hooks: Iterable[HookRecord],
    steps: Sequence[Step] = (),
    *,
    title: str,
    simulated: bool = False,
    units: Sequence[str] = (),
    rehearsal: bool = False,
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
    axis = _Axis(records, primary, steps)

    width = max(axis.end + 40, 900.0)
    top = TITLE_HEIGHT + STEP_ROW * len(steps) + 12
    lanes_bottom = top + LANE_HEIGHT * max(len(lanes), 1)
    height = lanes_bottom + BOTTOM
    heading = f"SIMULATED: {title}" if simulated and "SIMULATED" not in title else title
    if rehearsal and "REHEARSAL" not in heading:
        heading = f"REHEARSAL: {heading}"
    watermark = "REHEARSAL" if rehearsal else "SIMULATED" if simulated else None

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

    for index, unit in enumerate(lanes):
        lane_top = top + index * LANE_HEIGHT
        _lane(svg, unit, index, lane_top, width, records, primary, axis)
    _steps(svg, steps, axis, top, lanes_bottom)
    _axis_ticks(svg, steps, axis, lanes_bottom)
    _legend(svg, lanes_bottom + 60, secondary=not all(primary))
    if watermark is not None:
        _sub(
            svg,
            "text",
            watermark,
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


def _lane(
    svg: ET.Element,
    unit: str,
    index: int,
    top: float,
    width: float,
    records: Sequence[HookRecord],
    primary: Sequence[bool],
    axis: _Axis,
) -> None:
    lane = _sub(svg, "g", class_="lane", data_unit=unit)
    _sub(lane, "rect", x="0", y=_fmt(top), width=_fmt(width), height=str(LANE_HEIGHT),
         fill="#f5f5f5" if index % 2 else "#ffffff")  # fmt: skip
    baseline = top + LANE_HEIGHT - 28
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


def _steps(svg: ET.Element, steps: Sequence[Step], axis: _Axis, top: float, bottom: float) -> None:
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


def _axis_ticks(svg: ET.Element, steps: Sequence[Step], axis: _Axis, y: float) -> None:
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


def _legend(svg: ET.Element, y: float, *, secondary: bool) -> None:
    legend = _sub(svg, "g", class_="legend")
    x = 10.0
    for outcome, colour in OUTCOME_COLOURS.items():
        _sub(legend, "circle", cx=_fmt(x + 5), cy=_fmt(y - 4), r="5", fill=colour)
        _sub(legend, "text", f"hook {outcome}", x=_fmt(x + 14), y=_fmt(y))
        x += 120
    _sub(legend, "path", d=f"M {_fmt(x + 5)} {_fmt(y - 11)} l 7 7 l -7 7 l -7 -7 z",
         fill=OTHER_KIND_COLOUR)  # fmt: skip
    _sub(legend, "text", "reboot / agent event", x=_fmt(x + 16), y=_fmt(y))
    x += 160
    _sub(legend, "rect", x=_fmt(x), y=_fmt(y - 10), width="24", height="12",
         fill=BAND_COLOURS[0], fill_opacity="0.2", stroke=BAND_COLOURS[0])  # fmt: skip
    _sub(legend, "text", "step (shaded while it ran)", x=_fmt(x + 30), y=_fmt(y))
    if secondary:
        _sub(legend, "circle", cx=_fmt(15), cy=_fmt(y + 18), r="3.5", fill="none",
             stroke=OUTCOME_COLOURS["ok"], stroke_width="1.5")  # fmt: skip
        _sub(legend, "text", "the same unit's hooks from a second source (probe journal)",
             x="24", y=_fmt(y + 22))  # fmt: skip


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
        rehearsal=evidence.rehearsal is not None,
    )
