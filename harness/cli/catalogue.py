"""``repro list`` and ``repro predict``: what the harness can run, and what the catalogue
expects of a disruption on a Juju version (also of those it cannot run yet: ``PREDICT_ONLY``)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from harness.catalogue.names import NAMES, PREDICT_ONLY
from harness.cli.arguments import judge_juju
from harness.common.errors import HarnessError, UnknownName, choose_one_of

if TYPE_CHECKING:
    from harness.cli.arguments import Subparsers


def add_parsers(sub: Subparsers) -> None:
    p = sub.add_parser("list", help="disruptions and scenarios, one line each")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("predict", help="what the catalogue expects for a disruption")
    p.add_argument(
        "disruption",
        metavar="DISRUPTION",
        help="a disruption `repro list` names (a scenario's name is answered with its disruption)",
    )
    p.add_argument("--juju", required=True, metavar="VERSION", help="e.g. 3.6 or 2.9.43")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--variant", metavar="BRANCH", help="one branch, e.g. interrupted-stop")
    p.add_argument(
        "--container", help="container-restart, container-kill: charm or a workload container"
    )
    p.add_argument(
        "--signal",
        help="container-restart: TERM (default), KILL or OOM; container-kill: KILL or OOM",
    )
    p.set_defaults(func=cmd_predict)


# --- list ------------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    from harness.scenario.podspec import PODSPEC_SCENARIOS
    from harness.scenario.scenarios import SCENARIOS

    named = (*(s.name for s in SCENARIOS), *(p.name for p in PODSPEC_SCENARIOS))
    width = max(len(n) for n in (*NAMES, *PREDICT_ONLY, *named))
    print("disruptions (repro run NAME: the default stack; add --bundle FILE --app APP):")
    for name in NAMES:
        print(f"  {name:<{width}}  {_summary(name)}".rstrip())
    print("scenarios (named reproductions on the default stack):")
    for s in SCENARIOS:
        bug = f" ({s.bug})" if s.bug else ""
        params = "".join(
            f" (container {t.container}, signal {t.signal or 'TERM'})"
            for t in s.targets
            if t.container
        )
        print(f"  {s.name:<{width}}  [{s.disruption}{params}] {s.summary}{bug}")
    print("podspec scenarios (their own stack: the podspec probe and the probe; Juju 2.9, 3.6):")
    for p in PODSPEC_SCENARIOS:
        print(f"  {p.name:<{width}}  [{p.disruption}] {p.summary} ({p.bug})")
    # Apart, and last: `repro run` refuses them; only `repro predict` answers.
    print("catalogued only, not yet runnable (repro predict NAME --juju VERSION):")
    for name in PREDICT_ONLY:
        print(f"  {name:<{width}}  {_catalogued_summary(name)}".rstrip())
    return 0


def _catalogued_summary(name: str) -> str:
    from harness.catalogue import load

    main = [e for e in load().entries if e.disruption == name and e.variant is None]
    return main[-1].summary if main else ""


def _summary(name: str) -> str:
    try:
        from harness.disrupt import get

        return str(get(name).summary)
    except (ImportError, HarnessError):
        return ""


# --- predict ---------------------------------------------------------------------------


def cmd_predict(args: argparse.Namespace) -> int:
    from harness.catalogue import load
    from harness.catalogue.predict import predict_json, predict_text

    judged = judge_juju(args.juju)
    version = judged.version
    catalogue = load()
    if args.disruption not in catalogue.disruptions():
        _refuse_a_scenario(args.disruption, args.juju)
        # What `repro list` shows; the catalogue's lifecycle entries are answered, not offered.
        raise UnknownName(
            f"unknown disruption {args.disruption!r}",
            choose_one_of(args.disruption, (*NAMES, *PREDICT_ONLY)) + "; `repro list` names them",
        )
    if args.container or args.signal or args.variant:
        branches: tuple[Any, ...] = (
            catalogue.expect(
                args.disruption,
                version,
                variant=args.variant,
                container=args.container,
                signal=args.signal,
            ),
        )
    else:
        branches = catalogue.branches(args.disruption, version)
    if args.format == "json":
        data = predict_json(branches)
        if judged.notes:  # how the version asked for was judged
            data["juju_notes"] = list(judged.notes)
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        for note in judged.notes:
            print(f"note: {note}")
        print(predict_text(branches, str(version) if judged.track else str(args.juju)))
    return 0


def _refuse_a_scenario(name: str, juju: str) -> None:
    """``repro list`` shows scenarios too; predict takes their disruption, so name it."""
    from harness.scenario.scenarios import SCENARIOS

    for s in SCENARIOS:
        if s.name == name:
            target = s.targets[0]
            container = f" --container {target.container}" if target.container else ""
            signal = f" --signal {target.signal}" if target.signal not in (None, "TERM") else ""
            raise HarnessError(
                f"{name} is a scenario, not a disruption",
                f"use: repro predict {s.disruption} --juju {juju}{container}{signal}",
            )
