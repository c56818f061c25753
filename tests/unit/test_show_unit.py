"""`juju show-unit` parsing on every recorded show-unit output (2.9 YAML, 3.x JSON and YAML)."""

from __future__ import annotations

import json

import pytest
from samples import load_sample, sample_names

from harness.common.errors import HarnessError
from harness.common.observations import Databag
from harness.live.parse import parse_show_unit
from harness.live.show_unit import UNKNOWN_APP

# relation id, endpoint -> (related endpoint, owner of application-data, unit databag owners)
Shape = dict[tuple[int, str], tuple[str | None, str, tuple[str, ...]]]


def shape(bags: tuple[Databag, ...]) -> Shape:
    result: dict[tuple[int, str], tuple[str | None, str, tuple[str, ...]]] = {}
    for bag in bags:
        remote, app_owner, units = result.get(
            (bag.relation_id, bag.endpoint), (bag.remote_endpoint, "", ())
        )
        if bag.scope == "app":
            app_owner = bag.owner
        else:
            units = (*units, bag.owner)
        result[(bag.relation_id, bag.endpoint)] = (remote, app_owner, units)
    return result


def bag(bags: tuple[Databag, ...], relation_id: int, owner: str, scope: str) -> Databag:
    (found,) = [
        b for b in bags if b.relation_id == relation_id and b.owner == owner and b.scope == scope
    ]
    return found


PROMETHEUS = ("prometheus/0", "prometheus/1")

