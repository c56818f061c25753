"""``controller_models``: the models a controller has, asked before pytest-operator makes one."""

from __future__ import annotations

import json
from pathlib import Path

from started_processes import fake_juju

from harness.live.drivers import controller_models

LISTING = {
    "models": [
        {"name": "admin/controller", "short-name": "controller"},
        {"name": "admin/welcome"},  # no short-name: the name's last part
    ],
    "current-model": "welcome",
}


def juju_in(folder: Path, body: str) -> str:
    """A fake ``juju`` in its own ``folder`` (made here), as a path string."""
    folder.mkdir(exist_ok=True)
    return str(fake_juju(folder, body))


def test_names_are_short_and_the_controller_is_the_one_asked_for(tmp_path: Path) -> None:
    args = tmp_path / "args"
    binary = juju_in(tmp_path, f"echo \"$@\" > '{args}'\ncat <<'EOF'\n{json.dumps(LISTING)}\nEOF")

    assert controller_models("mk8s", binary=binary) == ("controller", "welcome")
    assert args.read_text().split() == ["models", "--format", "json", "--controller", "mk8s"]


def test_a_juju_that_fails_hangs_or_prints_no_listing_gives_unknown_not_no_models(
    tmp_path: Path,
) -> None:
    failing = juju_in(tmp_path / "failing", "echo 'ERROR no controller' >&2; exit 1")
    hanging = juju_in(tmp_path / "hanging", "exec sleep 30")
    odd = juju_in(tmp_path / "odd", "echo '{\"error\": 1}'")

    assert controller_models(binary=failing) is None
    assert controller_models(binary=hanging, timeout=0.5) is None
    assert controller_models(binary=str(tmp_path / "missing")) is None
    assert controller_models(binary=odd) is None
