#!/usr/bin/env python3
"""Plan the live integration matrix for .github/workflows/integration.yaml.

Scheduled and pull-request runs get the full matrix below. A manual dispatch collapses it to
the one (Juju, MicroK8s, scenario) combination a person asked for, so a bug report can link a
run on the reporter's own versions. Writes `matrix=<json>` to $GITHUB_OUTPUT (stdout when
unset). Standard library only: the plan job runs on the runner's system Python.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

# The last python-libjuju 2.9 release (`pip index versions juju`); 3.x clients talk to any
# 3.x controller, so 3.x only sets a floor.
LIBJUJU_2_9 = "==2.9.49.1"
# python-libjuju has no 4.x: Juju 4 is driven through jubilant (harness/live/drivers.py).
# libjuju 3 is still installed (the harness depends on it) but never connects.
LIBJUJU_FOR_JUJU_4 = ">=3.6,<4"

# Juju 2.9 is a classic snap and reads classic MicroK8s; Juju 3 and 4 are strictly confined
# and refuse classic MicroK8s ("juju ... can only work with strictly confined microk8s";
# juju main: snap/snapcraft.yaml, caas/kubernetes/provider/builtin.go).
# Juju's snap tracks 3.0 to 3.5 are closed: "The available tracks are 2.9, 3, 3.6, 4.0, and
# 4" (canonical/concierge PR 122, 2025-11-20, after the 3.5 track was removed;
# canonical/stsstack-bundles issue 346: 3.4 and 3.5 are gone), so 3.x is 3.6 here.
CLOSED_JUJU_TRACKS = frozenset({"3.0", "3.1", "3.2", "3.3", "3.4", "3.5"})
DEFAULT_COMBINATIONS: tuple[tuple[str, str], ...] = (
    ("2.9/stable", "1.28/stable"),
    ("3.6/stable", "1.28-strict/stable"),
    ("3.6/stable", "1.31-strict/stable"),
    # Juju 4.0, driven by jubilant (python-libjuju has no 4.x).
    ("4.0/stable", "1.31-strict/stable"),
)

SCENARIO_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# <major>.<minor>/<risk>, or a major-only track ("3", "4": the store keeps both).
JUJU_CHANNEL = re.compile(r"^(?P<major>\d+)(?:\.(?P<minor>\d+))?/(stable|candidate|beta|edge)$")
MICROK8S_CHANNEL = re.compile(
    r"^(?P<track>1\.\d+(?P<strict>-strict)?(-classic)?|latest)/(stable|candidate|beta|edge)$"
)
RISKS = "stable|candidate|beta|edge"


class PlanError(Exception):
    """A dispatch input that cannot be run; the message says what to type instead."""


@dataclass(frozen=True)
class Job:
    juju: str
    microk8s: str
    libjuju: str
    id: str
    select: str
    driver: str  # the harness's --juju-driver: libjuju (2.9, 3.x) or jubilant (4.x)


def libjuju_specifier(juju_channel: str) -> str:
    match = JUJU_CHANNEL.match(juju_channel)
    if match is None:
        raise PlanError(
            f"juju-channel {juju_channel!r} is not a Juju snap channel; "
            f"use <major>.<minor>/<risk> with risk one of {RISKS}, e.g. 3.6/stable"
        )
    track = match["major"] if match["minor"] is None else f"{match['major']}.{match['minor']}"
    if track in CLOSED_JUJU_TRACKS:
        raise PlanError(
            f"juju-channel {juju_channel!r}: Juju's {track} snap track is closed (the store "
            "keeps 2.9, 3, 3.6, 4.0 and 4); use 3.6/stable, the 3.x it still publishes"
        )
    if match["major"] == "3":
        # The "3" track serves 3.6, the last 3.x (canonical/concierge PR 122).
        return f">=3.{match['minor'] or 6},<4"
    if match["major"] == "2" and match["minor"] == "9":
        return LIBJUJU_2_9
    if match["major"] == "4":
        return LIBJUJU_FOR_JUJU_4
    raise PlanError(
        f"juju-channel {juju_channel!r}: the live suite drives Juju 2.9, 3.x (python-libjuju) "
        "and 4.x (jubilant); use 2.9/stable, a 3.x channel such as 3.6/stable, or 4.0/stable"
    )


def _major(juju_channel: str) -> int:
    match = JUJU_CHANNEL.match(juju_channel)
    return int(match["major"]) if match else 0


def juju_driver(juju_channel: str) -> str:
    """The harness's driver for a Juju channel (the same rule as harness/live/drivers.py)."""
    return "jubilant" if _major(juju_channel) >= 4 else "libjuju"