# Read off each sample: a peer relation's application-data belongs to the unit's own
# application and lists `local-unit` (3.x prints `local-unit.data: null` for the others).
EXPECTED: dict[str, tuple[str, Shape]] = {
    "showunit_json_3.1.2_k8s_alertmanager0.json": (
        "alertmanager/0",
        {
            (0, "replicas"): ("replicas", "alertmanager", ("alertmanager/0",)),
            (7, "alerting"): ("alertmanager", "prometheus", PROMETHEUS),
            (10, "grafana-source"): ("grafana-source", "grafana", ("grafana/0",)),
            (11, "alerting"): ("alertmanager", "loki", ("loki/0",)),
            (13, "self-metrics-endpoint"): ("metrics-endpoint", "prometheus", PROMETHEUS),
            (18, "grafana-dashboard"): ("grafana-dashboard", "grafana", ("grafana/0",)),
            (22, "catalogue"): ("catalogue", "catalogue", ("catalogue/0",)),
            (23, "ingress"): (
                "ingress",
                "remote-38811d7f76ad47ac84be46b165e53828",
                ("remote-38811d7f76ad47ac84be46b165e53828/0",),
            ),
        },
    ),
    "showunit_json_3.1.2_k8s_cmr_trfk0_cross_model.json": (
        "trfk/0",
        {(0, "ingress"): ("ingress", "alertmanager", ("alertmanager/0",))},
    ),
    "showunit_json_3.1.2_k8s_loki0.json": (
        "loki/0",
        {
            (4, "ingress"): ("ingress-per-unit", "traefik", ("traefik/0",)),
            (9, "grafana-source"): ("grafana-source", "grafana", ("grafana/0",)),
            (11, "alertmanager"): ("alerting", "alertmanager", ("alertmanager/0",)),
            (14, "metrics-endpoint"): ("metrics-endpoint", "prometheus", PROMETHEUS),
            (16, "grafana-dashboard"): ("grafana-dashboard", "grafana", ("grafana/0",)),
            (24, "logging"): ("logging", "traefik", ("traefik/0",)),
        },
    ),
    "showunit_json_3.1.2_k8s_prometheus0.json": (
        "prometheus/0",
        {
            (2, "prometheus-peers"): ("prometheus-peers", "prometheus", PROMETHEUS),
            (3, "ingress"): ("ingress-per-unit", "traefik", ("traefik/0",)),
            (7, "alertmanager"): ("alerting", "alertmanager", ("alertmanager/0",)),
            (8, "grafana-source"): ("grafana-source", "grafana", ("grafana/0",)),
            (12, "metrics-endpoint"): ("metrics-endpoint", "traefik", ("traefik/0",)),
            (13, "metrics-endpoint"): (
                "self-metrics-endpoint",
                "alertmanager",
                ("alertmanager/0",),
            ),
            (14, "metrics-endpoint"): ("metrics-endpoint", "loki", ("loki/0",)),
            (15, "metrics-endpoint"): ("metrics-endpoint", "grafana", ("grafana/0",)),
            (17, "grafana-dashboard"): ("grafana-dashboard", "grafana", ("grafana/0",)),
            (21, "catalogue"): ("catalogue", "catalogue", ("catalogue/0",)),
        },
    ),
    "showunit_json_3.1.2_k8s_traefik0.json": (
        "traefik/0",
        {
            (3, "ingress-per-unit"): ("ingress", "prometheus", PROMETHEUS),
            (4, "ingress-per-unit"): ("ingress", "loki", ("loki/0",)),
            (5, "traefik-route"): ("ingress", "grafana", ("grafana/0",)),
            (12, "metrics-endpoint"): ("metrics-endpoint", "prometheus", PROMETHEUS),
            (19, "ingress"): ("ingress", "catalogue", ("catalogue/0",)),
            (24, "logging"): ("logging", "loki", ("loki/0",)),
            (25, "grafana-dashboard"): ("grafana-dashboard", "grafana", ("grafana/0",)),
        },
    ),
    "showunit_json_3.1.2_machine_kafka0.json": (
        "kafka/0",
        {
            (0, "restart"): ("restart", "kafka", ("kafka/0",)),
            (1, "cluster"): ("cluster", "kafka", ("kafka/0",)),
            (5, "zookeeper"): ("zookeeper", "zookeeper", ("zookeeper/0",)),
        },
    ),
    # A hand-edited test fixture: both relations have id 0 (the header says so).
    "showunit_yaml_2.9.25_machine_ceilometer0.yaml": (
        "ceilometer/0",
        {
            (0, "cluster"): ("cluster", "ceilometer", ("ceilometer/0",)),
            (0, "shared-db"): ("database", "mongodb", ("mongodb/1",)),
        },
    ),
    "showunit_yaml_2.9.25_machine_mongodb1.yaml": (
        "mongodb/1",
        {
            (0, "replica-set"): ("replica-set", "mongodb", ("mongodb/1",)),
            (0, "database"): ("shared-db", "ceilometer", ("ceilometer/0",)),
        },
    ),
    "showunit_yaml_2.9.32_k8s_prometheus0.yaml": (
        "prometheus-k8s/0",
        {
            (2, "prometheus-peers"): (
                "prometheus-peers",
                "prometheus-k8s",
                ("prometheus-k8s/0", "prometheus-k8s/1"),
            ),
            (3, "ingress"): ("ingress-per-unit", "traefik-k8s", ("traefik-k8s/0",)),
        },
    ),
    "showunit_yaml_2.9.32_k8s_prometheus1.yaml": (
        "prometheus-k8s/1",
        {
            (2, "prometheus-peers"): (
                "prometheus-peers",
                "prometheus-k8s",
                ("prometheus-k8s/1", "prometheus-k8s/0"),
            ),
            (3, "ingress"): ("ingress-per-unit", "traefik-k8s", ("traefik-k8s/0",)),
        },
    ),
    "showunit_yaml_2.9.32_k8s_traefik0.yaml": (
        "traefik-k8s/0",
        {
            (3, "ingress-per-unit"): (
                "ingress",
                "prometheus-k8s",
                ("prometheus-k8s/0", "prometheus-k8s/1"),
            ),
        },
    ),
    "showunit_yaml_3.x_machine_kafka0.yaml": (
        "kafka/0",
        {
            (0, "restart"): ("restart", "kafka", ("kafka/0",)),
            (1, "cluster"): ("cluster", "kafka", ("kafka/0",)),
            (5, "zookeeper"): ("zookeeper", "zookeeper", ("zookeeper/0",)),
        },
    ),
    # Juju 4.0.5 printed local-unit on every relation (juju issue 22539): each bag is the
    # shown unit's own, and from 4.0 application-data is its own application's.
    "showunit_yaml_4.0.5_k8s_grafana_agent0.yaml": (
        "grafana-agent-k8s/0",
        {
            (1, "peers"): ("peers", "grafana-agent-k8s", ("grafana-agent-k8s/0",)),
            (2, "grafana-dashboards-consumer"): (
                "grafana-dashboard",
                "grafana-agent-k8s",
                ("grafana-agent-k8s/0",),
            ),
        },
    ),
}
# The CMR alertmanager capture is the same unit, same relations, as the plain one.
EXPECTED["showunit_json_3.1.2_k8s_cmr_alertmanager0.json"] = EXPECTED[
    "showunit_json_3.1.2_k8s_alertmanager0.json"
]


