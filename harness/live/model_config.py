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


def _serialise(entries: Mapping[str, str]) -> str:
    return ";".join(f"{module}={level}" for module, level in entries.items())
