"""``juju status --format json|yaml`` as UnitStatus and CharmVersion values (2.9 to 3.6).

2.9 prints ``series: kubernetes`` on k8s applications and 3.x a ``base`` mapping; neither
matters here. Remote applications (``application-endpoints``) and offers (``offers``)
have no units of this model and are skipped; subordinate units are read from under their
principal (``units.<unit>.subordinates``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from harness.common.errors import HarnessError
from harness.common.observations import UnitStatus
from harness.common.versions import CharmVersion
from harness.live.cli_documents import as_bool, as_int, as_mapping, as_text, load_mapping

_FIX = "pass the output of `juju status --format json` (or yaml)"


def parse_status(text: str) -> tuple[UnitStatus, ...]:
    """Every unit's workload status, agent status and leadership, in the order printed."""
    return tuple(
        _unit_status(unit, info)
        for app in _applications(text).values()
        for unit, info in _units(as_mapping(app).get("units"))
    )


def parse_app_charms(text: str) -> tuple[CharmVersion, ...]:
    """The charm, channel and revision of each application of the model."""
    charms = []
    for app, info in _applications(text).items():
        info = as_mapping(info)
        charm = as_text(info.get("charm-name") or info.get("charm"))
        channel = as_text(info.get("charm-channel")) or None
        revision = as_int(info.get("charm-rev"))
        charms.append(CharmVersion(str(app), _charm_name(charm), channel, revision))
    return tuple(charms)


def parse_model_version(text: str) -> str | None:
    """The model's agent version (``model.version``), if printed."""
    document = load_mapping(text, "juju status output", _FIX)
    return as_text(as_mapping(document.get("model")).get("version")) or None


def _applications(text: str) -> Mapping[str, Any]:
    document = load_mapping(text, "juju status output", _FIX)
    if "applications" not in document:
        raise HarnessError("juju status output has no 'applications'", _FIX)
    return as_mapping(document["applications"])


def _units(units: object) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for unit, info in as_mapping(units).items():
        info = as_mapping(info)
        yield str(unit), info
        yield from _units(info.get("subordinates"))


def _unit_status(unit: str, info: Mapping[str, Any]) -> UnitStatus:
    workload = as_mapping(info.get("workload-status"))
    agent = as_mapping(info.get("juju-status"))
    return UnitStatus(
        unit=unit,
        workload=as_text(workload.get("current")) or "unknown",
        workload_message=as_text(workload.get("message")),
        agent=as_text(agent.get("current")) or "unknown",
        leader=as_bool(info.get("leader")),
    )


def _charm_name(charm: str) -> str:
    """``local:focal/prometheus-k8s-0`` or ``ch:amd64/jammy/kafka-116`` -> the bare name."""
    if ":" not in charm:
        return charm
    name = charm.partition(":")[2].rpartition("/")[2]
    base, _, revision = name.rpartition("-")
    return base if base and revision.isdigit() else name
