"""The twin README's example ("The bug as it happened") is run here as it stands.

The test reads the README from the checkout (not the installed package), executes its
first Python block, and runs every ``test_*`` function it defines; it also checks that what
``print(result)`` shows in the README is what the example's fixed charm gives.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[2] / "harness" / "twin" / "README.md"


def blocks(section: str) -> list[str]:
    """The fenced code blocks of one ``## `` section, in order."""
    text = README.read_text()
    start = text.index(f"## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else None]
    return re.findall(r"```[a-z]*\n(.*?)```", body, flags=re.DOTALL)


def example() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "twin_readme_example"}
    exec(compile(blocks("The bug as it happened")[0], str(README), "exec"), namespace)
    return namespace


def test_the_readme_example_runs_and_its_tests_pass(tmp_path: Path) -> None:
    namespace = example()
    tests = {name: value for name, value in namespace.items() if name.startswith("test_")}
    assert len(tests) == 2, sorted(tests)
    for name, test in tests.items():
        test(tmp_path / name)


def test_the_readme_example_fails_without_the_fix(tmp_path: Path) -> None:
    """The example's assertion on the fixed charm is what tells the two apart."""
    namespace = example()
    broken = namespace["disrupt"](namespace["Router"], "node-restart", tmp_path / "unit")
    assert broken.read_text("mysql-router", namespace["CONF"]) is None


def test_the_printed_result_the_readme_shows_is_the_real_one(tmp_path: Path) -> None:
    namespace = example()
    fixed = namespace["disrupt"](namespace["FixedRouter"], "node-restart", tmp_path / "unit")
    shown = blocks("The bug as it happened")[1].strip()
    assert str(fixed) == shown
