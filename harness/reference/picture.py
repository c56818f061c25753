"""A predicted hook sequence as a timeline picture, drawn by the evidence's own SVG renderer.

``harness.evidence.svg.render_timeline_svg`` draws the hooks: one lane per unit (here the
leader and a non-leader, or one lane when they run the same hooks), a labelled mark per
hook, phases (old pod, new pod) as shaded bands. A prediction has an order but no clock,
so the hooks are given one second apart (phases further apart), and what would show that
made-up clock is taken out again: the time ticks, and the times in each mark's tooltip.
The legend says what the picture is instead, and the picture gets a ``<title>`` and a
``<desc>`` (the sequence in words) for readers who cannot see it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

from harness.catalogue import Expectation
from harness.common.observations import HookRecord, Step
from harness.evidence.svg import BAND_COLOURS, OUTCOME_COLOURS, SVG_NS, render_timeline_svg
from harness.reference.sequence import Hook, differs_by_leadership, for_unit

_NS = f"{{{SVG_NS}}}"
PHASE_GAP = 20  # seconds of made-up clock between phases: a visible gap, not a duration
EVERY_UNIT = "each unit"


@dataclass(frozen=True)
class Phase:
    name: str
    hooks: tuple[int, ...]  # positions in the sequence


def phases(entry: Expectation, hooks: Sequence[Hook]) -> tuple[Phase, ...]:
    """Where the pod or container changes: a phase ends after each ``stop``.

    Named from the expectation: old pod / new pod when the pod is replaced, before / after
    the restart when it is not, teardown when the unit is removed, new unit on deploy.
    """
    if not hooks:
        return ()
    names = [hook.name for hook in hooks]
    if "remove" in names:
        return (Phase("teardown: the unit is removed", tuple(range(len(hooks)))),)
    if entry.disruption == "deploy":
        first, later = "", "new unit"
    elif entry.pod_uid == "new":
        first, later = "old pod", "new pod"
    elif entry.scope == "container":
        first, later = "before the container restarts", "restarted container"
    elif entry.restart_count == "increments":
        first, later = "before the restart", "after the restart"
    else:
        first, later = "", "the unit"
    chunks: list[tuple[int, ...]] = []
    current: list[int] = []
    for index, name in enumerate(names):
        current.append(index)
        if name == "stop" and index < len(names) - 1:
            chunks.append(tuple(current))
            current = []
    chunks.append(tuple(current))
    if len(chunks) == 1:
        return (Phase(later, chunks[0]),)
    numbered = len(chunks) > 2  # a second roll: number each new pod
    return (
        Phase(first, chunks[0]),
        *(
            Phase(f"{later} ({n})" if numbered else later, chunk)
            for n, chunk in enumerate(chunks[1:], 1)
        ),
    )


def lanes(hooks: Sequence[Hook]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """(lane name, positions of its hooks): the leader and a non-leader, or each unit."""
    if not differs_by_leadership(tuple(hooks)):
        return ((EVERY_UNIT, tuple(range(len(hooks)))),)
    out = []
    for leader, name in ((True, "leader"), (False, "non-leader")):
        mine = set(for_unit(tuple(hooks), leader))
        out.append((name, tuple(i for i, h in enumerate(hooks) if h in mine)))
    return tuple(out)


def describe(hooks: Sequence[Hook]) -> str:
    """The sequence in words, for ``<desc>`` and the image's alt text."""
    parts = []
    for lane, positions in lanes(hooks):
        names = ", ".join(hooks[i].text for i in positions) or "no hook"
        parts.append(f"{lane}: {names}")
    return "; ".join(parts) + "."


def render(entry: Expectation, hooks: Sequence[Hook], title: str) -> str:
    """The SVG document for one hook sequence."""
    steps_of = phases(entry, hooks)
    clock: dict[int, int] = {}
    second = 1
    for number, phase in enumerate(steps_of):
        second += PHASE_GAP if number else 0
        for index in phase.hooks:
            clock[index] = second
            second += 1
    records: list[HookRecord] = []
    names: list[str] = []  # each record's tooltip, in the order the renderer draws them
    all_lanes = lanes(hooks)
    for lane, positions in all_lanes:
        for index in positions:
            hook = hooks[index]
            records.append(HookRecord(lane, _time(clock[index]), "hook", "debug-log", hook.text))
            place = positions.index(index) + 1
            names.append(f"{lane}: {hook.text} (hook {place} of {len(positions)})")
    steps = [Step(p.name, _time(clock[p.hooks[0]]), _time(clock[p.hooks[-1]])) for p in steps_of]
    svg = render_timeline_svg(records, steps, title=title, units=[n for n, _ in all_lanes])
    return _adapt(svg, title, describe(hooks), names)


def _time(second: int) -> str:
    return f"00:{second // 60:02d}:{second % 60:02d}"


def _adapt(svg: str, title: str, desc: str, tips: Sequence[str]) -> str:
    """The renderer's picture, less its clock, with a legend and a description for this use."""
    root = ET.fromstring(svg)
    for element in root.iter():  # plain names, and xmlns as an attribute, as the renderer
        element.tag = element.tag.removeprefix(_NS)
    root.set("xmlns", SVG_NS)
    root.set("role", "img")
    root.set("aria-labelledby", "title desc")
    heading = root.find("title")
    assert heading is not None  # the renderer always writes one
    heading.set("id", "title")
    heading.text = title
    description = ET.Element("desc", {"id": "desc"})
    description.text = desc
    root.insert(list(root).index(heading) + 1, description)
    for group in root.findall("g[@class='axis']"):
        root.remove(group)  # ticks of a made-up clock
    marks = [g for g in root.iter("g") if g.get("class") == "hook"]
    if len(marks) != len(tips):  # the renderer drew the records otherwise than it did
        raise ValueError(f"{len(marks)} hook marks drawn for {len(tips)} hooks")
    # Lane by lane, each lane's hooks in order: the order the records were given in.
    for mark, tip in zip(marks, tips, strict=True):
        tooltip = mark.find("title")
        if tooltip is not None:
            tooltip.text = tip
        for attribute in ("data-outcome", "data-source"):  # a run's, not a prediction's
            mark.attrib.pop(attribute, None)
    for band in root.iter("rect"):
        tooltip = band.find("title")
        if band.get("class") == "step" and tooltip is not None:
            tooltip.text = band.get("data-step", "")
    for legend in root.findall("g[@class='legend']"):
        _legend(legend)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


def _legend(legend: ET.Element) -> None:
    """What the marks and bands mean here: order, not time; the catalogue, not a run."""
    y = max((float(t.get("y", "0")) for t in legend.iter("text")), default=0.0)
    for child in list(legend):
        legend.remove(child)
    colour = OUTCOME_COLOURS["ok"]
    ET.SubElement(legend, "circle", cx="15", cy=f"{y - 4:.1f}", r="5", fill=colour)
    text = ET.SubElement(legend, "text", x="24", y=f"{y:.1f}")
    text.text = "a hook, in the order Juju runs it (left to right; spacing is not time)"
    band = BAND_COLOURS[0]
    attrs = {"x": "10", "y": f"{y + 10:.1f}", "width": "24", "height": "12"}
    attrs |= {"fill": band, "fill-opacity": "0.2", "stroke": band}
    ET.SubElement(legend, "rect", attrs)
    text = ET.SubElement(legend, "text", x="40", y=f"{y + 20:.1f}")
    text.text = "where the pod or container changes (from the catalogue, not from a run)"
