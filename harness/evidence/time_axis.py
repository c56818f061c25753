"""The time axis of timeline.svg: where each hook and step edge goes, drawn to scale.

One scale (pixels per second) is chosen so that as few gaps as possible are not to scale:
the scales tried are those at which a gap just fits before a break, or two marks of a lane
just fit apart. At it, a gap too long to draw is cut (a break, with the time it skips) and
hooks of one lane too close together to draw apart are pushed just far enough to be read
(that stretch is not to scale); marks of one instant in one lane stand side by side. The
drawing (``harness.evidence.svg``) marks both and gives the scale as a bar.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from harness.common.observations import HookRecord, Step
from harness.common.times import parse_instant, seconds_of_day

COLUMN = 22  # px: the least room between two marks in a lane
BREAK_AT = 160.0  # px: a gap wider than this at the chosen scale is cut by a break
BREAK_PX = 48.0  # px a break takes, room for the time it skips
SCALES_TRIED = 64
PLOT_WIDTH = 640.0  # px the gaps may take before the picture widens
# Durations a scale bar may show: the one drawn is 40 to 160 px long.
BAR_SECONDS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600)


def time_keys(texts: Sequence[str]) -> list[float | None]:
    """Seconds for each time stamp: since the epoch when all are dated, else of the day."""
    instants = [parse_instant(t) for t in texts]
    if instants and all(i is not None for i in instants):
        return [i.timestamp() if i is not None else None for i in instants]
    # Undated debug-log times (HH:MM:SS): compare within one day.
    return [seconds_of_day(t) for t in texts]


def span(seconds: float) -> str:
    """A duration as a reader says it: 10 ms, 5 s, 2 min 30 s, 1 h 5 min."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.3g} s"
    if seconds < 3600:
        minutes, rest = divmod(round(seconds), 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, rest = divmod(round(seconds / 60), 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"


@dataclass
class Placement:
    """Where each moment's marks go at one scale, and where the axis is not to scale."""

    firsts: list[float] = field(default_factory=list)  # x of each moment's first mark
    lasts: list[float] = field(default_factory=list)  # x of its last mark (same instant)
    spread: list[tuple[float, float]] = field(default_factory=list)  # x from, to: not to scale
    breaks: list[tuple[float, float, float]] = field(default_factory=list)  # x from, to, seconds
    pushed: int = 0  # gaps drawn wider than their time, so that marks of a lane do not collide
    end: float = 0.0

    def cost(self, start: float) -> tuple[int, int, float]:
        return self.pushed + len(self.breaks), self.pushed, self.end - start


def place(
    times: Sequence[float], lanes: Sequence[Mapping[str, int]], scale: float, start: float
) -> Placement:
    """Each moment at ``scale`` pixels per second after the one before, unless its gap is too
    long to draw (a break) or a lane's marks would come closer than COLUMN (pushed apart)."""
    placed = Placement()
    last_in_lane: dict[str, float] = {}
    x = start
    for position, moment in enumerate(times):
        if position:
            before = placed.lasts[-1]
            seconds = moment - times[position - 1]
            need = max(
                (
                    last_in_lane[lane] + COLUMN - before
                    for lane in lanes[position]
                    if lane in last_in_lane
                ),
                default=0.0,
            )
            drawn = scale * seconds
            if drawn > BREAK_AT:
                drawn = max(need, BREAK_PX)
                placed.breaks.append((before, before + drawn, seconds))
            elif drawn < need - 1e-9:
                drawn = need
                placed.pushed += 1
                placed.spread.append((before, before + drawn))
            x = before + drawn
        count = max(lanes[position].values(), default=0)
        last = x + max(count - 1, 0) * COLUMN
        if count > 1:  # marks of one instant in one lane, side by side
            placed.spread.append((x, last))
        for lane, marks in lanes[position].items():
            last_in_lane[lane] = x + (marks - 1) * COLUMN
        placed.firsts.append(x)
        placed.lasts.append(last)
    placed.end = (placed.lasts[-1] + COLUMN) if placed.lasts else start
    return placed


def choose_scale(
    times: Sequence[float], lanes: Sequence[Mapping[str, int]], start: float
) -> float:
    """Pixels per second: the fewest gaps cut by a break or pushed wider than their time,
    fewer pushed ones first (a break says the time it skips); of those, the largest scale
    that keeps the picture within PLOT_WIDTH, else the narrowest picture. The scales tried
    are those at which a gap just fits before a break, or two marks of a lane just fit."""
    gaps = [b - a for a, b in itertools.pairwise(times) if b > a]
    if not gaps:
        return float(COLUMN)
    candidates = {BREAK_AT / gap for gap in gaps}
    seen: dict[str, float] = {}
    for moment, present in zip(times, lanes, strict=True):
        for lane in present:
            if lane in seen and moment > seen[lane]:
                candidates.add(COLUMN / (moment - seen[lane]))
            seen[lane] = moment
    candidates.add(PLOT_WIDTH / sum(gaps))
    ordered = sorted(candidates)
    if len(ordered) > SCALES_TRIED:  # a long debug-log: try a spread of them
        step = len(ordered) / SCALES_TRIED
        ordered = [ordered[int(i * step)] for i in range(SCALES_TRIED)]
    costs = {scale: place(times, lanes, scale, start).cost(start) for scale in ordered}
    least = min(c[:2] for c in costs.values())
    best = [scale for scale, c in costs.items() if c[:2] == least]
    roomy = [scale for scale in best if costs[scale][2] <= PLOT_WIDTH]
    return max(roomy) if roomy else min(best, key=lambda scale: costs[scale][2])


class TimeAxis:
    """Where each record and step edge goes on the horizontal axis."""

    def __init__(
        self,
        records: Sequence[HookRecord],
        primary: Sequence[bool],
        steps: Sequence[Step],
        origin: float,
    ) -> None:
        texts = [r.time for r in records] + [t for s in steps for t in (s.start, s.end)]
        keys = time_keys(texts)
        # A time we cannot read keeps the record where its source put it.
        last = 0.0
        filled: list[float] = []
        for key in keys:
            last = key if key is not None else last
            filled.append(last)
        self.record_key = filled[: len(records)]
        edge_keys = filled[len(records) :]
        self.origin = origin
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

        moments: list[tuple[float, list[tuple[float, int, int, str]]]] = []
        for event in events:
            if moments and moments[-1][0] == event[0]:
                moments[-1][1].append(event)
            else:
                moments.append((event[0], [event]))
        lanes: list[dict[str, int]] = []
        for _, batch in moments:
            present: dict[str, int] = {}
            for _, kind, index, _ in batch:
                if kind == 1:
                    present[records[index].unit] = present.get(records[index].unit, 0) + 1
            lanes.append(present)
        times = [moment for moment, _ in moments]
        self.scale = choose_scale(times, lanes, origin)
        self.timed = len(set(times)) > 1
        placed = place(times, lanes, self.scale, origin)
        self.breaks = placed.breaks
        self.spread = placed.spread

        anchors: list[tuple[float, float, float]] = []  # time, first and last mark's x
        self.mark_times: list[tuple[float, str]] = []  # x and time text of each column
        for position, (moment, batch) in enumerate(moments):
            x, last = placed.firsts[position], placed.lasts[position]
            slots: dict[str, int] = {}
            for _, kind, index, _ in batch:
                if kind == 1:
                    unit = records[index].unit
                    slots[unit] = slots.get(unit, 0) + 1
                    self.x_of_record[index] = x + (slots[unit] - 1) * COLUMN
            for _, kind, index, edge in batch:
                if kind == 0:
                    self.x_of_edge[(index, edge)] = x - COLUMN / 2
                elif kind == 2:
                    self.x_of_edge[(index, edge)] = last + COLUMN / 2
            anchors.append((moment, x, last))
            first_mark = next((e[2] for e in batch if e[1] == 1), None)
            if first_mark is not None:
                self.mark_times.append((x, records[first_mark].time))
        self.end = placed.end
        self._anchors = anchors
        # Secondary marks go where their time falls between the placed ones.
        for index, is_primary in enumerate(primary):
            if not is_primary:
                self.x_of_record[index] = self._interpolate(self.record_key[index])

    def _interpolate(self, key: float) -> float:
        if not self._anchors:
            return self.origin
        times = [t for t, _, _ in self._anchors]
        at = bisect.bisect_left(times, key)
        if at < len(times) and times[at] == key:
            return self._anchors[at][1]
        if at == 0:
            return self._anchors[0][1] - COLUMN / 2
        if at == len(times):
            return self._anchors[-1][2] + COLUMN / 2
        (t0, _, x0), (t1, x1, _) = self._anchors[at - 1], self._anchors[at]
        return x0 + (x1 - x0) * (key - t0) / (t1 - t0)


def bar_seconds(scale: float) -> float:
    """A round duration whose bar is 40 to 160 px at ``scale``, else the closest."""
    fits = [s for s in BAR_SECONDS if 40 <= s * scale <= 160]
    if fits:
        return fits[0]
    return min(BAR_SECONDS, key=lambda s: abs(math.log(max(s * scale, 1e-9) / 80)))


def scale_caption(axis: TimeAxis) -> str:
    """What the axis is: to scale, the bar's duration, and the marks where it is not."""
    if not axis.timed:
        return "Time: one moment only, so no scale."
    text = f"Time is to scale: the bar is {span(bar_seconds(axis.scale))}"
    if axis.breaks:
        text += "; a break (//) cuts a gap too long to draw, the time it skips written above it"
    if axis.spread:
        text += (
            "; the dashed stretches are not to scale: hooks too close together to draw "
            "apart at this scale (or at one instant in one lane), spread to be read"
        )
    return text + "."
