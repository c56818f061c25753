"""Fixtures shared by the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from started_processes import StartedProcesses


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[StartedProcesses]:
    """Every process started while the test runs; any left running is killed after it."""
    processes = StartedProcesses().install(monkeypatch)
    yield processes
    processes.kill_left()
