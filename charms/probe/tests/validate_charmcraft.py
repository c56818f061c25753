"""Validate charmcraft.yaml with charmcraft's own project model (the lint env runs this).

Charms cannot be packed here (charmcraft refuses non-Ubuntu hosts and needs LXD), but its
pydantic project model is importable anywhere: ``CharmcraftProject.from_yaml_file`` is what
``charmcraft pack`` uses to load the project, with the same preprocessing. Exits 1 with
charmcraft's own error text when the file is invalid, 2 when charmcraft is not installed.

Usage: python charms/probe/tests/validate_charmcraft.py charms/probe/charmcraft.yaml
"""

from __future__ import annotations

import sys
from pathlib import Path


def validate(path: Path) -> str | None:
    """None when charmcraft accepts the file, else charmcraft's message and details."""
    from charmcraft.models.project import CharmcraftProject
    from charmcraft.parts import setup_parts
    from craft_application.errors import CraftValidationError
    from craft_cli import CraftError

    setup_parts()  # registers the charm plugin, as charmcraft does at start-up
    try:
        project = CharmcraftProject.from_yaml_file(path)
    except CraftValidationError as e:
        return "\n".join(filter(None, [str(e), e.details, e.resolution]))
    except CraftError as e:
        return "\n".join(filter(None, [str(e), e.details]))
    if project.type != "charm":
        return f"{path}: type is {project.type!r}, expected 'charm'"
    return None


CONFIG_TYPES = {"string", "int", "float", "boolean", "secret"}
STORAGE_TYPES = {"filesystem", "block"}


def juju_checks(path: Path) -> list[str]:
    """What Juju would refuse at deploy time but charmcraft's model lets through."""
    import yaml

    data = yaml.safe_load(path.read_text())
    problems: list[str] = []
    options = (data.get("config") or {}).get("options") or {}
    for name, option in options.items():
        if option.get("type") not in CONFIG_TYPES:
            problems.append(f"config option {name!r}: type must be one of {sorted(CONFIG_TYPES)}")
    storages = data.get("storage") or {}
    for name, storage in storages.items():
        if storage.get("type") not in STORAGE_TYPES:
            problems.append(f"storage {name!r}: type must be one of {sorted(STORAGE_TYPES)}")
    resources = data.get("resources") or {}
    for name, container in (data.get("containers") or {}).items():
        resource = container.get("resource")
        if resource is not None and resource not in resources:
            problems.append(f"container {name!r}: resource {resource!r} is not declared")
        for mount in container.get("mounts") or []:
            if mount.get("storage") not in storages:
                problems.append(f"container {name!r}: mount of undeclared storage {mount}")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} path/to/charmcraft.yaml", file=sys.stderr)
        return 2
    path = Path(argv[1])
    try:
        problem = validate(path)
    except ImportError as e:
        print(
            f"charmcraft is not installed ({e}); "
            "fix: pip install -r charms/probe/requirements-lint.txt",
            file=sys.stderr,
        )
        return 2
    problems = juju_checks(path) if problem is None else []
    if problems:
        problem = "\n".join(f"- {p}" for p in problems)
    if problem:
        print(f"{path} is not a valid charmcraft 3+ project:\n{problem}", file=sys.stderr)
        return 1
    print(f"{path}: valid for charmcraft (checked with its CharmcraftProject model)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
