"""Juju's own version grammar (juju/version ``NumberRegex`` and ``Number.Compare``).

``Major.Minor.Patch[.Build]`` for a release, ``Major.Minor-<tag><Patch>[.Build]`` for a
pre-release; a pre-release sorts before every release of its Major.Minor (the tag is
compared before the patch: "" is highest, then lexically, so alpha < beta < rc), and
``3.6-beta2 < 3.6-rc1 < 3.6.0 < 3.6.0.1`` (juju/version version.go).
"""

from __future__ import annotations

import itertools

import pytest

from harness.common.versions import JujuVersion


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3.6", JujuVersion(3, 6, 0)),  # a snap track the harness accepts: 3.6.0, for now
        ("2.9.43", JujuVersion(2, 9, 43)),
        ("3.6.1-genericlinux-amd64", JujuVersion(3, 6, 1)),
        ("2.9.43-ubuntu-amd64", JujuVersion(2, 9, 43)),
        ("3.0-beta4", JujuVersion(3, 0, 4, tag="beta")),
        ("3.2-beta3-genericlinux-amd64", JujuVersion(3, 2, 3, tag="beta")),
        ("3.6-rc1", JujuVersion(3, 6, 1, tag="rc")),
        ("4.0-beta5.1", JujuVersion(4, 0, 5, tag="beta", build=1)),
        ("2.9.43.1", JujuVersion(2, 9, 43, build=1)),
        ("v3.1.2", JujuVersion(3, 1, 2)),
        ("3.6.1\n", JujuVersion(3, 6, 1)),
    ],
)
def test_parses_what_juju_prints(text: str, expected: JujuVersion) -> None:
    assert JujuVersion.parse(text) == expected


def test_orders_numerically_not_lexically() -> None:
    assert JujuVersion.parse("2.9.43") < JujuVersion.parse("2.10") < JujuVersion.parse("3.6")


@pytest.mark.parametrize(
    "ascending",
    [
        ("3.6-beta2", "3.6.0"),
        ("3.6-beta2", "3.6-beta5", "3.6-rc1", "3.6.0", "3.6.0.1", "3.6.1"),
        ("3.5.4", "3.6-alpha1", "3.6-beta1"),
        ("3.1.5", "3.2-beta3", "3.2.0", "3.2.1"),
        ("4.0-beta5", "4.0-beta5.1", "4.0.0"),
        ("2.9", "2.9.0.1", "2.9.1"),
    ],
)
def test_a_pre_release_sorts_before_its_release(ascending: tuple[str, ...]) -> None:
    parsed = [JujuVersion.parse(text) for text in ascending]
    assert parsed == sorted(parsed)
    assert all(a < b for a, b in itertools.pairwise(parsed))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("3.6-beta2", "3.6-beta2"),
        ("2.9.43.1", "2.9.43.1"),
        ("3.6", "3.6.0"),
        ("4.0-rc1", "4.0-rc1"),
    ],
)
def test_prints_as_juju_writes_it(text: str, shown: str) -> None:
    assert str(JujuVersion.parse(text)) == shown


def test_rejects_garbage_with_an_example() -> None:
    with pytest.raises(ValueError, match=r"e\.g\. 3\.6"):
        JujuVersion.parse("latest")


@pytest.mark.parametrize("text", ["3.6-RC1", "3.6.0-rc1", "3.6-1", "3.6.beta1", "3", "3.6.x"])
def test_rejects_what_juju_would_not_parse(text: str) -> None:
    """Juju's NumberRegex: a tag is lowercase letters after a dash, never after a dot."""
    with pytest.raises(ValueError, match="not a Juju version"):
        JujuVersion.parse(text)
