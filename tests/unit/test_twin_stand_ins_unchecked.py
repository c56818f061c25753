"""Stand-ins never confirm themselves: without a charm's metadata, whatever rests on a name
the harness invented (a container, an endpoint, a misspelt --watch container) is
``undetermined`` with the reason, and the plan and the report say which inputs went
unchecked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main as cli

BUNDLE = Path(__file__).parents[1] / "data" / "bundles" / "postgresql-k8s" / "bundle.yaml"


def run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str
) -> tuple[int, str, dict[str, Any], str]:
    code = cli.main(
        [
            "run", "pod-delete", "--bundle", str(BUNDLE), "--app", "postgresql-k8s",
            "--backend", "twin", "--no-probe", "--evidence-dir", str(tmp_path), *extra,
        ]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    folder = Path(out.splitlines()[-1])
    return (
        code,
        out,
        json.loads((folder / "bundle.json").read_text()),
        (folder / "report.md").read_text(),
    )


def test_an_invented_container_never_makes_its_pebble_ready_a_match(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _code, out, raw, report = run(capsys, tmp_path)

    hooks = [f for f in raw["findings"] if f["subject"].startswith("postgresql-k8s/0 [")]
    assert hooks
    assert all(f["verdict"] == "undetermined" for f in hooks), hooks
    assert all("no metadata" in f["detail"] for f in hooks)
    assert not [
        f for f in raw["findings"] if f["verdict"] == "match" and "pebble-ready" in f["observed"]
    ]
    assert "unchecked" in out  # the plan
    assert "unchecked" in report


def test_a_misspelt_watch_container_is_unchecked_not_a_match(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _code, _out, raw, report = run(capsys, tmp_path, "--watch", "postgresql-k8s:nosuch:/etc/x")

    nosuch = [f for f in raw["findings"] if "nosuch" in f["subject"] or "nosuch" in f["observed"]]
    assert nosuch
    assert {f["verdict"] for f in nosuch} == {"undetermined"}
    assert "nosuch" in report.split("unchecked", 1)[1]
