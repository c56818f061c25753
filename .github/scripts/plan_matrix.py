#!/usr/bin/env python3
"""Plan the live integration matrix for .github/workflows/integration.yaml.

Scheduled runs, pushes to main and a dispatch with `full-matrix` get the full matrix below.
A pull request gets one smoke cell (SMOKE: one pair, one scenario), not hours on four runners
for every push. Any other dispatch collapses the matrix to the one (Juju, MicroK8s, scenario)
combination a person asked for, so a bug report can link a run on the reporter's own
versions. Writes `matrix=<json>` to $GITHUB_OUTPUT (stdout when
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

# Juju 3 and 4 are strictly confined and refuse classic MicroK8s ("juju ... can only work
# with strictly confined microk8s"; juju main: snap/snapcraft.yaml,
# caas/kubernetes/provider/builtin.go). The Juju 2.9 client snap is classic (juju/juju PR
# 13664) and reads either: canonical/postgresql-k8s-operator and mysql-k8s-operator run their
# Juju 2.9 jobs on concierge's default, the newest -strict channel (spread.yaml on main, 2026).
# Juju's snap tracks 3.0 to 3.5 are closed: "The available tracks are 2.9, 3, 3.6, 4.0, and
# 4" (canonical/concierge PR 122, 2025-11-20, after the 3.5 track was removed;
# canonical/stsstack-bundles issue 346: 3.4 and 3.5 are gone), so 3.x is 3.6 here.
CLOSED_JUJU_TRACKS = frozenset({"3.0", "3.1", "3.2", "3.3", "3.4", "3.5"})

# Strict MicroK8s up to 1.31 cannot run pods on the ubuntu-24.04 runner: the containerd
# AppArmor profile it ships has no network rules, so a kernel that mediates the net class
# refuses every container a socket (canonical/concierge issue 253, from a runner's kernel log,
# 2026-08-29). Juju's CI moved to 1.34-strict on Ubuntu 24.04 for this (juju/juju PR 20697,
# where 1.32 still failed); on 7.x kernels strict <= 1.33 cannot load the profile at all
# (canonical/concierge PR 267, open, which moves concierge to 1.36-strict). 1.32 and 1.33
# depend on the runner's kernel, so they are allowed (README).
# Strictly confined since 1.25: https://canonical.com/blog/strictly-confined-microk8s
FIRST_STRICT_MINOR = 25
FIRST_NETWORKING_STRICT_MINOR = 32
STRICT_FOR_JUJU = "1.34-strict/stable"
DEFAULT_COMBINATIONS: tuple[tuple[str, str], ...] = (
    # Classic 1.28 is past Kubernetes' end of life but still published (the store keeps every
    # MicroK8s track back to 1.10); a newer one is not yet shown to work with Juju 2.9 (README).
    ("2.9/stable", "1.28/stable"),
    ("3.6/stable", STRICT_FOR_JUJU),
    ("3.6/stable", "1.36-strict/stable"),
    # Juju 4.0, driven by jubilant (python-libjuju has no 4.x).
    ("4.0/stable", "1.36-strict/stable"),
)

# A pull request's one live cell: the README's main setup (Juju 3.6 on the MicroK8s channel
# it recommends) and its main reproduction.
SMOKE: tuple[str, str] = ("3.6/stable", STRICT_FOR_JUJU)
SMOKE_SCENARIO = "lp2021891-pod-delete"

SCENARIO_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# <major>.<minor>/<risk>, or a major-only track ("3", "4": the store keeps both).
JUJU_CHANNEL = re.compile(r"^(?P<major>\d+)(?:\.(?P<minor>\d+))?/(stable|candidate|beta|edge)$")
# MicroK8s tracks are <version>, <version>-strict and <version>-eksd (`snap info microk8s`);
# a -classic suffix is the k8s snap's naming and is caught to say so.
MICROK8S_CHANNEL = re.compile(
    r"^(?:1\.(?P<minor>\d+)(?P<strict>-strict)?(?P<classic>-classic)?|latest)"
    r"/(stable|candidate|beta|edge)$"
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
            f"use e.g. {STRICT_FOR_JUJU} (Juju 2.9, 3 and 4) or 1.28/stable (Juju 2.9)"
        )
    if match["classic"]:
        raise PlanError(
            f"microk8s-channel {microk8s_channel!r}: MicroK8s has no -classic tracks (that is "
            f"the k8s snap's naming); use {STRICT_FOR_JUJU}, or 1.28/stable for Juju 2.9"
        )
    minor = None if match["minor"] is None else int(match["minor"])
    strict = match["strict"] is not None
    if strict and minor is not None and minor < FIRST_STRICT_MINOR:
        raise PlanError(
            f"microk8s-channel {microk8s_channel!r}: MicroK8s has no strictly confined track "
            f"before 1.{FIRST_STRICT_MINOR}; use {STRICT_FOR_JUJU}"
        )
    if strict and minor is not None and minor < FIRST_NETWORKING_STRICT_MINOR:
        raise PlanError(
            f"microk8s-channel {microk8s_channel!r} cannot run pods on the ubuntu-24.04 runner "
            "(its containerd AppArmor profile has no network rules: canonical/concierge issue "
            f"253); use {STRICT_FOR_JUJU}"
        )
    if _major(juju_channel) >= 3 and not strict:
        networking = minor is not None and minor >= FIRST_NETWORKING_STRICT_MINOR
        suggestion = f"1.{minor}-strict/stable" if networking else STRICT_FOR_JUJU
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
    full = tuple(make_job(juju, mk8s) for juju, mk8s in DEFAULT_COMBINATIONS)
    if event == "pull_request":
        return (make_job(*SMOKE, SMOKE_SCENARIO),)
    if event != "workflow_dispatch":
        return full  # schedule, push (to main: the workflow's filter), or run by hand
    if inputs.get("full-matrix", "").strip().lower() == "true":
        return full
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
        "full-matrix": os.environ.get("DISPATCH_FULL_MATRIX", ""),
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
