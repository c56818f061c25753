"""A charm's ``assumes`` block, judged as Juju judges it before it deploys or refreshes.

Juju refuses a charm whose ``assumes`` the model cannot satisfy ("Charm feature requirements
cannot be met"; juju/juju core/assumes, tested by TestDeployWithUnmetCharmRequirements), so a
charm that declares ``juju < 4`` never reaches a 4.0 model: mysql-k8s did on every branch up to
January 2026 (canonical/mysql-k8s-operator metadata.yaml; Juju 4 support was proposed in its
PR 696). The grammar is juju/charm assumes/parser.go: a list (all of), ``any-of`` and ``all-of``
blocks, and features written ``name``, ``name >= X`` or ``name < X``. Versions compare as
juju/version Number.Compare does: major, minor, then a release above its betas, patch, build.

Only what the harness can know is judged: the ``juju`` feature against the Juju version, and
``k8s-api`` as present on a Kubernetes model (its version is not known, so a versioned
``k8s-api`` is never refused). Any other feature, or a block Juju would not parse, leaves the
answer to Juju: nothing here refuses what Juju might accept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.common.errors import HarnessError

_FEATURE = re.compile(r"^([a-z][a-z0-9-]*?[a-z0-9]+)\s*(?:(>=|<)\s*(\S+))?$")
_NUMBER = re.compile(r"^(\d+)(?:\.(\d+))?(?:(?:\.|-([a-z]+))(\d+))?(?:\.(\d+))?$")

# What Juju's own refusal says, in every version we read (core/assumes/error.go wording).
REFUSAL_MARKERS = ("Charm feature requirements cannot be met", "Charm cannot be deployed because")


@dataclass(frozen=True, order=True)
class _Number:
    major: int
    minor: int
    release: bool  # a release sorts above its betas: 4.0-beta5 < 4.0.0
    tag: str
    patch: int
    build: int

    @classmethod
    def parse(cls, text: str) -> _Number | None:
        match = _NUMBER.match(text.strip())
        if not match:
            return None
        major, minor, tag, patch, build = match.groups()
        return cls(
            int(major), int(minor or 0), not tag, tag or "", int(patch or 0), int(build or 0)
        )

    def __str__(self) -> str:
        if self.tag:
            text = f"{self.major}.{self.minor}-{self.tag}{self.patch}"
        else:
            text = f"{self.major}.{self.minor}.{self.patch}"
        return f"{text}.{self.build}" if self.build else text


class _Unknown(Exception):
    """The block says something the harness cannot judge: Juju decides."""


def unmet_assumes(assumes: object, juju_version: str, *, kubernetes: bool = True) -> str | None:
    """Why Juju ``juju_version`` would refuse a charm with this ``assumes``, or None.

    None also when the block cannot be judged here (an unknown feature, a malformed block, a
    version that does not parse). The reason is one line, in Juju's words.
    """
    if not assumes:
        return None
    have = _Number.parse(juju_version)
    if have is None or not isinstance(assumes, Sequence) or isinstance(assumes, str):
        return None
    try:
        reasons = _all_of(assumes, have, kubernetes)
    except _Unknown:
        return None
    return "; ".join(reasons) or None


ALL_OF = "charm requires all of the following:"
ANY_OF = "charm requires at least one of the following:"


@dataclass(frozen=True)
class _Reason:
    """One unmet requirement, with the unmet ones within it (an all-of or any-of block)."""

    text: str
    within: tuple[_Reason, ...] = ()


def _render(reason: _Reason) -> str:
    """One line; a block's reasons in brackets, so alternatives never read as all needed."""
    if len(reason.within) == 1:  # a block with one unmet reason says just that reason
        return _render(reason.within[0])
    if not reason.within:
        return reason.text
    inner = "; ".join(_render(sub) for sub in reason.within)
    return f"{reason.text.rstrip(':')}: [{inner}]"


def _all_of(items: Sequence[object], have: _Number, kubernetes: bool) -> list[str]:
    return [_render(reason) for item in items for reason in _judge(item, have, kubernetes)]


