"""``juju refresh --path`` on the jubilant driver hands a snap ``juju`` a charm it can read.

A strictly confined ``juju`` snap cannot read /tmp; jubilant copies a local charm (and local
resource files) into ``~/snap/juju/common`` before it runs ``juju deploy`` or ``juju refresh``
(jubilant 1.6 to 1.14, ``Juju._deploy_tempdir``; "If Juju is running as a snap, we can't use
/tmp" in ``Juju._temp_dir``). A run whose probe charm sits in /tmp deploys through jubilant,
so its charm-refresh and resource-refresh must reach ``juju`` the same way.

The real ``jubilant.Juju`` runs a fake ``juju`` under a ``/snap/`` path (how jubilant tells a
snap), which records each ``--path`` it is given and whether that file could be read then.
"""

from __future__ import annotations

from pathlib import Path

import jubilant
import pytest
from live_fakes import FakeClock
from started_processes import fake_juju

from harness.common.errors import HarnessError
from harness.live.jubilant_port import JubilantJujuPort

RECORD_PATHS = """
prev=""
for arg in "$@"; do
  if [ "$prev" = "--path" ]; then
    if [ -r "$arg" ]; then echo "readable $arg"; else echo "unreadable $arg"; fi >> "{log}"
  fi
  prev="$arg"
done
echo "$*" >> "{log}"
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def snap_port(tmp_path: Path) -> tuple[JubilantJujuPort, Path]:
    snap_bin = tmp_path / "snap" / "juju" / "bin"
    snap_bin.mkdir(parents=True)
    log = tmp_path / "juju-calls.log"
    script = fake_juju(snap_bin, RECORD_PATHS.format(log=log))
    port = JubilantJujuPort(
        jubilant.Juju(model="lab", cli_binary=script), clock=FakeClock(), call_timeout=30.0
    )
    return port, log


async def test_a_refresh_gives_a_snap_juju_a_copy_it_can_read(tmp_path: Path, home: Path) -> None:
    port, log = snap_port(tmp_path)
    charm = tmp_path / "build" / "probe.charm"  # under /tmp, as pytest's tmp_path is
    charm.parent.mkdir()
    charm.write_bytes(b"PK\x05\x06" + b"\0" * 18)

    await port.refresh("probe", path=str(charm), resources={"workload-image": "ubuntu:22.04"})

    lines = log.read_text().splitlines()
    readable = [line.split(" ", 1)[1] for line in lines if line.startswith("readable ")]
    assert len(readable) == 1, f"juju refresh got no readable --path: {lines}"
    assert readable[0].startswith(str(home / "snap" / "juju" / "common")), (
        f"a snap juju was handed {readable[0]}, outside ~/snap/juju/common"
    )
    command = lines[-1].split()
    assert command[:4] == ["refresh", "--model", "lab", "probe"]
    assert command[command.index("--resource") + 1] == "workload-image=ubuntu:22.04"


async def test_a_relative_charm_path_is_copied_too(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # jubilant copies only paths that start with "/" or "."; "build/probe.charm" would reach
    # the snap as it is, relative to a working directory it may not be allowed to read.
    port, log = snap_port(tmp_path)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "probe.charm").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    monkeypatch.chdir(tmp_path)

    await port.refresh("probe", path="build/probe.charm")

    (readable,) = [line for line in log.read_text().splitlines() if line.startswith("readable")]
    assert str(home / "snap" / "juju" / "common") in readable


async def test_refreshing_to_a_charm_directory_is_refused_in_one_line(
    tmp_path: Path, home: Path
) -> None:
    port, log = snap_port(tmp_path)
    charm_dir = tmp_path / "probe"
    charm_dir.mkdir()
    with pytest.raises(HarnessError, match=r"packed charm.*charmcraft pack") as raised:
        await port.refresh("probe", path=str(charm_dir))
    assert "\n" not in str(raised.value)
    assert not log.exists(), "juju was run with a charm directory"
