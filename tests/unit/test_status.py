"""`juju status` parsing on every recorded status output (2.9 and 3.x, JSON and YAML)."""

from __future__ import annotations

import json

import pytest
from samples import load_sample, sample_names

from harness.common.errors import HarnessError
from harness.common.observations import UnitStatus
from harness.common.versions import CharmVersion
from harness.live.parse import parse_app_charms, parse_model_version, parse_status


def active_idle(unit: str, leader: bool = True, message: str = "") -> UnitStatus:
    return UnitStatus(unit, "active", message, "idle", leader)


COS_LITE_3_1_UNITS = (
    active_idle("alertmanager/0"),
    active_idle("catalogue/0"),
    active_idle("grafana/0"),
    active_idle("loki/0"),
    active_idle("prometheus/0"),
    active_idle("prometheus/1", leader=False),
    active_idle("traefik/0"),
)
COS_LITE_3_1_CHARMS = (
    CharmVersion("alertmanager", "alertmanager-k8s", "edge", 69),
    CharmVersion("catalogue", "catalogue-k8s", "edge", 15),
    CharmVersion("grafana", "grafana-k8s", "edge", 78),
    CharmVersion("loki", "loki-k8s", "edge", 84),
    CharmVersion("prometheus", "prometheus-k8s", "edge", 123),
    CharmVersion("traefik", "traefik-k8s", "edge", 125),
)

# Read off each sample: (model version, units, charms).
EXPECTED: dict[str, tuple[str, tuple[UnitStatus, ...], tuple[CharmVersion, ...]]] = {
    "status_json_2.9.25_machine_ceilometer_executing.json": (
        "2.9.25",
        (
            UnitStatus(
                "ceilometer/0",
                "blocked",
                "Missing relations: identity, database, messaging",
                "executing",
                True,
            ),
        ),
        (CharmVersion("ceilometer", "ceilometer", "stable", 489),),
    ),
    # A k8s model with local charms: `series: kubernetes`, no channel, revision 0.
    "status_json_2.9.32_k8s_prometheus_traefik.json": (
        "2.9.32",
        (
            active_idle("prometheus-k8s/0"),
            active_idle("prometheus-k8s/1", leader=False),
            active_idle("traefik-k8s/0"),
        ),
        (
            CharmVersion("prometheus-k8s", "prometheus-k8s", None, 0),
            CharmVersion("traefik-k8s", "traefik-k8s", None, 0),
        ),
    ),
    # The remote application `alertmanager` (application-endpoints) has no units here.
    "status_json_3.1.2_k8s_cmr_offers.json": (
        "3.1.2",
        (active_idle("trfk/0"),),
        (CharmVersion("trfk", "traefik-k8s", "edge", 125),),
    ),
    "status_json_3.1.2_k8s_cos_lite.json": ("3.1.2", COS_LITE_3_1_UNITS, COS_LITE_3_1_CHARMS),
    "status_json_3.1.2_k8s_cos_lite_with_offers.json": (
        "3.1.2",
        COS_LITE_3_1_UNITS,
        COS_LITE_3_1_CHARMS,
    ),
    "status_json_3.1.2_machine_kafka_zookeeper.json": (
        "3.1.2",
        (
            active_idle(
                "kafka/0", message="machine system settings are not optimal - see logs for info"
            ),
            active_idle("zookeeper/0"),
        ),
        (
            CharmVersion("kafka", "kafka", "3/edge", 116),
            CharmVersion("zookeeper", "zookeeper", "3/edge", 99),
        ),
    ),
    "status_yaml_3.6.1_k8s_cos_lite.yaml": (
        "3.6.1",
        (
            active_idle("alertmanager/0"),
            active_idle("catalogue/0"),
            active_idle("grafana/0"),
            active_idle("loki/0"),
            active_idle("prometheus/0"),
            active_idle("traefik/0", message="Serving at 192.168.88.12"),
        ),
        (
            CharmVersion("alertmanager", "alertmanager-k8s", "latest/stable", 138),
            CharmVersion("catalogue", "catalogue-k8s", "latest/stable", 75),
            CharmVersion("grafana", "grafana-k8s", "latest/stable", 126),
            CharmVersion("loki", "loki-k8s", "latest/stable", 181),
            CharmVersion("prometheus", "prometheus-k8s", "latest/stable", 221),
            CharmVersion("traefik", "traefik-k8s", "latest/stable", 223),
        ),
    ),
}


def test_every_status_sample_has_expectations() -> None:
    assert set(sample_names("status_json_") + sample_names("status_yaml_")) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_units_charms_and_model_version(name: str) -> None:
    version, units, charms = EXPECTED[name]
    text = load_sample(name)

    assert parse_status(text) == units
    assert parse_app_charms(text) == charms
    assert parse_model_version(text) == version


@pytest.mark.parametrize("name", sample_names("status_tabular_"))
def test_tabular_status_is_a_one_line_error(name: str) -> None:
    with pytest.raises(HarnessError) as caught:
        parse_status(load_sample(name))

    assert str(caught.value).startswith("juju status output")
    assert "--format json" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_subordinates_and_units_without_status() -> None:
    text = json.dumps(
        {
            "model": {"name": "m"},
            "applications": {
                "probe": {
                    "charm": "local:probe-3",
                    "units": {
                        "probe/0": {
                            "workload-status": {"current": "maintenance", "message": "m"},
                            "juju-status": {"current": "executing"},
                            "subordinates": {
                                "logger/0": {
                                    "workload-status": {"current": "active"},
                                    "juju-status": {"current": "idle"},
                                    "leader": True,
                                }
                            },
                        },
                        "probe/1": {},
                    },
                },
                "logger": {"charm": "ch:amd64/jammy/logger-12", "charm-channel": "latest/edge"},
            },
        }
    )

    assert parse_status(text) == (
        UnitStatus("probe/0", "maintenance", "m", "executing", False),
        UnitStatus("logger/0", "active", "", "idle", True),
        UnitStatus("probe/1", "unknown", "", "unknown", False),
    )
    assert parse_app_charms(text) == (
        CharmVersion("probe", "probe", None, None),
        CharmVersion("logger", "logger", "latest/edge", None),
    )
    assert parse_model_version(text) is None


def test_empty_model() -> None:
    assert parse_status('{"model": {"name": "m"}, "applications": {}}') == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "juju status output is empty"),
        ('{"model": {"name": "m"}}', "juju status output has no 'applications'"),
        ("ERROR no controller", "juju status output is not a mapping"),
    ],
)
def test_malformed_status(text: str, message: str) -> None:
    with pytest.raises(HarnessError, match=message):
        parse_status(text)