def test_every_show_unit_sample_has_expectations() -> None:
    assert set(sample_names("showunit_")) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_relations_endpoints_and_owners(name: str) -> None:
    unit, expected = EXPECTED[name]

    # From Juju 4.0 on, application-data is the shown unit's own application's.
    bags = parse_show_unit(load_sample(name), local_app_data="_4." in name)

    assert shape(bags) == expected
    assert {b.seen_by for b in bags} == {unit}
    assert {b.source for b in bags} == {"show-unit"}


def test_yaml_data_values_stay_strings() -> None:
    bags = parse_show_unit(load_sample("showunit_yaml_2.9.25_machine_ceilometer0.yaml"))

    mongodb = bag(bags, 0, "mongodb/1", "unit").data
    assert mongodb["port"] == "27017"
    assert mongodb["version"] == "3.6.8"
    assert mongodb["type"] == "database"
    assert bag(bags, 0, "ceilometer", "app").data == {}


def test_yaml_multiline_application_data() -> None:
    bags = parse_show_unit(load_sample("showunit_yaml_2.9.32_k8s_prometheus0.yaml"))

    ingress = bag(bags, 3, "traefik-k8s", "app")
    assert ingress.endpoint == "ingress"
    assert ingress.remote_endpoint == "ingress-per-unit"
    assert ingress.data["ingress"].splitlines()[:2] == [
        "prometheus-k8s/0:",
        "  url: http://10.1.232.172:80/bar-prometheus-k8s-0",
    ]


def test_json_data_values_and_peer_local_unit() -> None:
    bags = parse_show_unit(load_sample("showunit_json_3.1.2_machine_kafka0.json"))

    cluster = bag(bags, 1, "kafka", "app")
    zookeeper = bag(bags, 5, "zookeeper", "app")
    local = bag(bags, 1, "kafka/0", "unit")
    assert cluster.data["sync-password"] == "NxUqfnhuaxNGPHVPjOJD4zWpv1yZLF1z"
    assert zookeeper.data["uris"] == "10.202.33.167:2181/kafka"
    assert zookeeper.data["username"] == "relation-5"
    assert local.data["private-address"] == "10.202.33.94"


def test_yaml_and_json_of_the_same_unit_agree() -> None:
    from_json = parse_show_unit(load_sample("showunit_json_3.1.2_machine_kafka0.json"))
    from_yaml = parse_show_unit(load_sample("showunit_yaml_3.x_machine_kafka0.yaml"))

    assert from_yaml == from_json


