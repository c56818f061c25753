"""A deliberately broken live change, loaded into the harness as a pytest plugin
(``-p settle_ignores_required_hooks``): settle stops looking for the required hooks, so a
unit counts as done on its pod and the quiet window alone. The rehearsal must catch it.

Imported before any test runs; ``wait_settled`` looks ``_missing`` up at each look, so the
replacement is what every settle in the run uses.
"""

from __future__ import annotations

from collections.abc import Sequence

import harness.observe.settle as settle


def _nothing_missing(unit: object, required: Sequence[str]) -> tuple[str, ...]:
    return ()


setattr(settle, "_missing", _nothing_missing)  # noqa: B010 - a private name, on purpose
