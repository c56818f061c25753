"""The harness's pytest options, read once into a value."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class HarnessOptions:
    backend: str
    juju_version: str
    evidence_dir: Path
    probe_charm: str | None
    mysql_channel: str
    router_channel: str
    allow_node_restart: bool
    juju_driver: str = "auto"

    @classmethod
    def from_config(cls, config: pytest.Config) -> HarnessOptions:
        return cls(
            backend=str(config.getoption("--backend")),
            juju_version=str(config.getoption("--juju-version")),
            evidence_dir=Path(str(config.getoption("--evidence-dir"))),
            probe_charm=config.getoption("--probe-charm"),
            mysql_channel=str(config.getoption("--mysql-channel")),
            router_channel=str(config.getoption("--router-channel")),
            allow_node_restart=bool(config.getoption("--allow-node-restart")),
            juju_driver=str(config.getoption("--juju-driver")),
        )
