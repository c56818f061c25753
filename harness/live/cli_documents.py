"""Loading what the ``juju`` CLI prints (JSON or YAML) into plain Python, for the parsers.

YAML is read with every scalar as a string (``yaml.BaseLoader``): Juju prints relation data
and action results as strings, and a resolving loader would turn ``"27017"``-looking or
``2023-02-15``-looking values into ints and dates.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from harness.common.errors import HarnessError

_NULLS = frozenset({"", "null", "~", "Null", "NULL"})


def excerpt(text: str, limit: int = 60) -> str:
    """The start of ``text`` on one line, for an error message."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "...")


def load_document(text: str, what: str, fix: str) -> Any:
    """JSON when ``text`` is JSON, else YAML with string scalars; HarnessError otherwise."""
    stripped = text.strip()
    if not stripped:
        raise HarnessError(f"{what} is empty", fix)
    if stripped[0] in "{[":
        try:
            return json.loads(stripped)
        except ValueError:
            pass  # YAML flow style also starts with "{"
    try:
        # BaseLoader builds no objects and keeps every scalar a string.
        return yaml.load(stripped, Loader=yaml.BaseLoader)
    except yaml.YAMLError:
        raise HarnessError(f"{what} is neither JSON nor YAML: {excerpt(stripped)}", fix) from None


def load_mapping(text: str, what: str, fix: str) -> Mapping[str, Any]:
    """Like ``load_document`` but the top level must be a mapping."""
    document = load_document(text, what, fix)
    if not isinstance(document, Mapping):
        raise HarnessError(f"{what} is not a mapping: {excerpt(text)}", fix)
    return document


def is_null(value: object) -> bool:
    """JSON null, or a YAML null read as a string by BaseLoader."""
    return value is None or (isinstance(value, str) and value in _NULLS)


def as_text(value: object) -> str:
    """A scalar as the string Juju meant: JSON ``true`` -> ``"true"``, ``3`` -> ``"3"``."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return json.dumps(value, sort_keys=True)


def as_mapping(value: object) -> Mapping[str, Any]:
    """A mapping, or an empty one for null or an empty YAML value."""
    if isinstance(value, Mapping):
        return value
    return {}


def as_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.lower() == "true"


def as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def flatten(values: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """Nested mappings as dotted keys: ``{"a": {"b": 1}}`` -> ``("a.b", "1")``."""
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            yield from flatten(value, f"{name}.")
        else:
            yield name, as_text(value)
