"""The rehearsal suite (``tox -e rehearsal``): the live path against rehearsal worlds.

Each test runs one case (``rehearsal.runner``): a world, then the harness as a runner runs
it, each in a process group of its own, ended when the case ends. Cases run in parallel
under pytest-xdist; each writes under pytest's tmp folder (kept for a failure).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    # ``rehearsal`` is not an installed package; appended, so that the harness itself is
    # still the one installed in the environment.
    sys.path.append(str(ROOT))
