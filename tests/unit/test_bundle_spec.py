"""Reading a Juju bundle the way `juju deploy` does, and refusing what the harness cannot run."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from harness.common.errors import HarnessError, UnknownName
from harness.scenario.bundle.load import load_bundle, parse_bundle

DATA = Path(__file__).parents[1] / "data" / "bundles"
POSTGRESQL = DATA / "postgresql-k8s" / "bundle.yaml"


def refused(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bundle.yaml"
    path.write_text(text)
    with pytest.raises(HarnessError) as caught:
        load_bundle(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_real_kubernetes_bundle_reads_every_field() -> None:
    bundle = load_bundle(POSTGRESQL)
    assert bundle.app_names == ("pgbouncer-k8s", "postgresql-k8s")
    postgresql = bundle.app("postgresql-k8s")
    assert postgresql.trust
    assert postgresql.units == 1
    assert (postgresql.channel, postgresql.revision) == ("edge", 19)
    assert postgresql.resources == {"postgresql-image": "18"}
    assert postgresql.storage == {"pgdata": "kubernetes,1,1024"}
    assert postgresql.constraints == "arch=amd64"
    assert bundle.relations == (("pgbouncer-k8s:backend-database", "postgresql-k8s:database"),)
    assert bundle.digest == hashlib.sha256(POSTGRESQL.read_bytes()).hexdigest()
    assert bundle.label == "postgresql-k8s"  # a plain bundle.yaml is named by its folder
    assert bundle.deploy_command() == "juju deploy ./bundle.yaml --trust"


def test_app_spec_carries_what_juju_deploy_needs() -> None:
    spec = load_bundle(POSTGRESQL).app("postgresql-k8s").app_spec()
    assert (spec.app, spec.charm, spec.channel, spec.revision) == (
        "postgresql-k8s",
        "postgresql-k8s",
        "edge",
        19,
    )
    assert spec.trust
    assert spec.storage == {"pgdata": "kubernetes,1,1024"}


def test_num_units_options_and_duplicate_keys_as_in_the_older_postgresql_bundle(
    tmp_path: Path,
) -> None:
    # canonical/postgresql-k8s-bundle releases/latest/postgresql-k8s-bundle.yaml (older):
    # num_units, options with booleans, and `revision` given twice (YAML keeps the last).
    path = tmp_path / "postgresql-k8s-bundle.yaml"
    path.write_text(
        "applications:\n"
        "  postgresql-k8s:\n    channel: edge\n    charm: postgresql-k8s\n"
        "    revision: 24\n    scale: 1\n    trust: true\n    revision: 22\n"
        "  tls-certificates-operator:\n    channel: edge\n    charm: tls-certificates-operator\n"
        "    options:\n      generate-self-signed-certificates: true\n"
        "      ca-common-name: postgresql_k8s_bundle_ca\n    num_units: 1\n    revision: 11\n"
        "bundle: kubernetes\nname: postgresql-k8s-bundle\n"
        "relations:\n- - postgresql-k8s:certificates\n  - tls-certificates-operator:certificates\n"
        "type: bundle\n"
    )
    bundle = load_bundle(path)
    assert bundle.label == "postgresql-k8s-bundle"
    assert bundle.app("postgresql-k8s").revision == 22
    tls = bundle.app("tls-certificates-operator")
    assert tls.options == {
        "generate-self-signed-certificates": "true",
        "ca-common-name": "postgresql_k8s_bundle_ca",
    }
    assert tls.units == 1


def test_a_local_charm_is_relative_to_the_bundle_folder(tmp_path: Path) -> None:
    (tmp_path / "charms").mkdir()
    charm = tmp_path / "charms" / "my_amd64.charm"
    charm.write_bytes(b"zip")
    bundle = parse_bundle(
        tmp_path / "bundle.yaml",
        "bundle: kubernetes\napplications:\n  mine:\n    charm: ./charms/my_amd64.charm\n",
    )
    app = bundle.app("mine")
    assert app.local_path == charm.resolve()
    assert app.app_spec().charm == str(charm.resolve())


def test_a_missing_local_charm_is_refused_with_where_it_was_looked_for(tmp_path: Path) -> None:
    message = refused(tmp_path, "bundle: kubernetes\napplications:\n  a:\n    charm: ./a.charm\n")
    assert "local charm ./a.charm not found" in message
    assert str(tmp_path) in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("applications: [unclosed\n", "not YAML (line"),
        ("- just\n- a list\n", "not a bundle"),
        ("bundle: kubernetes\n", "no applications"),
        (
            "applications:\n  a:\n    charm: ubuntu\n    num_units: 1\nmachines:\n  '0': {}\n",
            "a machine (non-Kubernetes) bundle: it has a machines section",
        ),
        (
            "applications:\n  a:\n    charm: ubuntu\n    to: ['lxd:0']\n",
            "a machine (non-Kubernetes) bundle: a is placed on machines",
        ),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\n"
            "    scale: 1\n    num_units: 2\n",
            "a has both scale and num_units",
        ),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\n    config: {k: v}\n",
            "options",
        ),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\nrelations:\n- [a:db, b:db]\n",
            "relation endpoint b:db names no application of the bundle",
        ),
        (
            "bundle: kubernetes\napplications:\n  a:\n    charm: x\n    revision: 3\n",
            "a has a revision but no channel",
        ),
        ("bundle: kubernetes\napplications:\n  a:\n    channel: edge\n", "a has no charm"),
    ],
)
def test_bad_bundles_are_refused_in_one_line(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in refused(tmp_path, text)


def test_a_missing_file_and_an_unknown_app_name_the_fix(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="no such bundle file"):
        load_bundle(tmp_path / "nope.yaml")
    with pytest.raises(UnknownName) as caught:
        load_bundle(POSTGRESQL).app("postgresql")
    assert "choose one of: pgbouncer-k8s, postgresql-k8s" in str(caught.value)
