from __future__ import annotations

import pytest

from harness.common.versions import JujuVersion


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3.6", JujuVersion(3, 6, 0)),
        ("2.9.43", JujuVersion(2, 9, 43)),
        ("3.6.1-genericlinux-amd64", JujuVersion(3, 6, 1)),
        ("3.0-beta4", JujuVersion(3, 0, 4)),
        ("v3.1.2", JujuVersion(3, 1, 2)),
    ],
)
def test_parses_what_juju_prints(text: str, expected: JujuVersion) -> None:
    assert JujuVersion.parse(text) == expected


def test_orders_numerically_not_lexically() -> None:
    assert JujuVersion.parse("2.9.43") < JujuVersion.parse("2.10") < JujuVersion.parse("3.6")


def test_rejects_garbage_with_an_example() -> None:
    with pytest.raises(ValueError, match=r"e\.g\. 3\.6"):
        JujuVersion.parse("latest")
