"""The model settings that decide which hooks run and what of them is logged.

Juju's defaults for them, where a model's came from (as the evidence records it), and a
logging-config that keeps the uniter's hook lines. Both Juju drivers read and set them.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.common.logging_config import (
    DEFAULT_ROOT,
    LEVELS,
    effective_level,
    keeps_ops_lines,
    parse_logging_config,
)

# Hook results are INFO lines of juju.worker.uniter.operation; "reboot detected" is an INFO
# line of juju.worker.uniter. A logging-config without <root> leaves it at WARNING, which
# drops both (Juju's own default, <root>=INFO, keeps them: harness.common.logging_config).
HOOK_LOG_MODULES = ("juju.worker.uniter", "juju.worker.uniter.operation")


# The model settings that change which hooks run (retrying a failed hook, or not, changes
# the sequence a disruption produces; update-status adds hooks on a timer) and what is
# logged of them. CI bootstraps (actions-operator, concierge) set model-defaults such as
# automatically-retry-hooks=false; a user's deployment has Juju's defaults (docs: "List of
# model configuration keys", Juju 2.9 and 3.6: automatically-retry-hooks true,
# update-status-hook-interval 5m). logging-config is recorded, and only the uniter's
# modules are raised (keep_hook_logging): its level changes what is logged, not what runs.
HOOK_SETTINGS = ("automatically-retry-hooks", "update-status-hook-interval", "logging-config")
JUJU_DEFAULTS = {"automatically-retry-hooks": "true", "update-status-hook-interval": "5m"}


# Where a model's hook settings came from, as the evidence says (Versions.model_config_from).
CONFIG_JUJU_DEFAULTS = "juju-defaults"  # the harness made the model and set Juju's defaults
CONFIG_INHERITED = "inherited"  # it made the model and kept the controller's model-defaults
CONFIG_EXISTING = "existing-model"  # someone else's model: its settings as found
# it made the model and set Juju's defaults, except keys the user's model config set
CONFIG_JUJU_DEFAULTS_EXCEPT_USER = "juju-defaults-except-user"


def config_origin(
    created: bool, juju_defaults: bool, user_set: frozenset[str] = frozenset()
) -> str:
    """How a model's hook settings were arrived at (the harness created it or not)."""
    if not created:
        return CONFIG_EXISTING
    if not juju_defaults:
        return CONFIG_INHERITED
    return (
        CONFIG_JUJU_DEFAULTS_EXCEPT_USER
        if user_set & JUJU_DEFAULTS.keys()
        else CONFIG_JUJU_DEFAULTS
    )


def keeps_hook_lines(logging_config: str) -> bool:
    info = LEVELS.index("INFO")
    return all(
        LEVELS.index(effective_level(logging_config, m)) <= info
        if effective_level(logging_config, m) in LEVELS
        else False
        for m in HOOK_LOG_MODULES
    )


def with_hook_lines(logging_config: str) -> str | None:
    """``logging_config`` with the uniter's modules at INFO, or None if it keeps them already."""
    if keeps_hook_lines(logging_config):
        return None
    entries = parse_logging_config(logging_config)
    if "<root>" not in entries:
        entries = {"<root>": DEFAULT_ROOT, **entries}
    for module in HOOK_LOG_MODULES:
        if not keeps_hook_lines(_serialise(entries)):
            entries[module] = "INFO"
    return _serialise(entries)


# What a model's logging-config costs the controller while settling. Each of settle's reads
# (``juju debug-log --no-tail --lines N`` with a module and a level filter) makes the
# controller walk the model's stored log from its newest record back until N records pass
# both filters, and every record below them is walked and dropped: Juju 2.9 and 3.6 query the
# model's logs collection with the filters on each document and ``Sort("-t", "-_id")
# .Limit(N)`` over its only usable index, (t, _id) (``processReversed`` and
# ``paramsToSelector``, state/logs.go@2.9 and @3.6; the indexes are ``logIndexes`` there),
# and Juju 4.0 scans the model's log file backwards, parsing each line and matching it
# (``processInitialLines`` and ``includeRecord``, internal/logtailer/tailer.go@main). What
# is stored bounds the walk: a capped collection of ``model-logs-size`` (20 MiB by default:
# ``DefaultModelLogsSizeMB``, controller/config.go@2.9 and @3.6), and in 4.0 the current file
# (``model-logfile-max-size``, 10 MiB: ``DefaultModelLogfileMaxSize``, controller/config.go
# @main). With ``<root>=DEBUG`` every worker's DEBUG lines are stored between two hook
# lines, so a read walks far more than it sends, up to that whole bound when fewer than N
# hook lines are stored. So on a model the harness creates, no module but the charms' own is
# kept below INFO (``bounded_logging``); a model it did not create is never changed.
CHATTY = ("TRACE", "DEBUG")


def _charms_own(module: str) -> bool:
    """``unit`` and its children: the charms' juju-log lines (ops' event lines are there)."""
    return module == "unit" or module.startswith("unit.")


def chatty_modules(logging_config: str) -> tuple[str, ...]:
    """The modules (``<root>`` among them) kept below INFO, other than the charms' own."""
    return tuple(
        module
        for module, level in parse_logging_config(logging_config).items()
        if level in CHATTY and not _charms_own(module)
    )


def bounded_logging(logging_config: str) -> str | None:
    """The logging-config the harness gives a model it created, or None to leave it.

    Every module kept below INFO is raised to INFO, except the charms' own (``unit``):
    where ``logging_config`` kept ops' DEBUG event lines (``<root>=DEBUG`` does), they stay
    kept (``unit=DEBUG``). The uniter's hook lines are kept (``with_hook_lines``).
    """
    entries = parse_logging_config(logging_config)
    kept_ops = keeps_ops_lines(logging_config)
    for module in chatty_modules(logging_config):
        entries[module] = "INFO"
    if kept_ops and not keeps_ops_lines(_serialise(entries)):
        entries["unit"] = "DEBUG"
    bounded = _serialise(entries)
    wanted = with_hook_lines(bounded) or bounded
    return None if wanted == logging_config else wanted


def _serialise(entries: Mapping[str, str]) -> str:
    return ";".join(f"{module}={level}" for module, level in entries.items())
