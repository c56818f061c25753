"""The package's shape, as the README's Architecture section draws it, read from the imports.

Every harness module's imports (top-level and inside functions alike) are read with ``ast``:
no module imports another that imports it back, no ``_private`` name is imported from
another module, each folder imports only from the folders below it in the README's list,
and that list names exactly the folders under ``harness/``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "harness"

# The README's order, top to bottom; a module may import from its own folder or any below.
LAYERS = (
    "checks charm_suite pytest_plugin",
    "cli",
    "reference",
    "suite",
    "run",
    "twin",
    "evidence",
    "disrupt",
    "verdict",
    "observe",
    "live",
    "scenario",
    "catalogue",
    "lab",
    "common",
)
PUBLIC_FACES = {"__init__", "checks", "charm_suite", "pytest_plugin"}
LONGEST = 520  # lines: "about 500" (the issue that set the layout); evidence/bundle.py is one idea


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> Iterator[tuple[str, str]]:
    """(module, name) for every harness import in the file; name is '*' for `import x`."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == "harness":
                for alias in node.names:
                    yield node.module, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "harness":
                    yield alias.name, "*"


def imported_modules(path: Path, known: dict[str, Path]) -> set[str]:
    found = set()
    for module, name in imports(path):
        # `from harness.x import y` imports the module harness.x.y when there is one.
        found.add(f"{module}.{name}" if f"{module}.{name}" in known else module)
    return found


def layer_of(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    for index, names in enumerate(LAYERS):
        if top in names.split():
            return index
    return -1  # harness/__init__.py: the package itself


def test_no_module_imports_one_that_imports_it_back() -> None:
    known = modules()
    graph = {name: imported_modules(path, known) & known.keys() for name, path in known.items()}
    circles = []
    for start in graph:
        # Depth-first from each module: a path that comes back to it is a circle.
        stack = [(start, (start,))]
        while stack:
            here, path = stack.pop()
            for there in graph[here]:
                if there == start:
                    circles.append(" -> ".join((*path, start)))
                elif there not in path and len(path) < 12:
                    stack.append((there, (*path, there)))
    assert not circles, "import circles:\n" + "\n".join(sorted(set(circles))[:10])


def test_no_private_name_is_imported_across_modules() -> None:
    crossing = [
        f"{name} imports {module}.{imported}"
        for name, path in modules().items()
        for module, imported in imports(path)
        if imported.startswith("_") and not imported.startswith("__")
    ]
    assert not crossing


def test_each_folder_imports_only_from_the_folders_below_it() -> None:
    known = modules()
    upward = [
        f"{name} -> {target}"
        for name, path in known.items()
        for target in imported_modules(path, known) & known.keys()
        if layer_of(name) >= 0 and layer_of(target) >= 0 and layer_of(target) < layer_of(name)
    ]
    assert not upward, "imports that run up the README's list:\n" + "\n".join(upward)


def test_the_package_root_holds_only_the_public_faces() -> None:
    root_modules = {p.stem for p in PACKAGE.glob("*.py")}
    assert root_modules <= PUBLIC_FACES, root_modules - PUBLIC_FACES


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: module_name(p))
def test_no_module_outgrows_one_idea(path: Path) -> None:
    lines = len(path.read_text("utf-8").splitlines())
    assert lines <= LONGEST, f"{path.relative_to(ROOT)}: {lines} lines; split it along its ideas"


def test_the_readme_architecture_lists_exactly_the_folders() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Architecture", 1)[1].split("\n## ", 1)[0]
    tree = section.split("```", 4)[3]  # the second code block: the folder list
    listed = re.findall(r"^  (\w+)/", tree, flags=re.MULTILINE)
    folders = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    assert sorted(listed) == folders
    # and in the order the import check enforces
    assert listed == [name for names in LAYERS for name in names.split() if name in folders]
