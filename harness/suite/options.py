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

    def usage_problem(self, require_live: bool) -> str | None:
        """One line naming a bad option and its fix, or None: checked before any test runs."""
        from harness.common.errors import HarnessError
        from harness.common.versions import JujuVersion

        if require_live and self.backend != "live":
            return f"--require-live needs --backend live (the backend is {self.backend})"
        if self.backend == "twin":
            try:
                from harness.catalogue import load

                load().expect("deploy", JujuVersion.parse(self.juju_version))
            except (ValueError, HarnessError) as bad:
                return f"--juju-version {self.juju_version}: {bad}"
        return None
