"""The evidence names the Juju driver a live run used; older bundles without it still read."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from evidence_samples import evidence

from harness.evidence.bundle import read_bundle
from harness.evidence.report import render_report
from harness.evidence.write import write_bundle


def _schema() -> dict[str, object]:
    text = resources.files("harness.evidence").joinpath("schema.json").read_text("utf-8")
    return dict(json.loads(text))


def test_a_live_bundle_records_the_driver_in_every_view(tmp_path: Path) -> None:
    live = evidence(backend="live", juju="4.0.1")
    live = replace(live, versions=replace(live.versions, juju_driver="jubilant"))
    folder = write_bundle(live, tmp_path / "run")
    raw = json.loads((folder / "bundle.json").read_text("utf-8"))
    jsonschema.validate(raw, _schema())
    assert raw["versions"]["juju_driver"] == "jubilant"
    assert read_bundle(folder).versions.juju_driver == "jubilant"
    assert "Juju driver jubilant" in render_report(read_bundle(folder))


def test_a_bundle_from_before_the_driver_field_still_reads(tmp_path: Path) -> None:
    folder = write_bundle(evidence(backend="live"), tmp_path / "run")
    raw = json.loads((folder / "bundle.json").read_text("utf-8"))
    assert "juju_driver" not in raw["versions"]  # unknown: not written, old readers unchanged
    jsonschema.validate(raw, _schema())
    assert read_bundle(folder).versions.juju_driver is None


def test_an_unknown_driver_name_is_refused_by_the_schema(tmp_path: Path) -> None:
    folder = write_bundle(evidence(backend="live"), tmp_path / "run")
    raw = json.loads((folder / "bundle.json").read_text("utf-8"))
    raw["versions"]["juju_driver"] = "pylibjuju"
    with pytest.raises(jsonschema.ValidationError, match="pylibjuju"):
        jsonschema.validate(raw, _schema())
