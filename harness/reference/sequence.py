"""One expectation in a reader's words: its hooks in order (leader and non-leader in one
line) and what survives, from the catalogue's ``Expectation`` alone."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

from harness.catalogue import LIFECYCLE, Expectation, Layer, OptionalHook

Who = Literal["every unit", "leader", "non-leader"]
_TEMPLATE = re.compile(r"\{(\w+)\}")
LAYER_NAMES: tuple[tuple[Layer, str], ...] = (
    ("container-root", "container root"),
    ("charm-dir", "charm directory"),
    ("storage", "storage"),
)
# What a reader looks up first, in this order: the three filesystem layers, then what
# lives on the controller.
SURVIVAL_ORDER = (*(name for _, name in LAYER_NAMES), "relation data", "unit identity")


def hook_text(hook: str) -> str:
    """``{container}-pebble-ready`` -> ``<container>-pebble-ready``, as Juju's docs write it."""
    return _TEMPLATE.sub(r"<\1>", hook)


@dataclass(frozen=True)
class Hook:
    """One hook of a sequence, and which units run it."""

    name: str  # as the catalogue names it (templates kept)
    who: Who = "every unit"

    @property
    def text(self) -> str:
        return hook_text(self.name)


def sequence(entry: Expectation) -> tuple[Hook, ...]:
    """The required hooks of a leader and of a non-leader, merged into one order.

    A hook only one of them runs is marked with who runs it; the two sequences differ
    only by such hooks (``leader-settings-changed`` on a non-leader, ``leader-elected``
    on a new leader), so one line reads as both.
    """
    leader = entry.required_hooks(leader=True)
    other = entry.required_hooks(leader=False)
    merged: list[Hook] = []
    matcher = difflib.SequenceMatcher(None, leader, other, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            merged += [Hook(name) for name in leader[i1:i2]]
            continue
        merged += [Hook(name, "leader") for name in leader[i1:i2]]
        merged += [Hook(name, "non-leader") for name in other[j1:j2]]
    return tuple(merged)


def for_unit(hooks: tuple[Hook, ...], leader: bool) -> tuple[Hook, ...]:
    """The hooks one unit runs: the leader's or a non-leader's."""
    skip = "non-leader" if leader else "leader"
    return tuple(hook for hook in hooks if hook.who != skip)


def differs_by_leadership(hooks: tuple[Hook, ...]) -> bool:
    return any(hook.who != "every unit" for hook in hooks)


def may_also_run(entry: Expectation) -> tuple[str, ...]:
    """The hooks that may run but need not, each with where and for whom."""
    out: list[str] = []
    for hook in entry.optional:
        if hook.required:  # in the sequence already (for every unit, or one kind)
            continue
        out.append(_placed(hook))
    return tuple(dict.fromkeys(out))


def _placed(hook: OptionalHook) -> str:
    where = hook.where.strip()
    if where == "anywhere":
        place = "anywhere"
    else:
        place = ", ".join(
            part.strip().replace(":", " ", 1) for part in where.split(",") if part.strip()
        )
    who = "" if hook.when == "always" else f", {hook.when} only"
    return f"{hook_text(hook.hook)} ({hook_text(place)}{who})"


@dataclass(frozen=True)
class Survival:
    """What is there afterwards: each of ``SURVIVAL_ORDER`` with a word (kept, lost, new)."""

    states: tuple[tuple[str, str], ...]
    new_unit: bool = False  # a lifecycle entry that makes the unit: nothing to survive

    def short(self) -> str:
        """``Lost: container root, charm directory. Kept: storage, relation data, ...``."""
        if self.new_unit:
            return "A new unit: nothing to survive."
        grouped: dict[str, list[str]] = {}
        for what, state in self.states:
            word = state.split(" ", 1)[0]
            grouped.setdefault(word, []).append(what + _detail(state))
        order = ("lost", "new", "kept")
        parts = [
            f"{word.capitalize()}: {', '.join(grouped[word])}."
            for word in (*order, *sorted(set(grouped) - set(order)))
            if word in grouped
        ]
        return " ".join(parts)


def _detail(state: str) -> str:
    _, _, rest = state.partition(" ")
    return f" {rest}" if rest else ""


def survival(entry: Expectation) -> Survival:
    """The five things a reader asks about, from the expectation's fields."""
    if not entry.survives and entry.disruption in LIFECYCLE:
        return Survival((), new_unit=True)
    states: list[tuple[str, str]] = []
    for layer, name in LAYER_NAMES:
        kept = entry.survives.get(layer)
        states.append((name, "not stated" if kept is None else ("kept" if kept else "lost")))
    relation: str = entry.relation_data
    if entry.app_relation_data != relation:
        relation += f" (unit databags; application databags {entry.app_relation_data})"
    states.append(("relation data", relation))
    identity: str = entry.unit_identity
    if entry.unit_name == "reused":
        identity += " (the unit name is reused)"
    states.append(("unit identity", identity))
    return Survival(tuple(states))


def details(entry: Expectation) -> tuple[tuple[str, str], ...]:
    """The rest of what the catalogue says about the unit afterwards, for a detail table."""
    rows = [
        ("pod", {"new": "new pod (new uid)", "same": "same pod (same uid)"}[entry.pod_uid]),
        ("restart counts", entry.restart_count),
        ("units affected", entry.unit_order.replace("-", " ")),
    ]
    if entry.app_relation_data != entry.relation_data:
        rows.append(("application relation data", entry.app_relation_data))
    if entry.unit_name != "kept":
        rows.append(("unit name", entry.unit_name))
    if entry.pebble_state is not None:
        rows.append(("Pebble state", entry.pebble_state))
    if entry.scope == "container":
        rows.append(("scope", "the restarted container only"))
    return tuple(rows)


def timing(entry: Expectation) -> str:
    """``grace period 30 s; stop has 30 s`` as ``repro predict`` says it."""
    grace = (
        f"grace period {entry.termination_grace_seconds} s"
        if entry.termination_grace_seconds is not None
        else "no grace period applies"
    )
    if entry.stop_budget_seconds is not None:
        stop = f"stop has {entry.stop_budget_seconds} s before the agent is killed"
    elif "stop" in entry.hooks:
        stop = "no time limit on stop is known"
    else:
        stop = "no stop runs"
    return f"{grace}; {stop}"
