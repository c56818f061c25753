"""A charm's assumes block judged as Juju judges it, on real blocks and Juju's real refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from samples import load_sample

from harness.scenario.charm_assumes import juju_refusal, unmet_assumes

MYSQL_K8S = yaml.safe_load(
    (
        Path(__file__).parent.parent
        / "data"
        / "charm_meta"
        / "mysql-k8s_metadata_assumes_2026-01.yaml"
    ).read_text(encoding="utf-8")
)["assumes"]


@pytest.mark.parametrize(
    ("juju", "refused"),
    [
        ("2.9.43", True),  # before 2.9.44
        ("2.9.52", False),
        ("3.1.8", True),  # the kubeflow report's controller
        ("3.4.3", False),
        ("3.5.1", True),
        ("3.6.6", False),
        ("3.6.6.1", False),
        ("4.0.1", True),  # juju < 4
        ("4.0-beta5", False),  # Juju sorts a beta below its release: 4.0-beta5 < 4
    ],
)
def test_the_mysql_k8s_block_is_judged_as_juju_judges_it(juju: str, refused: bool) -> None:
    reason = unmet_assumes(MYSQL_K8S, juju)
    assert (reason is not None) is refused, reason
    if refused:
        assert f"model has version {juju}" in reason
        assert "\n" not in reason


def test_a_refusal_on_juju_4_names_the_bound_that_excludes_it() -> None:
    reason = unmet_assumes(MYSQL_K8S, "4.0.1")
    assert reason is not None
    assert "charm requires Juju version < 4.0.0, model has version 4.0.1" in reason
    assert reason.startswith("charm requires at least one of the following")


@pytest.mark.parametrize(
    "assumes",
    [
        ["k8s-api >= 1.40"],  # the cluster's version is not known here
        ["juju >= 3", "some-feature-juju-has"],  # a feature the harness cannot judge
        ["juju >= three"],  # Juju would not parse it: Juju decides
        [{"one-of": ["juju < 3"]}],
        "juju < 3",
    ],
)
def test_what_cannot_be_judged_here_is_never_refused(assumes: object) -> None:
    assert unmet_assumes(assumes, "3.6.6") is None


def test_a_plain_block_is_met_or_not() -> None:
    assert unmet_assumes(["k8s-api", "juju >= 3.6"], "3.6.0") is None
    assert unmet_assumes(["juju >= 3.6"], "3.5.9") == (
        "charm requires Juju version >= 3.6.0, model has version 3.5.9"
    )
    # A machine model has no k8s-api: the harness does not judge it either way.
    assert unmet_assumes(["k8s-api"], "3.6.0", kubernetes=False) is None
    assert unmet_assumes([], "3.6.0") is None
    assert unmet_assumes(None, "3.6.0") is None


def test_juju_s_own_refusal_becomes_one_line_of_its_reasons() -> None:
    text = load_sample("deploy_error_3.1.8_k8s_assumes_unmet_mysql-k8s.txt")
    reason = juju_refusal(text)
    assert reason is not None
    assert "\n" not in reason
    assert reason.count('charm requires feature "juju"') == 3
    assert (
        'charm requires feature "juju" (version >= 3.5.2) but model currently supports' in reason
    )
    assert juju_refusal('ERROR cannot deploy application "x": charm not found') is None


def test_an_empty_any_of_is_met_as_juju_meets_it() -> None:
    # Juju's satisfyCompositeExpr (core/assumes/sat_checker.go) refuses only on an error
    # from a sub-expression: an any-of with none has none, so Juju deploys the charm.
    assert unmet_assumes([{"any-of": []}], "3.6.0") is None
    assert unmet_assumes(["juju >= 3", {"any-of": []}], "3.6.0") is None


def test_juju_s_refusal_keeps_that_any_one_of_its_alternatives_would_do() -> None:
    # The kubeflow report's three reasons are alternatives (juju < 3, or >= 3.4.3, or
    # >= 3.5.2), not three requirements: the line must not read as "all of these".
    reason = juju_refusal(load_sample("deploy_error_3.1.8_k8s_assumes_unmet_mysql-k8s.txt"))
    assert reason is not None
    assert reason.startswith("charm requires at least one of the following: [")
    assert reason.count("[") == 1, reason  # single-reason all-of blocks add no nesting
    assert reason.endswith("supports version 3.1.8]")


def test_juju_s_refusal_keeps_a_missing_feature_beside_a_version() -> None:
    # Juju 4.0's wording (core/assumes sat_checker_test.go TestErrorReportingFor
    # CompositeExpressions): every reason stays, each under its own block.
    text = (
        'ERROR cannot deploy application "x": Charm cannot be deployed because:\n'
        "  - charm requires at least one of the following:\n"
        "    - charm requires Kubernetes version >= 42.0.0, model is running on version 1.18.0\n"
        '    - charm requires feature "random-feature-a" but model does not support it\n'
        "  - charm requires all of the following:\n"
        '    - charm requires feature "block-storage" but model does not support it\n'
        "    - charm requires Juju version >= 3.0.0, model has version 2.19.42\n"
        "\n"
        "Feature descriptions:\n"
        '  - "juju": the version of Juju used by the model\n'
    )
    assert juju_refusal(text) == (
        "charm requires at least one of the following: [charm requires Kubernetes version "
        ">= 42.0.0, model is running on version 1.18.0; charm requires feature "
        '"random-feature-a" but model does not support it]; charm requires all of the '
        'following: [charm requires feature "block-storage" but model does not support it; '
        "charm requires Juju version >= 3.0.0, model has version 2.19.42]"
    )
