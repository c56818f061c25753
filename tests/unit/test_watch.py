"""--watch paths: their layer from the charm's metadata, wherever that metadata comes from."""

from __future__ import annotations

import json
import urllib.error
import zipfile
from pathlib import Path

import pytest

from harness.common.errors import EnvironmentUnavailable, HarnessError
from harness.scenario.charm_meta import (
    CharmMeta,
    charmhub_info_url,
    read_charm_dir,
    read_charm_file,
    read_charmhub,
)
from harness.scenario.watch import layer_of, watched_path

DATA = Path(__file__).parents[1] / "data" / "bundles" / "postgresql-k8s"
POSTGRESQL_META = (DATA / "postgresql-k8s.metadata.yaml").read_text()


def postgresql() -> CharmMeta:
    import yaml

    return CharmMeta.from_dict(yaml.safe_load(POSTGRESQL_META), "test")


@pytest.mark.parametrize(
    ("container", "path", "layer"),
    [
        ("postgresql", "/var/lib/postgresql/data", "storage"),
        ("postgresql", "/var/lib/postgresql/data/pgdata/PG_VERSION", "storage"),
        ("postgresql", "/var/lib/postgresql/datafile", "container-root"),  # not under it
        ("postgresql", "/etc/postgresql/postgresql.conf", "container-root"),
        ("charm", "/var/lib/juju/agents/unit-postgresql-k8s-0/charm/.marker", "charm-dir"),
        ("charm", "/tmp/marker", "container-root"),
    ],
)
def test_layer_follows_the_pod_layout(container: str, path: str, layer: str) -> None:
    assert layer_of(postgresql(), container, path) == layer


def test_watch_on_an_undeclared_container_names_the_declared_ones() -> None:
    with pytest.raises(HarnessError) as caught:
        watched_path("postgresql-k8s:postgres:/etc/x", {"postgresql-k8s": postgresql()})
    message = str(caught.value)
    assert "declares no container 'postgres'" in message
    assert "charm, postgresql" in message


@pytest.mark.parametrize("text", ["postgresql-k8s:/etc/x", "a:b:relative/path", "nocolon"])
def test_malformed_watch_says_the_format(text: str) -> None:
    with pytest.raises(HarnessError, match="APP:CONTAINER"):
        watched_path(text, {"postgresql-k8s": postgresql()})


def test_unknown_metadata_records_the_path_without_judging_it() -> None:
    watched = watched_path("x:anything:/etc/y", {"x": None}, seed=True)
    assert (watched.layer, watched.seed) == (None, True)


def test_metadata_from_a_packed_charm_and_a_source_folder(tmp_path: Path) -> None:
    charm = tmp_path / "postgresql-k8s_ubuntu-22.04-amd64.charm"
    with zipfile.ZipFile(charm, "w") as archive:
        archive.writestr("metadata.yaml", POSTGRESQL_META)
        archive.writestr("src/charm.py", "")
    assert read_charm_file(charm).container_names == ("postgresql",)
    (tmp_path / "src").mkdir()
    (tmp_path / "charmcraft.yaml").write_text(POSTGRESQL_META)
    assert read_charm_dir(tmp_path).endpoint("database") == ("provides", "postgresql_client")
    not_zip = tmp_path / "broken.charm"
    not_zip.write_text("not a zip")
    with pytest.raises(HarnessError, match="not a packed charm"):
        read_charm_file(not_zip)


def test_metadata_from_charmhub_as_its_info_endpoint_answers() -> None:
    asked: list[str] = []

    def fetch(url: str) -> bytes:
        asked.append(url)
        body = {"default-release": {"revision": {"metadata-yaml": POSTGRESQL_META}}}
        return json.dumps(body).encode()

    meta = read_charmhub("postgresql-k8s", "14/edge", fetch)
    assert meta.source == "charmhub:postgresql-k8s@14/edge"
    assert meta.container("postgresql") is not None
    assert asked == [charmhub_info_url("postgresql-k8s", "14/edge")]
    assert "channel=14%2Fedge" in asked[0]
    assert "default-release.revision.metadata-yaml" in asked[0]


def test_charmhub_errors_say_what_to_do() -> None:
    def missing(url: str) -> bytes:
        raise urllib.error.HTTPError(url, 404, "Not Found", None, None)  # type: ignore[arg-type]

    def offline(url: str) -> bytes:
        raise urllib.error.URLError("Name or service not known")

    with pytest.raises(HarnessError, match="Charmhub has no charm 'nope'"):
        read_charmhub("nope", None, missing)
    with pytest.raises(EnvironmentUnavailable) as caught:
        read_charmhub("postgresql-k8s", "edge", offline)
    assert "--charm-source postgresql-k8s=DIR" in str(caught.value)
