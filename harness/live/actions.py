"""Action output as an ActionResult: Juju 2.9 ``run-action --wait`` and 3.x ``juju run``.

Shapes handled (tests/data/samples/run_action_*):

- 2.9 ``juju run-action UNIT ACTION --wait [--format json]``: keyed by unit tag
  (``unit-mysql-k8s-0:``) with ``UnitId``, ``id``, ``results`` (Juju's own ``Code``,
  ``Stdout``, ``Stderr`` next to the charm's values), ``status`` and ``timing``;
- 3.x ``juju run UNIT ACTION --format yaml|json``: keyed by unit name with ``unit``,
  ``results.return-code``, ``status``, ``message``; its ``Running operation...`` progress
  lines (stderr, but often captured together) are skipped;
- several outputs one after the other, even with the same top-level key (chained commands):
  read block by block, and the last one for the unit wins.

Nested results are flattened to dotted keys (``mysql.password``); every value is a string.
The 3.x default ``plain`` format prints only the charm's results, without status or return
code, so it is refused with a message asking for ``--format yaml`` or ``json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from harness.common.errors import HarnessError
from harness.lab.ports import ActionResult
from harness.live.cli_documents import as_int, as_mapping, as_text, excerpt, flatten

_FIX = "run the action with `--format yaml` or `--format json` and pass its stdout"

# Juju's own keys inside `results`, as opposed to what the charm set with action-set.
_RETURN_CODE_KEYS = ("return-code", "Code")
_STDOUT_KEYS = ("stdout", "Stdout")
_STDERR_KEYS = ("stderr", "Stderr")
_JUJU_RESULT_KEYS = frozenset(
    (*_RETURN_CODE_KEYS, *_STDOUT_KEYS, *_STDERR_KEYS, "stdout-encoding", "stderr-encoding")
)

# A top-level YAML key on a line of its own (`unit-probe-0:`, `probe/0: `).
_TOP_KEY = re.compile(r"[^\s#\-\"'][^:]*:[ \t]*$")


def parse_action_output(text: str, unit: str, action: str = "") -> ActionResult:
    """The result of one action on ``unit`` from ``juju run``/``run-action`` output.

    When the output holds several results for ``unit`` (chained commands), the last one.
    """
    return parse_action_outputs(text, unit, action)[-1]


def parse_action_outputs(text: str, unit: str, action: str = "") -> tuple[ActionResult, ...]:
    """Every result for ``unit`` in the output, in the order printed (at least one)."""
    entries = list(_entries(text))
    if not entries:
        raise HarnessError(
            "juju action output has no per-unit result (plain `juju run` output has no"
            f" status or return code): {excerpt(text)}",
            _FIX,
        )
    tag = "unit-" + unit.replace("/", "-")
    mine = [
        entry
        for key, entry in entries
        if key in (unit, tag) or unit in (entry.get("UnitId"), entry.get("unit"))
    ]
    if not mine:
        found = ", ".join(sorted({key for key, _ in entries}))
        raise HarnessError(f"juju action output has no result for {unit} (found: {found})", _FIX)
    return tuple(_result(entry, unit, action) for entry in mine)


def _entries(text: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(top-level key, entry) for every entry that looks like an action result."""
    stripped = text.strip()
    documents: list[Any] = []
    if stripped.startswith("{"):
        try:
            documents = [json.loads(stripped)]
        except ValueError:
            documents = []
    if not documents:
        documents = [_load_block(block) for block in _yaml_blocks(text)]
    for document in documents:
        if not isinstance(document, Mapping):
            continue
        for key, entry in document.items():
            if isinstance(entry, Mapping) and ("status" in entry or "results" in entry):
                yield str(key), entry


def _yaml_blocks(text: str) -> Iterator[str]:
    """Each top-level key with its indented lines; anything else (progress lines) dropped."""
    block: list[str] = []
    for line in text.splitlines():
        if _TOP_KEY.match(line):
            if block:
                yield "\n".join(block)
            block = [line]
        elif block and (not line.strip() or line[0].isspace()):
            block.append(line)
        elif block:
            yield "\n".join(block)
            block = []
    if block:
        yield "\n".join(block)


def _load_block(block: str) -> Any:
    try:
        # BaseLoader builds no objects and keeps every scalar a string.
        return yaml.load(block, Loader=yaml.BaseLoader)
    except yaml.YAMLError:
        raise HarnessError(
            f"juju action output is neither JSON nor YAML: {excerpt(block)}", _FIX
        ) from None


def _result(entry: Mapping[str, Any], unit: str, action: str) -> ActionResult:
    raw = as_mapping(entry.get("results"))

    def juju_value(keys: tuple[str, ...]) -> object:
        return next((raw[k] for k in keys if k in raw), None)

    stdout = juju_value(_STDOUT_KEYS)
    stderr = juju_value(_STDERR_KEYS)
    charm_results = {k: v for k, v in raw.items() if k not in _JUJU_RESULT_KEYS}
    return ActionResult(
        unit=unit,
        action=action,
        status=as_text(entry.get("status")) or "unknown",
        results=dict(flatten(charm_results)),
        return_code=as_int(juju_value(_RETURN_CODE_KEYS)),
        stdout=as_text(stdout if stdout is not None else entry.get("stdout")),
        stderr=as_text(stderr if stderr is not None else entry.get("stderr")),
        message=as_text(entry.get("message")),
    )
