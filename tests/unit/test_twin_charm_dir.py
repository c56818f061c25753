"""The charm directory the twin unpacks for a unit holds what a packed charm holds."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from harness.twin.charm_dir import add_dispatch, unpack

SHAPES = Path(__file__).parents[1] / "charms" / "shapes"


def test_the_charm_directory_has_charmcrafts_dispatch_which_runs_src_charm_py(
    tmp_path: Path,
) -> None:
    # Juju runs ./dispatch for every hook, and ops reads its presence as "Juju dispatches";
    # without it ops 2.x links hooks/<event> to hooks/install, which on the twin's charm
    # directory was a symlink loop (tox -e twin-floor: every twin run on ops 2.17 failed).
    charm_dir = tmp_path / "charm"
    charm_dir.mkdir()
    unpack(SHAPES, charm_dir)
    add_dispatch(charm_dir)

    dispatch = charm_dir / "dispatch"
    assert os.access(dispatch, os.X_OK)
    # It does what charmcraft's does: runs src/charm.py with the hook's name, lib/ and venv/
    # on the path. A stand-in charm.py shows what it was given.
    (charm_dir / "src" / "charm.py").write_text(
        '#!/bin/sh\necho "$JUJU_DISPATCH_PATH $PYTHONPATH $(pwd)"\n', encoding="utf-8"
    )
    (charm_dir / "src" / "charm.py").chmod(0o755)
    ran = subprocess.run(
        ["./dispatch"],
        cwd=charm_dir,
        env={"JUJU_DISPATCH_PATH": "hooks/install", "PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert ran.stdout.split() == ["hooks/install", "lib:venv", str(charm_dir)]


def test_a_charms_own_dispatch_is_kept(tmp_path: Path) -> None:
    (tmp_path / "dispatch").write_text("#!/bin/sh\n# the charm's own\n", encoding="utf-8")
    add_dispatch(tmp_path)
    assert (tmp_path / "dispatch").read_text(encoding="utf-8") == "#!/bin/sh\n# the charm's own\n"