def check_pair(juju_channel: str, microk8s_channel: str) -> None:
    match = MICROK8S_CHANNEL.match(microk8s_channel)
    if match is None:
        raise PlanError(
            f"microk8s-channel {microk8s_channel!r} is not a MicroK8s snap channel; "
            "use e.g. 1.31-strict/stable (Juju 3) or 1.28/stable (Juju 2.9)"
        )
    strict = match["strict"] is not None
    if _major(juju_channel) == 2 and strict:
        raise PlanError(
            f"Juju {juju_channel} needs a classic MicroK8s channel; "
            f"use {microk8s_channel.replace('-strict', '')} instead of {microk8s_channel}"
        )
    if _major(juju_channel) >= 3 and not strict:
        track = match["track"]
        suggestion = "1.31-strict/stable" if track == "latest" else f"{track}-strict/stable"
        raise PlanError(
            f"Juju {juju_channel} only works with strictly confined MicroK8s; "
            f"use {suggestion} instead of {microk8s_channel}"
        )


def select_expression(scenario: str) -> str:
    """A pytest -k expression matching the scenario's test ids in kebab or snake case."""
    return f"{scenario} or {scenario.replace('-', '_')}"


def job_id(juju_channel: str, microk8s_channel: str) -> str:
    # Artifact names may not contain "/"; keep them readable in the run's artifact list.
    return f"juju-{juju_channel}-microk8s-{microk8s_channel}".replace("/", "-")


def make_job(juju_channel: str, microk8s_channel: str, scenario: str = "") -> Job:
    libjuju = libjuju_specifier(juju_channel)
    check_pair(juju_channel, microk8s_channel)
    select = select_expression(scenario) if scenario else ""
    return Job(
        juju_channel,
        microk8s_channel,
        libjuju,
        job_id(juju_channel, microk8s_channel),
        select,
        juju_driver(juju_channel),
    )


def plan(event: str, inputs: Mapping[str, str]) -> tuple[Job, ...]:
    if event != "workflow_dispatch":
        return tuple(make_job(juju, mk8s) for juju, mk8s in DEFAULT_COMBINATIONS)
    juju = inputs.get("juju-channel", "").strip()
    mk8s = inputs.get("microk8s-channel", "").strip()
    scenario = inputs.get("scenario", "").strip()
    # GitHub already limits a `choice` input to its options; this keeps anything else out of
    # the pytest -k expression should the input type ever change.
    if not SCENARIO_NAME.match(scenario):
        raise PlanError(
            f"scenario {scenario!r} is not a scenario name; pick one from the dispatch form"
        )
    return (make_job(juju, mk8s, scenario),)


def main(argv: Sequence[str]) -> int:
    inputs = {
        "juju-channel": os.environ.get("DISPATCH_JUJU_CHANNEL", ""),
        "microk8s-channel": os.environ.get("DISPATCH_MICROK8S_CHANNEL", ""),
        "scenario": os.environ.get("DISPATCH_SCENARIO", ""),
    }
    try:
        jobs = plan(os.environ.get("GITHUB_EVENT_NAME", ""), inputs)
    except PlanError as error:
        # A GitHub annotation: one line, shown on the run page.
        print(f"::error title=Cannot plan the integration matrix::{error}")
        return 1
    matrix = json.dumps({"include": [asdict(job) for job in jobs]}, separators=(",", ":"))
    output = os.environ.get("GITHUB_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as sink:
            sink.write(f"matrix={matrix}\n")
    print(json.dumps({"include": [asdict(job) for job in jobs]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
