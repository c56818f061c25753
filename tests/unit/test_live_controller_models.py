"""``controller_models``: the models a controller has, asked before pytest-operator makes one."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from harness.live.drivers import controller_models

LISTING = {
    "models": [
        {"name": "admin/controller", "short-name": "controller"},
        {"name": "admin/welcome"},  # no short-name: the name's last part
    ],
    "current-model": "welcome",
}


def juju_script(folder: Path, body: str) -> str:
    script = folder / "juju"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_names_are_short_and_the_controller_is_the_one_asked_for(tmp_path: Path) -> None:
    args = tmp_path / "args"
    binary = juju_script(
        tmp_path, f"echo \"$@\" > '{args}'\ncat <<'EOF'\n{json.dumps(LISTING)}\nEOF"
    )

    assert controller_models("mk8s", binary=binary) == ("controller", "welcome")
    assert args.read_text().split() == ["models", "--format", "json", "--controller", "mk8s"]


def test_a_juju_that_fails_or_hangs_gives_unknown_not_no_models(tmp_path: Path) -> None:
    failing = tmp_path / "failing"
    failing.mkdir()
    hanging = tmp_path / "hanging"
    hanging.mkdir()

    assert (
        controller_models(binary=juju_script(failing, "echo 'ERROR no controller' >&2; exit 1"))
        is None
    )
    assert controller_models(binary=juju_script(hanging, "exec sleep 30"), timeout=0.5) is None
    assert controller_models(binary=str(tmp_path / "missing")) is None
    odd = tmp_path / "odd"
    odd.mkdir()
    assert controller_models(binary=juju_script(odd, "echo '{\"error\": 1}'")) is None
