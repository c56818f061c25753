"""Action output parsing on every recorded `run-action --wait` / `juju run` output."""

from __future__ import annotations

import json

import pytest
from samples import load_sample, sample_names

from harness.common.errors import HarnessError
from harness.lab.ports import ActionResult
from harness.live.parse import parse_action_output, parse_action_outputs

COVERED = {
    "run_action_plain_3.x_grafana_get_admin_password.txt",
    "run_action_wait_yaml_2.9_data_integrator_nested_results.txt",
    "run_action_wait_yaml_2.9_mysql_k8s_chained_two_docs.txt",
    "run_action_wait_yaml_2.9_mysql_k8s_get_set_password.txt",
    "run_action_wait_yaml_2.9_postgresql_k8s_get_password.txt",
    "run_action_yaml_3.x_k8s_traefik_show_proxied_endpoints.txt",
}


def test_every_action_sample_is_covered() -> None:
    assert set(sample_names("run_action_")) == COVERED


def test_2_9_keyed_by_unit_tag() -> None:
    text = load_sample("run_action_wait_yaml_2.9_postgresql_k8s_get_password.txt")

    result = parse_action_output(text, "postgresql-k8s/0", "get-password")

    assert result == ActionResult(
        unit="postgresql-k8s/0",
        action="get-password",
        status="completed",
        results={"password": "SYhCduijXTAfg9mU"},
        return_code=None,
    )


def test_2_9_nested_results_are_flattened_and_stay_strings() -> None:
    text = load_sample("run_action_wait_yaml_2.9_data_integrator_nested_results.txt")

    result = parse_action_output(text, "data-integrator/0", "get-credentials")

    assert result.status == "completed"
    assert result.results == {
        "mysql.endpoints": "mysql-k8s-0.mysql-k8s-endpoints:3306",
        "mysql.password": "7VRfmGjfUI1pVUPsfbMwmHFm",
        "mysql.read-only-endpoints": (
            "mysql-k8s-0.mysql-k8s-endpoints:3306,mysql-k8s-1.mysql-k8s-endpoints:3306"
        ),
        "mysql.username": "relation-3",
        "mysql.version": "8.0.31-0ubuntu0.22.04.1",
        "ok": "True",
    }


def test_2_9_chained_outputs_with_the_same_key_keep_both() -> None:
    text = load_sample("run_action_wait_yaml_2.9_mysql_k8s_chained_two_docs.txt")

    first, second = parse_action_outputs(text, "mysql-k8s/0")
    last = parse_action_output(text, "mysql-k8s/0", "get-password")

    assert (first.status, first.results) == ("completed", {})
    assert second.results == {"password": "my-password", "username": "root"}
    assert (last.action, last.results) == ("get-password", second.results)


def test_2_9_get_then_set_password() -> None:
    text = load_sample("run_action_wait_yaml_2.9_mysql_k8s_get_set_password.txt")

    results = parse_action_outputs(text, "mysql-k8s/0", "x")

    assert [r.results for r in results] == [
        {"password": "sQI3Ojih7uL5UC4J1D9Xuqgx", "username": "root"},
        {},
    ]
    assert parse_action_output(text, "mysql-k8s/0").results == {}


def test_3_x_yaml_after_progress_lines() -> None:
    text = load_sample("run_action_yaml_3.x_k8s_traefik_show_proxied_endpoints.txt")

    result = parse_action_output(text, "traefik-k8s/0", "show-proxied-endpoints")

    assert (result.status, result.return_code) == ("completed", 0)
    assert list(result.results) == ["proxied-endpoints"]
    assert json.loads(result.results["proxied-endpoints"]) == {
        "traefik-k8s": {"url": "http://10.12.97.102"},
        "hockeypuck-k8s": {"url": "http://10.12.97.102/hockeypuck-tutorial-hockeypuck-k8s"},
    }


def test_3_x_plain_output_is_refused_with_the_fix() -> None:
    text = load_sample("run_action_plain_3.x_grafana_get_admin_password.txt")

    with pytest.raises(HarnessError) as caught:
        parse_action_output(text, "grafana/0", "get-admin-password")

    message = str(caught.value)
    assert "plain `juju run` output has no status or return code" in message
    assert "--format yaml" in message
    assert "\n" not in message


def test_3_x_json_failure() -> None:
    text = json.dumps(
        {
            "probe/0": {
                "id": "8",
                "message": "exit status 1",
                "results": {"return-code": 1, "stderr": "Traceback ...", "stdout": "hi"},
                "status": "failed",
                "timing": {"completed": "2026-01-01 10:00:02 +0000 UTC"},
                "unit": "probe/0",
            }
        }
    )

    result = parse_action_output(text, "probe/0", "journal")

    assert result == ActionResult(
        unit="probe/0",
        action="journal",
        status="failed",
        results={},
        return_code=1,
        stdout="hi",
        stderr="Traceback ...",
        message="exit status 1",
    )


def test_2_9_json_with_juju_keys_inside_results() -> None:
    text = json.dumps(
        {
            "unit-probe-peer-1": {
                "UnitId": "probe-peer/1",
                "id": "12",
                "results": {"Code": "0", "Stdout": "done\n", "entries": "[]", "cursor": "4"},
                "status": "completed",
            }
        }
    )

    result = parse_action_output(text, "probe-peer/1", "journal")

    assert (result.return_code, result.stdout) == (0, "done\n")
    assert result.results == {"entries": "[]", "cursor": "4"}


def test_other_units_are_ignored() -> None:
    text = (
        "probe/0:\n  status: completed\n  results:\n    cursor: '1'\n"
        "probe/1:\n  status: failed\n  results:\n    cursor: '2'\n"
    )

    assert parse_action_output(text, "probe/1").status == "failed"
    with pytest.raises(HarnessError, match=r"no result for probe/2 \(found: probe/0, probe/1\)"):
        parse_action_output(text, "probe/2")


@pytest.mark.parametrize(
    "text",
    [
        "",
        'ERROR action "nope" not defined on unit "probe/0"',
        "probe/0:\n  id: '3'\n",
        "[1, 2]",
    ],
)
def test_outputs_without_a_result_are_one_line_errors(text: str) -> None:
    with pytest.raises(HarnessError) as caught:
        parse_action_output(text, "probe/0")

    assert "juju action output has no per-unit result" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_broken_yaml_block_is_a_one_line_error() -> None:
    with pytest.raises(HarnessError, match="neither JSON nor YAML"):
        parse_action_output("probe/0:\n  results: [unclosed\n", "probe/0")