def test_cross_model_relation() -> None:
    bags = parse_show_unit(load_sample("showunit_json_3.1.2_k8s_cmr_trfk0_cross_model.json"))

    app = bag(bags, 0, "alertmanager", "app")
    assert app.data == {
        "host": "alertmanager-0.alertmanager-endpoints.clite.svc.cluster.local",
        "model": "clite",
        "name": "alertmanager",
        "port": "9093",
    }
    # local-unit.data is null: not shown, so no databag for trfk/0 itself.
    assert [b.owner for b in bags if b.scope == "unit"] == ["alertmanager/0"]


def test_traefik_route_data() -> None:
    bags = parse_show_unit(load_sample("showunit_json_3.1.2_k8s_traefik0.json"))

    route = bag(bags, 5, "grafana", "app")
    loki = bag(bags, 24, "loki/0", "unit")
    assert route.data["config"].startswith("http:\n  routers:\n    juju-clite-grafana-router:")
    assert json.loads(loki.data["endpoint"]) == {
        "url": "http://loki-0.loki-endpoints.clite.svc.cluster.local:3100/loki/api/v1/push"
    }


def test_source_is_passed_through() -> None:
    bags = parse_show_unit(load_sample("showunit_json_3.1.2_machine_kafka0.json"), "probe")

    assert {b.source for b in bags} == {"probe"}


def test_relation_without_units_has_unknown_owner() -> None:
    text = json.dumps(
        {
            "probe/0": {
                "relation-info": [
                    {
                        "relation-id": 4,
                        "endpoint": "database",
                        "related-endpoint": "database",
                        "application-data": {"endpoints": "mysql-router-k8s:6446"},
                        "local-unit": {"in-scope": True, "data": None},
                    }
                ]
            }
        }
    )

    (only,) = parse_show_unit(text)

    assert (only.owner, only.scope, dict(only.data)) == (
        UNKNOWN_APP,
        "app",
        {"endpoints": "mysql-router-k8s:6446"},
    )


def test_json_scalars_become_strings() -> None:
    text = json.dumps(
        {
            "probe/0": {
                "relation-info": [
                    {
                        "relation-id": 1,
                        "endpoint": "peers",
                        "related-endpoint": "peers",
                        "application-data": {"n": 3, "flag": True, "none": None},
                        "local-unit": {"in-scope": True, "data": {}},
                    }
                ]
            }
        }
    )

    app, local = parse_show_unit(text)

    assert app.data == {"n": "3", "flag": "true", "none": ""}
    assert (local.owner, local.data) == ("probe/0", {})


def test_null_related_unit_data_is_not_an_empty_databag() -> None:
    text = json.dumps(
        {
            "probe/0": {
                "relation-info": [
                    {
                        "relation-id": 2,
                        "endpoint": "probe",
                        "related-endpoint": "probe",
                        "application-data": {},
                        "related-units": {
                            "probe-peer/0": {"in-scope": False, "data": None},
                            "probe-peer/1": {"in-scope": True, "data": {}},
                        },
                    }
                ]
            }
        }
    )

    bags = parse_show_unit(text)

    assert [(b.owner, b.scope, dict(b.data)) for b in bags] == [
        ("probe-peer", "app", {}),
        ("probe-peer/1", "unit", {}),
    ]


def test_unit_without_relations() -> None:
    assert parse_show_unit("probe/0:\n  leader: true\n  life: alive\n") == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "juju show-unit output is empty"),
        ("{: [", "juju show-unit output is neither JSON nor YAML"),
        ("- a\n- b\n", "juju show-unit output is not a mapping"),
        ("ERROR unit not found", "juju show-unit output is not a mapping"),
        ("leader: true\n", "juju show-unit output has no unit at the top level"),
        (
            '{"probe/0": {"relation-info": [{"endpoint": "x"}]}}',
            "a relation-info entry of probe/0 lacks relation-id or endpoint",
        ),
        ('{"probe/0": {"relation-info": {"a": 1}}}', "relation-info of probe/0"),
    ],
)
def test_malformed_output_is_a_one_line_error(text: str, message: str) -> None:
    with pytest.raises(HarnessError) as caught:
        parse_show_unit(text)

    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
