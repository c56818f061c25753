"""Every identifier the twin invents has the form Juju gives it (research §9).

- model uuid: version 4, as juju/utils NewUUID makes it; cosl's JujuTopology accepts only a
  string for which ``str(UUID(text, version=4)) == text`` (cos-lib juju_topology.py
  ``is_valid_uuid``), and most Canonical charms build one in every hook;
- relation ids: a model-wide sequence from 0 (state/sequence.go returns the value before
  its increment);
- unit names ``<app>/<ordinal>``; action ids numeric from 1; secret ids ``secret:`` and 20
  characters of ``[0-9a-z]`` (core/secrets/secret.go ``idSnippet``);
- service addresses in MicroK8s' service range (10.152.183.0/24).
"""

from __future__ import annotations

import ipaddress
import re
import uuid
from pathlib import Path
from typing import Any

import ops

from harness.lab.ports import AppSpec
from harness.twin import make_lab
from harness.twin.charms import CharmSource
from harness.twin.names import MODEL_UUID

SEEN: list[dict[str, Any]] = []


def cosl_valid_uuid(text: str) -> bool:
    """cos-lib ``JujuTopology.is_valid_uuid``, as written there."""
    try:
        return str(uuid.UUID(text, version=4)) == text
    except (ValueError, TypeError):
        return False


class Seer(ops.CharmBase):
    def __init__(self, framework: ops.Framework) -> None:
        super().__init__(framework)
        for event in (self.on.install, self.on.start, self.on.config_changed):
            framework.observe(event, self._seen)
        framework.observe(self.on["peers"].relation_created, self._seen)
        framework.observe(self.on.ids_action, self._action)

    def _seen(self, event: ops.EventBase) -> None:
        secret_id = None
        if self.unit.is_leader():
            secret_id = self.app.add_secret({"token": "value"}).id
        SEEN.append(
            {
                "uuid": self.model.uuid,
                "unit": self.unit.name,
                "relations": [r.id for r in self.model.relations["peers"]],
                "secret": secret_id,
            }
        )

    def _action(self, event: ops.ActionEvent) -> None:
        event.set_results({"id": event.id})


META = {
    "name": "seer",
    "containers": {"app": {"resource": "app-image"}},
    "peers": {"peers": {"interface": "seer_peers"}},
    "actions": {"ids": {}},
}


def test_the_model_uuid_is_a_version_4_uuid_as_juju_and_cosl_want() -> None:
    assert cosl_valid_uuid(MODEL_UUID), MODEL_UUID
    assert uuid.UUID(MODEL_UUID).version == 4


async def test_what_a_charm_sees_is_what_juju_gives(tmp_path: Path) -> None:
    SEEN.clear()
    lab = make_lab(workdir=tmp_path, charms={"seer": CharmSource("seer", Seer, META)})
    await lab.juju.deploy(AppSpec("seer", "seer", units=2))
    result = await lab.juju.run_action("seer/1", "ids")

    assert SEEN
    assert all(cosl_valid_uuid(s["uuid"]) for s in SEEN)
    assert {s["unit"] for s in SEEN} == {"seer/0", "seer/1"}
    assert {rid for s in SEEN for rid in s["relations"]} == {0}  # the first relation: 0
    secrets = [s["secret"] for s in SEEN if s["secret"]]
    assert secrets
    assert all(re.fullmatch(r"secret:[0-9a-z]{20}", s) for s in secrets)
    assert result.results["id"].isdigit()
    assert int(result.results["id"]) >= 1
    app = lab.juju._twin.records.apps["seer"]  # type: ignore[attr-defined]
    assert ipaddress.ip_address(app.address) in ipaddress.ip_network("10.152.183.0/24")


async def test_a_wait_that_times_out_on_the_twin_says_its_seconds_are_simulated() -> None:
    import pytest

    from harness.common.errors import WaitTimeout
    from harness.lab.waiting import wait_for
    from harness.twin.clock import TwinClock

    async def look() -> str:
        return "never"

    with pytest.raises(WaitTimeout) as caught:
        await wait_for("x", look, lambda _: False, timeout=1200, clock=TwinClock())
    assert "timed out after 1200s on the twin's simulated clock" in str(caught.value)


async def test_secret_ids_are_the_same_in_every_run(tmp_path: Path) -> None:
    ids = []
    for run in ("a", "b"):
        SEEN.clear()
        lab = make_lab(workdir=tmp_path / run, charms={"seer": CharmSource("seer", Seer, META)})
        await lab.juju.deploy(AppSpec("seer", "seer"))
        ids.append([s["secret"] for s in SEEN if s["secret"]])
    assert ids[0]
    assert ids[0] == ids[1]
