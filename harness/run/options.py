"""``repro run``'s options, read once from the command line into a value.

The CLI turns its ``argparse.Namespace`` into ``RunOptions`` at the edge; the launcher and
the bundle run take this value, so nothing past the CLI reads argparse's attributes. The
values are as given (a Juju version or a model name is checked by the CLI, in its order),
but a disruption only catalogued (``repro predict``) is refused here, before anything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.scenario.scenarios import refuse_predict_only

if TYPE_CHECKING:
    import argparse


@dataclass(frozen=True)
class RunOptions:
    scenario: str  # a named scenario, or a disruption (with --bundle, or the default stack)
    backend: str  # as asked for: auto, live or twin
    juju: str | None
    app: str | None
    unit: str | None  # one unit of the disrupted app (pod-delete, container-restart)
    evidence_dir: str
    model: str | None
    keep_model: bool
    dry_run: bool
    probe_charm: str | None
    bundle: str | None
    overlay: tuple[str, ...]
    watch: tuple[str, ...]
    mark: tuple[str, ...]
    charm_source: tuple[str, ...]
    charm_venv: tuple[str, ...]
    no_probe: bool
    juju_driver: str
    inherit_model_config: bool
    allow_node_restart: bool = False  # live: a disruption that stops MicroK8s may run
    redact: tuple[str, ...] = ()  # keys whose values the evidence never shows

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RunOptions:
        refuse_predict_only(str(args.scenario))  # before a backend, a bundle or a folder
        return cls(
            scenario=str(args.scenario),
            backend=str(args.backend),
            juju=args.juju,
            app=args.app,
            unit=args.unit,
            evidence_dir=str(args.evidence_dir),
            model=args.model,
            keep_model=bool(args.keep_model),
            dry_run=bool(args.dry_run),
            probe_charm=args.probe_charm,
            bundle=args.bundle,
            overlay=tuple(args.overlay or ()),
            watch=tuple(args.watch or ()),
            mark=tuple(args.mark or ()),
            charm_source=tuple(args.charm_source or ()),
            charm_venv=tuple(getattr(args, "charm_venv", None) or ()),
            no_probe=bool(args.no_probe),
            juju_driver=str(args.juju_driver),
            inherit_model_config=bool(args.inherit_model_config),
            allow_node_restart=bool(getattr(args, "allow_node_restart", False)),
            redact=tuple(args.redact or ()),
        )
