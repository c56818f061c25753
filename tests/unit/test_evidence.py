"""bundle.json: schema, determinism, round trip, redaction and read errors."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from evidence_samples import PASSWORD, evidence, snapshots

from harness.common.errors import HarnessError
from harness.common.redact import redacted
from harness.evidence.bundle import read_bundle, to_json
from harness.evidence.write import write_bundle


def shipped_schema() -> dict[str, object]:
    text = resources.files("harness").joinpath("evidence/schema.json").read_text("utf-8")
    return json.loads(text)


def written(tmp_path: Path, **kwargs: object) -> dict[str, object]:
    folder = write_bundle(evidence(**kwargs), tmp_path / "bundle")
    return json.loads((folder / "bundle.json").read_text("utf-8"))


@pytest.mark.parametrize("backend", ["twin", "live"])
def test_written_bundle_validates_against_the_shipped_schema(tmp_path: Path, backend: str) -> None:
    raw = written(tmp_path, backend=backend)

    jsonschema.Draft202012Validator(shipped_schema()).validate(raw)
    assert raw["schema"] == "1"
    assert raw["backend"] == backend
    assert raw["simulated"] is (backend == "twin")
    assert set(raw) >= {
        "scenario", "versions", "steps", "before", "after", "hooks", "findings", "commands",
        "error",
    }  # fmt: skip


def test_the_folder_holds_the_three_views(tmp_path: Path) -> None:
    folder = write_bundle(evidence(), tmp_path / "run")

    assert sorted(p.name for p in folder.iterdir()) == [
        "bundle.json",
        "report.md",
        "report.txt",
        "timeline.svg",
    ]


def test_unknown_versions_are_null_not_missing(tmp_path: Path) -> None:
    raw = written(tmp_path)

    versions = raw["versions"]
    assert isinstance(versions, dict)
    assert versions["microk8s"] is None
    assert {
        "app": "probe",
        "charm": "./probe.charm",
        "channel": None,
        "revision": None,
    } in versions["charms"]


def test_schema_rejects_a_twin_bundle_that_is_not_simulated(tmp_path: Path) -> None:
    raw = written(tmp_path)
    raw["simulated"] = False

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(raw, shipped_schema())


def test_schema_rejects_a_multi_line_error_and_a_missing_field(tmp_path: Path) -> None:
    raw = written(tmp_path, error="one line")
    jsonschema.validate(raw, shipped_schema())

    for broken in ({**raw, "error": "two\nlines"}, {k: v for k, v in raw.items() if k != "hooks"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, shipped_schema())


def test_same_evidence_gives_byte_identical_bundles_whatever_the_snapshot_order(
    tmp_path: Path,
) -> None:
    first = evidence()
    assert first.before is not None
    shuffled_before = replace(
        first.before,
        pods=tuple(reversed(first.before.pods)),
        files=tuple(reversed(first.before.files)),
        relations=tuple(reversed(first.before.relations)),
    )
    a = write_bundle(first, tmp_path / "a") / "bundle.json"
    b = write_bundle(replace(first, before=shuffled_before), tmp_path / "b") / "bundle.json"

    assert a.read_bytes() == b.read_bytes()
    assert a.read_text("utf-8").endswith("}\n")


def test_read_bundle_round_trips(tmp_path: Path) -> None:
    folder = write_bundle(evidence(error="disruption failed: boom"), tmp_path / "run")

    again = read_bundle(folder)

    assert to_json(again) == (folder / "bundle.json").read_text("utf-8")
    assert again.error == "disruption failed: boom"
    assert again.scenario == "lp2021891-pod-delete"
    assert [f.verdict for f in again.findings] == ["match", "deviation", "known-bug", "match"]
    assert again.after is not None
    assert again.after.pod("probe/0") is not None
    assert read_bundle(folder / "bundle.json") == again


def test_a_bundle_without_snapshots_is_still_valid(tmp_path: Path) -> None:
    raw = written(tmp_path, before=None, after=None, findings=(), error="RuntimeError: no pods")

    jsonschema.validate(raw, shipped_schema())
    assert raw["before"] is None


def test_secret_looking_databag_values_never_reach_any_file(tmp_path: Path) -> None:
    before, after = snapshots()
    bag = replace(
        before.relations[0],
        data={
            "password": PASSWORD,
            "secret-id": "secret://abcdef0123",
            "api_token": "tok-123456",
            "tls-private-key": "-----BEGIN KEY-----",
            "endpoints": "10.0.0.1:6446",
        },
    )
    value = evidence(before=replace(before, relations=(bag,)), after=after)
    folder = write_bundle(value, tmp_path / "run")

    for name in ("bundle.json", "report.md", "report.txt", "timeline.svg"):
        text = (folder / name).read_text("utf-8")
        for secret in (PASSWORD, "secret://abcdef0123", "tok-123456", "-----BEGIN KEY-----"):
            assert secret not in text, (name, secret)
    raw = json.loads((folder / "bundle.json").read_text("utf-8"))
    data = raw["before"]["relations"][0]["data"]
    digest = hashlib.sha256(PASSWORD.encode()).hexdigest()[:8]
    assert data["password"] == f"<redacted sha256:{digest}>"
    assert data["secret-id"].startswith("<redacted sha256:")
    assert data["endpoints"] == "10.0.0.1:6446"
    # The verdict's observed text leaked the password; the writer caught it there too.
    assert f"password=<redacted sha256:{digest}>" in raw["findings"][3]["observed"]


def test_redaction_is_idempotent() -> None:
    once = redacted("hunter2-hunter2")
    assert redacted(once) == once


def test_read_bundle_of_a_missing_folder_says_so(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="no such bundle folder"):
        read_bundle(tmp_path / "nope")


def test_read_bundle_of_a_folder_without_bundle_json_says_so(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match=r"no bundle\.json in"):
        read_bundle(tmp_path)


def test_read_bundle_of_broken_json_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "bundle.json").write_text('{"schema": "1",\n oops}', "utf-8")

    with pytest.raises(HarnessError, match="is not JSON \\(line 2"):
        read_bundle(tmp_path)


def test_read_bundle_of_a_schema_invalid_bundle_names_the_field(tmp_path: Path) -> None:
    folder = write_bundle(evidence(), tmp_path / "run")
    raw = json.loads((folder / "bundle.json").read_text("utf-8"))
    raw["findings"][0]["verdict"] = "maybe"
    (folder / "bundle.json").write_text(json.dumps(raw), "utf-8")

    with pytest.raises(HarnessError) as caught:
        read_bundle(folder)

    message = str(caught.value)
    assert "findings/0/verdict" in message
    assert "\n" not in message
