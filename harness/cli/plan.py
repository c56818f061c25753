"""``repro run --dry-run``: the plan printed, and live, what the local ``juju`` client says.

On live, the plan begins with the client's version and the driver it implies, says what the
run does to the model's hook settings, and ends with the hooks the catalogue expects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.cli.arguments import parse_juju
from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion

if TYPE_CHECKING:
    from harness.run.options import RunOptions


@dataclass(frozen=True)
class _ClientPlan:
    """What a live dry run learns from the local ``juju`` client (no controller needed)."""

    version: JujuVersion | None
    lines: tuple[str, ...]


def print_plan(
    options: RunOptions,
    backend: str,
    disruption: str,
    juju: JujuVersion | None,
    lines_for: Callable[[JujuVersion | None], Iterable[str]],
    containers: Sequence[str] = (),
) -> None:
    """A dry run's plan; live, with what the local juju client says and what to expect."""
    if backend == "live":
        client = _live_client_plan(options.juju_driver)
        juju = client.version or juju
        for line in client.lines:
            print(line)
        print(_model_config_line(options.inherit_model_config))
    for line in lines_for(juju):
        print(line)
    if backend == "live" and juju is not None:
        print(_expected_hooks_line(disruption, juju, containers))
    if backend == "live":
        consent = _consent_line(disruption, options.allow_node_restart)
        if consent:
            print(consent)


def _consent_line(disruption: str, allowed: bool) -> str | None:
    """A live dry run of a disruption that stops MicroK8s says the real run asks first."""
    from harness.disrupt import get
    from harness.disrupt.node_restart import CONSENT_FLAG, WHY_CONSENT

    try:
        if not get(disruption).takes_node_down:
            return None
    except HarnessError:
        return None
    given = "given" if allowed else "not given: the real run refuses without it"
    return f"# {disruption} {WHY_CONSENT}: the real run needs {CONSENT_FLAG} ({given})"


def _live_client_plan(requested_driver: str) -> _ClientPlan:
    """The client's version, the driver it implies and what differs on that Juju."""
    from harness.live.drivers import COVERS, choose_driver, client_version

    text = client_version()
    if text is None:
        driver = choose_driver(requested_driver, None)
        return _ClientPlan(
            None, (f"# juju client: not found or not answering; Juju driver {driver} assumed",)
        )
    version = parse_juju(text)
    driver = choose_driver(requested_driver, version)
    lines = [
        f"# juju client {text} (Juju {version.major}.{version.minor}): "
        f"Juju driver {driver} (covers Juju {COVERS[driver]})"
    ]
    if version.major >= 4:
        lines += [
            "# Juju 4: python-libjuju does not support it; jubilant drives the juju CLI",
            "# Juju 4: the probe is deployed as a packed .charm (deploying a directory was "
            "removed)",
            "# Juju 4: juju show-unit shows each unit's own application databag, so relation "
            "data is read from the units on both sides",
        ]
    return _ClientPlan(version, tuple(lines))


def _expected_hooks_line(
    disruption: str, juju: JujuVersion, containers: Sequence[str] = ()
) -> str:
    """The catalogue's hooks; ``containers`` (the charm's, when known) name its templates."""
    from harness.catalogue import load

    try:
        expectation = load().expect(disruption, juju)
    except HarnessError as error:
        return f"# the catalogue has no expectation for {disruption} on Juju {juju}: {error}"
    hooks = []
    for hook in expectation.required_hooks():
        if "{container}" in hook and containers:
            hooks += [hook.replace("{container}", c) for c in containers]
        else:
            hooks.append(hook)
    listed = ", ".join(hooks) or "(none)"
    return f"# the catalogue expects on Juju {juju.major}.{juju.minor}: {listed}"


def _model_config_line(inherit: bool) -> str:
    """What a live run does to the hook settings of the model it creates."""
    from harness.live.model_config import JUJU_DEFAULTS

    if inherit:
        return (
            "# model config: a model the harness creates keeps the controller's "
            "model-defaults (--inherit-model-config); an existing --model is used as it is"
        )
    defaults = " ".join(f"{k}={v}" for k, v in JUJU_DEFAULTS.items())
    return (
        f"# model config: a model the harness creates gets Juju's defaults ({defaults}), "
        "not the controller's model-defaults; an existing --model is used as it is"
    )
