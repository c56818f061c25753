"""Option values taken from files beside the bundle: include-file:// and include-base64://."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from pathlib import Path

from harness.scenario.bundle.model import bundle_error


def resolve_includes(bundle: Path, app: str, options: Mapping[str, str]) -> dict[str, str]:
    """Option values Juju reads from a file beside the bundle: ``include-file://PATH`` as
    text, ``include-base64://PATH`` base64-encoded (internal/charm/overlay.go
    resolveIncludes)."""
    out = {}
    for key, value in options.items():
        for directive, encoded in (("include-file://", False), ("include-base64://", True)):
            if not value.startswith(directive):
                continue
            file = bundle.parent / value[len(directive) :]
            try:
                data = file.read_bytes()
                value = base64.b64encode(data).decode() if encoded else data.decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                problem = getattr(exc, "strerror", None) or "not UTF-8 text"
                raise bundle_error(
                    bundle,
                    f"{app}.options.{key}: cannot include {file} ({problem})",
                    "include paths are relative to the bundle's folder",
                ) from None
        out[key] = value
    return out
