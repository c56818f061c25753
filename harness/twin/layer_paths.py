"""Where a container path lives inside a layer directory.

A leaf of its own because both the layers (``harness.twin.layers``) and the simulated file
metadata kept for them (``harness.twin.stamps``) need it, and the layers import the stamps.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath


def in_layer(root: Path, container_path: str) -> Path:
    """Where an absolute container path lives inside a layer directory."""
    return root.joinpath(*PurePosixPath(container_path).relative_to("/").parts)
