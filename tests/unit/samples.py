"""Real `juju`/`kubectl` output recorded in tests/data/samples (see its README.md)."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"


def strip_sample_header(text: str) -> str:
    """Drop the leading ``# source:``/``# version:``/``# kind:`` comment lines."""
    lines = text.splitlines(keepends=True)
    start = 0
    while start < len(lines) and lines[start].startswith("# "):
        start += 1
    return "".join(lines[start:])


def load_sample(name: str) -> str:
    """The verbatim text of one sample, without its header."""
    return strip_sample_header((SAMPLES / name).read_text(encoding="utf-8"))


def sample_names(prefix: str) -> list[str]:
    """Every sample file whose name starts with ``prefix``, sorted."""
    return sorted(path.name for path in SAMPLES.glob(f"{prefix}*"))
