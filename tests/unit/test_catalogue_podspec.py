"""The catalogue's podspec section: seed 001 as it happened (a podspec charm's pod-spec-set),
cited to Juju 2.9 and 3.6 source, and refused on 4.0 where podspec charms are gone."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.catalogue import DEFAULT_PATH, PODSPEC, CatalogueError, NotOnThisJuju, load
from harness.cli import main as cli
from harness.reference.model import matrix
from harness.reference.site import site_files

SEED = Path(__file__).resolve().parent.parent / "data" / "seeds" / "lp1830745.txt"


def _raw() -> dict[str, Any]:
    loaded = yaml.safe_load(DEFAULT_PATH.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _flat(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------------------ the data


@pytest.mark.parametrize("juju", ["2.9.0", "2.9.43", "3.6", "3.6.9"])
def test_pod_spec_set_keeps_units_and_databags_on_a_statefulset(juju: str) -> None:
    entry = load().expect("pod-spec-set", juju)

    assert entry.charm == "podspec"
    assert entry.variant is None
    assert entry.hooks == ("config-changed",)
    assert "stop" not in entry.required_hooks(leader=True)
    assert (entry.relation_data, entry.unit_identity, entry.unit_name) == ("kept", "kept", "kept")
    assert entry.survives["charm-dir"] is True  # in the operator pod, which stays
    # A podspec unit's agent is not in the workload pod: no sidecar grace period or stop
    # time, and no Pebble of Juju's in its pods.
    assert entry.termination_grace_seconds is None
    assert entry.stop_budget_seconds is None
    assert not [hook for hook in entry.background if "pebble" in hook]


def test_the_stateless_branch_is_a_new_unit_with_empty_databags() -> None:
    branches = load().branches("pod-spec-set", "3.6")

    assert [b.branch for b in branches] == ["main", "stateless"]
    stateless = branches[1]
    assert stateless.selected_by == "stateless-deployment"
    assert (stateless.unit_name, stateless.relation_data) == ("new", "lost")
    assert stateless.app_relation_data == "kept"
    assert stateless.hooks[-2:] == ("stop", "remove")
    assert stateless.confidence == "low"


def test_each_claim_cites_juju_29_and_36_source() -> None:
    def urls(juju: str) -> set[str]:
        return {s.url for e in load().branches("pod-spec-set", juju) for s in e.sources}

    for juju in ("2.9.43", "3.6"):
        cited = urls(juju)
        # the caasoperator worker, in both
        assert any("juju-2.9.31/worker/caasoperator/caasoperator.go" in u for u in cited)
        assert any("/3.6/worker/caasoperator/caasoperator.go" in u for u in cited)
        # how units are keyed to pods since PR 10270, in both
        provisioner = "apiserver/facades/controller/caasunitprovisioner"
        assert any(f"juju-2.9.31/{provisioner}" in u for u in cited)
        assert any(f"/3.6/{provisioner}" in u for u in cited)
        assert "https://github.com/juju/juju/pull/10270" in cited
        # the provider's podspec deployment (StatefulSet or Deployment)
        assert any("/3.6/caas/kubernetes/provider/k8s.go" in u for u in cited)


def test_the_known_bug_quotes_the_seed_verbatim() -> None:
    seed = _flat(SEED.read_text(encoding="utf-8").split("\n\n", 1)[1])
    bugs = [b for b in load().bugs("LP#1830745") if b.disruption == "pod-spec-set"]

    assert bugs
    for bug in bugs:
        assert _flat(bug.quote) in seed
        assert bug.fixed_in == "2.6.4"


@pytest.mark.parametrize("juju", ["4.0", "4.0.1", "4.1"])
def test_on_40_pod_spec_set_is_refused_in_one_line_saying_podspec_charms_are_gone(
    juju: str,
) -> None:
    catalogue = load()
    gone = catalogue.gone_on("pod-spec-set", juju)

    assert gone is not None
    assert gone.juju_min == "4.0"
    assert "https://github.com/juju/juju/pull/15865" in {s.url for s in gone.sources}
    for ask in (catalogue.expect, catalogue.branches):
        with pytest.raises(NotOnThisJuju, match=r"podspec charms are gone from Juju 4\.0") as err:
            ask("pod-spec-set", juju)
        assert "\n" not in str(err.value)
    assert catalogue.gone_on("pod-spec-set", "3.6.20") is None
    assert catalogue.gone_on("pod-delete", juju) is None


# ------------------------------------------------------------------------ the rules


def test_a_podspec_entry_that_outlives_podspec_charms_is_refused(tmp_path: Path) -> None:
    doc = _raw()
    doc["podspec"]["entries"][0]["ranges"][-1]["juju_max"] = None
    with pytest.raises(CatalogueError, match=r"gone from Juju 4\.0") as caught:
        load(_write(tmp_path, doc))
    assert "\n" not in str(caught.value)
    doc = _raw()
    doc["podspec"]["entries"][0]["ranges"][-1]["juju_max"] = "3.7"
    with pytest.raises(CatalogueError, match=r"not where its kind of charm is gone \(4.0\)"):
        load(_write(tmp_path, doc))


def test_podspec_entries_live_in_the_podspec_section_only(tmp_path: Path) -> None:
    doc = _raw()
    moved = doc["podspec"]["entries"].pop(0)
    del moved["charm"]  # in the main list an entry is about a sidecar charm
    doc["entries"].append({**moved, "known_bugs": []})
    with pytest.raises(CatalogueError, match="go in the podspec section"):
        load(_write(tmp_path, doc))
    doc = _raw()
    doc["podspec"]["entries"][0]["charm"] = "sidecar"
    with pytest.raises(CatalogueError, match="charm must be podspec"):
        load(_write(tmp_path, doc))
    doc = _raw()
    del doc["podspec"]["gone"]
    with pytest.raises(CatalogueError, match="say from which Juju podspec charms are gone"):
        load(_write(tmp_path, doc))


def test_every_podspec_disruption_is_catalogued() -> None:
    assert set(PODSPEC) <= set(load().disruptions())
    assert set(PODSPEC) == set(load().gone)


# ------------------------------------------------------------------------ what users see


def repro(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("juju", ["2.9.43", "3.6"])
def test_repro_predict_shows_the_podspec_entries(
    capsys: pytest.CaptureFixture[str], juju: str
) -> None:
    code, out, _ = repro(capsys, "predict", "pod-spec-set", "--juju", juju)

    assert code == 0
    assert out.splitlines()[0].startswith(f"pod-spec-set on Juju {juju}")
    assert "hooks run in the operator pod" in out
    assert re.search(r"^hooks, in order: config-changed$", out, re.M)
    assert "relation data kept; unit identity kept" in out
    assert re.search(r"^branch stateless \(when the charm's metadata gives a Deploy", out, re.M)
    assert "https://bugs.launchpad.net/juju/+bug/1830745" in out
    assert "pebble" not in out.lower()


def test_repro_predict_on_40_refuses_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = repro(capsys, "predict", "pod-spec-set", "--juju", "4.0")

    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "podspec charms are gone from Juju 4.0" in err
    assert "2.9 or 3.6" in err


def test_the_reference_matrix_says_gone_on_40() -> None:
    overview = matrix(load())
    row = next(r for r in overview.rows if r.disruption == "pod-spec-set")
    gone = [cell for cell in row.cells if cell.entry is None]

    assert gone
    assert all(str(cell.span.low).startswith("4.") for cell in gone)
    assert all(cell.entry is not None for cell in row.cells if cell not in gone)
    index = site_files(load())["index.html"].decode()
    pod_spec_set = index.split('<a href="pod-spec-set.html">', 1)[1].split("</tr>", 1)[0]
    assert "podspec charms are gone" in pod_spec_set
    assert 'href="https://github.com/juju/juju/pull/15865"' in pod_spec_set


def test_the_reference_page_of_pod_spec_set_says_where_it_is_gone() -> None:
    page = site_files(load())["pod-spec-set.html"].decode()
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "Not on Juju 4.0 and later: podspec charms are gone there" in text
    assert 'href="https://github.com/juju/juju/pull/15865"' in page
    assert "podspec charms are gone" not in site_files(load())["pod-delete.html"].decode()
