"""Fixtures for the probe charm's state-transition tests (ops.testing).

Every test gets its own charm-container root (PROBE_ROOTFS), charm directory and pod
name, so no test writes to the real /tmp/probe and tests do not see each other.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ops import testing
from probe_testing import POD, ProbeCharm, make_context


@pytest.fixture(autouse=True)
def rootfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private charm-container root and a pod name (Kubernetes sets HOSTNAME)."""
    root = tmp_path / "rootfs"
    root.mkdir()
    monkeypatch.setenv("PROBE_ROOTFS", str(root))
    monkeypatch.setenv("HOSTNAME", POD)
    return root


@pytest.fixture
def charm_dir(tmp_path: Path) -> Path:
    path = tmp_path / "charm"
    path.mkdir()
    return path


@pytest.fixture
def ctx(charm_dir: Path) -> testing.Context[ProbeCharm]:
    return make_context(charm_dir)


@pytest.fixture
def storage() -> testing.Storage:
    return testing.Storage("journal")


@pytest.fixture
def workload() -> testing.Container:
    return testing.Container("workload", can_connect=True)
