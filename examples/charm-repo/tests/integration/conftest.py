from pathlib import Path

import pytest

from harness.charm_suite import CharmStack

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def charm_stack() -> CharmStack:
    return CharmStack(
        bundle=ROOT / "bundle.yaml",
        app="demo",
        source=ROOT,  # the twin runs this code; live packs it with ops_test.build_charm
        watch=("demo:app:/etc/demo/demo.conf",),
        mark=("demo:app:/srv/data/.marker",),  # written by the harness before each run
    )