def _judge(item: object, have: _Number, kubernetes: bool) -> list[_Reason]:
    """The unmet requirements in one expression: [] when it is met."""
    if isinstance(item, Mapping):
        if len(item) != 1:
            raise _Unknown
        ((kind, subs),) = item.items()
        if kind not in ("any-of", "all-of") or not isinstance(subs, list):
            raise _Unknown
        unmet = [_judge(sub, have, kubernetes) for sub in subs]
        flat = tuple(reason for reasons in unmet for reason in reasons)
        if kind == "all-of":
            return [_Reason(ALL_OF, flat)] if flat else []
        # Juju refuses an any-of only when one of its blocks failed and none was met
        # (satisfyCompositeExpr): an empty any-of is met.
        if not subs or any(not reasons for reasons in unmet):
            return []
        return [_Reason(ANY_OF, flat)]
    if not isinstance(item, str):
        raise _Unknown
    match = _FEATURE.match(item.strip())
    if not match:
        raise _Unknown
    name, op, wanted = match.groups()
    if name == "k8s-api" and kubernetes and op is None:
        return []
    if name != "juju":
        raise _Unknown  # any other feature (or a versioned k8s-api): Juju decides
    if op is None:
        return []
    need = _Number.parse(wanted)
    if need is None:
        raise _Unknown
    met = have >= need if op == ">=" else have < need
    if met:
        return []
    return [_Reason(f"charm requires Juju version {op} {need}, model has version {have}")]


def juju_refusal(message: str) -> str | None:
    """Juju's reasons, on one line, when ``message`` is its refusal of a charm's assumes.

    Juju prints them as an indented list, a block's reasons under it; the indentation is
    read back into blocks so an any-of's alternatives stay alternatives.
    """
    if not any(marker in message for marker in REFUSAL_MARKERS):
        return None
    top: list[_Node] = []
    open_blocks: list[tuple[int, list[_Node]]] = [(-1, top)]
    for line in message.splitlines():
        text = line.strip().removeprefix("-").strip()
        if not text.startswith("charm requires"):
            continue  # the header, the feature descriptions, a blank line
        indent = len(line) - len(line.lstrip())
        while open_blocks[-1][0] >= indent:
            open_blocks.pop()
        within: list[_Node] = []
        open_blocks[-1][1].append((text, within))
        open_blocks.append((indent, within))
    reasons = [_render(_frozen(node)) for node in top]
    return "; ".join(reasons) or "Charm feature requirements cannot be met"


_Node = tuple[str, list["_Node"]]


def _frozen(node: _Node) -> _Reason:
    text, within = node
    return _Reason(text, tuple(_frozen(sub) for sub in within))


REFUSED_FIX = (
    "deploy a revision whose assumes admit this Juju (--mysql-channel or --router-channel for "
    "the default stack, the application's channel or revision in a bundle), or use a Juju "
    "version the charm supports"
)


def refused_deploy(
    app: str, charm: str, channel: str | None, revision: int | None, message: str
) -> HarnessError | None:
    """The error to raise when ``message`` is Juju refusing ``app``'s charm for its assumes."""
    reason = juju_refusal(message)
    if reason is None:
        return None
    what = " ".join(
        part
        for part in (charm, channel, f"revision {revision}" if revision is not None else None)
        if part
    )
    return HarnessError(f"Juju refused to deploy {app} ({what}): {reason}", REFUSED_FIX)


def refused_refresh(app: str, target: str, message: str) -> HarnessError | None:
    """The error to raise when ``message`` is Juju refusing to refresh ``app`` to ``target``
    for its assumes (juju refresh checks them as deploy does)."""
    reason = juju_refusal(message)
    if reason is None:
        return None
    return HarnessError(
        f"Juju refused to refresh {app} ({target}): {reason}",
        "refresh to a charm whose assumes admit this Juju, or upgrade the model's Juju to a "
        "version the charm supports",
    )


def simulated_refusal(meta: Mapping[str, object], juju_version: str) -> HarnessError | None:
    """The twin's refusal of a charm whose ``assumes`` this Juju version would refuse."""
    reason = unmet_assumes(meta.get("assumes"), juju_version)
    if reason is None:
        return None
    name = meta.get("name") or "the charm"
    return HarnessError(
        f"SIMULATED: Juju {juju_version} would refuse to deploy {name}: {reason}",
        "simulate a Juju version the charm's assumes admit (run_disruption(juju_version=...), "
        "repro --juju, pytest --juju-version)",
    )
