"""``juju refresh --path`` on the libjuju driver hands a snap ``juju`` a charm it can read.

The libjuju driver refreshes through the ``juju`` CLI (``JujuCLI.refresh``). The strictly
confined ``juju`` snap (3.x, 4.x) cannot read /tmp, where pytest-operator builds the probe
(``OpsTest.build_charm`` writes it under ``ops_test.tmp_path / "charms"``, pytest's
basetemp: /tmp/pytest-of-<user>/..., or .tox/<env>/tmp/pytest under tox). The jubilant
driver gets a copy under ``~/snap/juju/common`` from jubilant itself (``Juju._deploy_tempdir``,
test_jubilant_refresh.py); the libjuju driver now does the same.

Real objects: python-libjuju's ``Model`` (never connected: refresh does not use it),
pytest-operator's ``OpsTest`` for ``OpsTestJuju``, and a fake ``juju`` under a ``/snap/``
path that records each ``--path`` it is given, whether it could read it then, and its bytes.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import create_autospec

import pytest
from juju.model import Model
from live_fakes import FakeClock
from pytest_operator.plugin import OpsTest
from started_processes import fake_juju

from harness.live.juju_cli import JujuCLI, OpsTestJuju, SubprocessJuju
from harness.live.juju_port import LiveJujuPort

CHARM = b"PK\x05\x06" + b"\0" * 18

RECORD_PATHS = """
prev=""
for arg in "$@"; do
  if [ "$prev" = "--path" ] || [ "$prev" = "--resource" ]; then
    file="${{arg#*=}}"
    if [ -r "$file" ]; then echo "readable $file $(cksum < "$file")"; fi >> "{log}"
  fi
  prev="$arg"
done
if [ "$1" = "version" ]; then echo "3.6.1-genericlinux-amd64"; fi
echo "$*" >> "{log}"
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def juju_at(folder: Path, log: Path) -> Path:
    folder.mkdir(parents=True)
    return fake_juju(folder, RECORD_PATHS.format(log=log))


def ops_test_for(tmp_path: Path) -> Any:
    ops_test = create_autospec(OpsTest, instance=True)
    ops_test.jujudata = SimpleNamespace(path=str(tmp_path / "juju-data"))
    ops_test.model_full_name = "mk8s:admin/lab"
    return ops_test


def port(cli: JujuCLI) -> LiveJujuPort:
    return LiveJujuPort(Model(), cli, model_name="lab", clock=FakeClock())


def built_charm(tmp_path: Path) -> Path:
    """Where pytest-operator puts a charm it built: ops_test.tmp_path / "charms"."""
    charm = tmp_path / "pytest-of-user" / "pytest-1" / "lab0" / "charms" / "probe.charm"
    charm.parent.mkdir(parents=True)
    charm.write_bytes(CHARM)
    return charm


def nothing_left(common: Path, given: str) -> bool:
    return not Path(given).exists() and list(common.iterdir()) == []


def readable_paths(log: Path) -> list[str]:
    return [
        line.split(" ")[1] for line in log.read_text().splitlines() if line.startswith("readable ")
    ]


@pytest.mark.parametrize("runner", ["ops_test", "subprocess"])
async def test_a_snap_juju_is_given_a_copy_of_the_charm_it_can_read(
    tmp_path: Path, home: Path, runner: str
) -> None:
    log = tmp_path / "calls.log"
    script = juju_at(tmp_path / "snap" / "juju" / "current" / "bin", log)
    if runner == "ops_test":
        cli = JujuCLI(OpsTestJuju(ops_test_for(tmp_path), binary=str(script)))
    else:
        cli = JujuCLI(SubprocessJuju("lab", binary=str(script)))
    charm = built_charm(tmp_path)

    await port(cli).refresh("probe", path=str(charm))

    (given,) = readable_paths(log)
    common = home / "snap" / "juju" / "common"
    assert given.startswith(f"{common}/"), f"a snap juju was handed {given}"
    assert given.endswith(".charm")
    assert nothing_left(common, given), "the copy is removed once juju has answered"
    assert log.read_text().splitlines()[-1].startswith("refresh probe --path ")


async def test_a_local_resource_file_is_copied_and_an_image_reference_is_not(
    tmp_path: Path, home: Path
) -> None:
    log = tmp_path / "calls.log"
    script = juju_at(tmp_path / "snap" / "bin", log)
    cli = JujuCLI(SubprocessJuju("lab", binary=str(script)))
    oci = tmp_path / "image.json"
    oci.write_text('{"ImageName": "ubuntu/nginx:1.24"}')

    await port(cli).refresh(
        "probe",
        path=str(built_charm(tmp_path)),
        resources={"workload-image": str(oci), "other-image": "ubuntu/nginx:1.24"},
    )

    given = readable_paths(log)
    assert len(given) == 2
    assert all(p.startswith(str(home / "snap" / "juju" / "common")) for p in given)
    command = log.read_text().splitlines()[-1]
    assert "other-image=ubuntu/nginx:1.24" in command


async def test_a_juju_that_is_not_a_snap_gets_the_path_as_it_is(
    tmp_path: Path, home: Path
) -> None:
    log = tmp_path / "calls.log"
    script = juju_at(tmp_path / "usr" / "bin", log)
    charm = built_charm(tmp_path)

    await port(JujuCLI(SubprocessJuju("lab", binary=str(script)))).refresh(
        "probe", path=str(charm)
    )

    assert readable_paths(log) == [str(charm)]
    assert not (home / "snap").exists()
