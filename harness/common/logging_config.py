"""A model's ``logging-config``: which of its modules' lines Juju keeps, and at what level.

The unit agent drops a line below its module's level before it reaches the controller
(the agent's logger worker applies the model's logging-config to its loggers:
worker/logger/logger.go@juju-2.9.31 and @3.6, internal/worker/logger/logger.go@main; a
Kubernetes unit's containerAgent runs that worker: cmd/containeragent/unit/manifolds.go
on all three; a charm's juju-log logger is a child of that root: HookContext.GetLogger in
worker/uniter/runner/context/context.go@juju-2.9.31 and @3.6, GetLoggerByName @main), so
``juju debug-log`` can only show what this let through. A module's level is that of its
longest configured dotted prefix, else ``<root>``. Juju's default for a new model is
``<root>=INFO`` (environs/config/config.go ``defaultLoggingConfig``, since 2.8.4: juju
commit fda93b62d6; 2.9.31, 3.6 and main); before 2.8.4 an unset value meant loggo's default
root, WARNING, which is what a config without ``<root>`` still gets.
"""

from __future__ import annotations

LEVELS = ("TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DEFAULT_ROOT = "WARNING"

# ops logs "Emitting Juju event <name>." at DEBUG (ops/_main.py) through juju-log, whose
# module is unit.<app>/<n>.juju-log (worker/uniter/runner/jujuc/juju-log.go).
OPS_EVENT_LEVEL = "DEBUG"
_ANY_UNIT_LOG = "unit.any/0.juju-log"


def parse_logging_config(text: str) -> dict[str, str]:
    """``<root>=INFO;unit=DEBUG`` -> {"<root>": "INFO", "unit": "DEBUG"}."""
    entries: dict[str, str] = {}
    for part in text.split(";"):
        module, sep, level = part.strip().partition("=")
        if sep and module.strip():
            entries[module.strip()] = level.strip().upper()
    return entries


def effective_level(logging_config: str, module: str) -> str:
    """The level Juju applies to ``module``: its longest configured prefix, else ``<root>``."""
    entries = parse_logging_config(logging_config)
    best, best_len = entries.get("<root>", DEFAULT_ROOT), -1
    for name, level in entries.items():
        if name.startswith(("<", "#")):
            continue
        if (module == name or module.startswith(name + ".")) and len(name) > best_len:
            best, best_len = level, len(name)
    return best


def keeps(logging_config: str, module: str, level: str) -> bool:
    """Whether a ``level`` line of ``module`` is kept (an unknown level keeps nothing)."""
    applied = effective_level(logging_config, module)
    return applied in LEVELS and LEVELS.index(applied) <= LEVELS.index(level)


def keeps_ops_lines(logging_config: str) -> bool:
    """Whether ops' DEBUG event lines of some unit's juju-log are kept."""
    modules = [_ANY_UNIT_LOG]
    for name in parse_logging_config(logging_config):
        if name.startswith("unit."):
            modules.append(name if name.endswith(".juju-log") else f"{name}.juju-log")
    return any(keeps(logging_config, m, OPS_EVENT_LEVEL) for m in modules)


def ops_lines_note(logging_config: str) -> str | None:
    """What the evidence must say when ops' event lines cannot be in the log; else None."""
    if keeps_ops_lines(logging_config):
        return None
    level = effective_level(logging_config, _ANY_UNIT_LOG)
    return (
        f"ops' event lines (`Emitting Juju event`, DEBUG) are not in this model's log: "
        f"logging-config {logging_config or '(empty)'!r} keeps unit.<app>/<n>.juju-log "
        f"at {level}, so a unit without uniter hook lines has no second source "
        "(a model whose logging-config has unit=DEBUG keeps them)"
    )


def config_value(recorded: str) -> str:
    """``<root>=INFO (default)`` (a recorded "value (source)") -> ``<root>=INFO``."""
    value, sep, source = recorded.rpartition(" (")
    return value if sep and source.endswith(")") and " " not in source else recorded
