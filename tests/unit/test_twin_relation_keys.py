"""The keys Juju itself writes into a unit's relation databag: the twin against real Juju.

What Juju writes on entering scope, per version line:

- 2.9 and 3.x: ``private-address`` and ``ingress-address`` (the same address) and
  ``egress-subnets`` (that address as a /32) (juju apiserver/facades/agent/uniter/uniter.go
  ``EnterScope`` at branches 2.9 and 3.6).
- 4.0: ``ingress-address`` alone. ``private-address`` is "no longer auto-maintained"
  (juju docs/howto/upgrade-your-juju-deployment-from-36-to-40.md), and a real 4.0.5
  controller's show-unit has no ``egress-subnets`` either (juju issue 22539).

On Kubernetes the address is the application's service address, shared by its units. The
real output is in tests/data/samples (each file names its source).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import ops
import pytest
from ops import testing
from samples import load_sample

from harness.common.observations import Databag
from harness.common.versions import JujuVersion
from harness.live.show_unit import parse_show_unit
from harness.scenario.stack import PROBE, default_stack
from harness.twin import make_lab, run_disruption

PROBE_DIR = Path(__file__).resolve().parents[2] / "charms" / "probe"
ADDRESS_KEYS = frozenset({"egress-subnets", "ingress-address", "private-address"})
# The Juju line the twin simulates, and a real controller's show-unit of that line.
REAL = {
    "2.9": "showunit_yaml_2.9.32_k8s_prometheus0.yaml",
    "3.6": "showunit_json_3.1.2_k8s_prometheus0.json",
    "4.0": "showunit_yaml_4.0.5_k8s_grafana_agent0.yaml",
}


def addresses(data: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in data.items() if k in ADDRESS_KEYS}


def real_unit_bags(juju: str) -> list[Databag]:
    local_app = JujuVersion.parse(juju) >= JujuVersion(4, 0)
    bags = parse_show_unit(load_sample(REAL[juju]), local_app_data=local_app)
    return [b for b in bags if b.scope == "unit" and b.data]


async def twin_unit_bags(juju: str, workdir: Path) -> list[Databag]:
    base = default_stack(str(PROBE_DIR))
    apps = tuple(replace(s, units=2) if s.app == PROBE else s for s in base.apps)
    lab = make_lab(replace(base, apps=apps), juju_version=juju, workdir=workdir)
    bags: list[Databag] = []
    for unit in await lab.juju.units(PROBE):
        bags.extend(b for b in await lab.juju.unit_relations(unit) if b.scope == "unit")
    return bags


@pytest.mark.parametrize("juju", sorted(REAL))
async def test_every_unit_databag_has_the_address_keys_a_real_controller_of_the_line_wrote(
    juju: str, tmp_path: Path
) -> None:
    real = {frozenset(addresses(b.data)) for b in real_unit_bags(juju)}
    assert len(real) == 1, real  # one shape on a real controller, relation after relation
    simulated = {frozenset(addresses(b.data)) for b in await twin_unit_bags(juju, tmp_path)}
    assert simulated == real


@pytest.mark.parametrize("juju", sorted(REAL))
async def test_the_address_is_the_apps_service_address_as_on_a_real_controller(
    juju: str, tmp_path: Path
) -> None:
    def shape(bags: list[Databag]) -> set[tuple[str, str]]:
        """How each key's value relates to ingress-address, and whose address it is."""
        out: set[tuple[str, str]] = set()
        for b in bags:
            data = addresses(b.data)
            ingress = data["ingress-address"]
            assert ingress.startswith("10.152.183."), b  # MicroK8s' service range
            for key, value in data.items():
                out.add((key, "ingress/32" if value == f"{ingress}/32" else "ingress"))
                assert value in (ingress, f"{ingress}/32"), (key, value)
        return out

    real = real_unit_bags(juju)
    simulated = await twin_unit_bags(juju, tmp_path)
    assert shape(simulated) == shape(real)
    # A service address: every unit of one application carries the same one.
    by_app: dict[str, set[str]] = {}
    for b in simulated:
        by_app.setdefault(b.owner.split("/")[0], set()).add(b.data["ingress-address"])
    assert by_app[PROBE]
    assert all(len(seen) == 1 for seen in by_app.values()), by_app


class Quiet(ops.CharmBase):
    """Observes nothing: the databag holds only what the twin put there."""


@pytest.mark.parametrize(
    ("juju", "kept"),
    [
        ("3.6", {"egress-subnets", "ingress-address", "private-address"}),
        ("4.0", {"ingress-address"}),
    ],
)
def test_a_new_unit_in_run_disruption_gets_only_what_juju_of_that_line_writes(
    juju: str, kept: set[str]
) -> None:
    meta = {"name": "app", "requires": {"backend": {"interface": "db"}}}
    ctx = testing.Context(Quiet, meta=meta)
    # ops.testing's default unit databag: the three keys 2.9 and 3.x write, and one of ours.
    backend = testing.Relation("backend", remote_app_name="db")
    data = {**backend.local_unit_data, "charm-key": "x"}
    assert set(addresses(data)) == ADDRESS_KEYS
    state = testing.State(relations={replace(backend, local_unit_data=data)})

    result = run_disruption(ctx, state, "scale-down-up", juju)

    (after,) = [r for r in result.state.relations if r.endpoint == "backend"]
    assert after.local_unit_data == {k: v for k, v in data.items() if k in kept}
