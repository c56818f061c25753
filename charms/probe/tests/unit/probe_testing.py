"""Helpers shared by the probe's unit tests (a unique module name: tests/unit has its own
conftest.py, so importing helpers from "conftest" would be ambiguous)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from ops import testing

PROBE_DIR = Path(__file__).resolve().parents[2]
SRC = PROBE_DIR / "src"
if str(SRC) not in sys.path:  # tox sets PYTHONPATH; a bare `pytest` run does not
    sys.path.insert(0, str(SRC))

from charm import ProbeCharm  # noqa: E402
from journal import read_journal  # noqa: E402
from paths import JOURNAL_FILE  # noqa: E402

CHARMCRAFT_YAML = PROBE_DIR / "charmcraft.yaml"
JUJU_VERSION = "3.6.4"
POD = "probe-0"
UNIT = "probe/0"


def charmcraft() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(CHARMCRAFT_YAML.read_text())
    return data


def make_context(charm_dir: Path, juju_version: str = JUJU_VERSION) -> testing.Context[ProbeCharm]:
    """A Context whose charm directory persists across runs, as on a real pod."""
    return testing.Context(
        ProbeCharm, meta=charmcraft(), charm_root=charm_dir, juju_version=juju_version
    )


def journal_path(ctx: testing.Context[ProbeCharm], storage: testing.Storage) -> Path:
    return storage.get_filesystem(ctx) / JOURNAL_FILE


def journal_entries(
    ctx: testing.Context[ProbeCharm], storage: testing.Storage
) -> list[dict[str, Any]]:
    return list(read_journal(journal_path(ctx, storage)).entries)
