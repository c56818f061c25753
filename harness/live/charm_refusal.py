"""Juju refusing a charm for what it assumes, from either driver: one line with Juju's reasons."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from harness.lab.ports import AppSpec
from harness.live.juju_cli import JujuCLIError
from harness.scenario.charm_assumes import refused_deploy, refused_refresh


def _error_text(error: Exception) -> str:
    """All Juju said: a CLI error's whole output (its message keeps only the last line)."""
    if isinstance(error, JujuCLIError):
        return f"{error.stderr}\n{error.stdout}"
    return str(error)


@contextlib.contextmanager
def deploy_refusal(spec: AppSpec) -> Iterator[None]:
    """Juju refusing ``spec``'s charm for its assumes is one line with its reasons, from
    either driver: libjuju's JujuError (imported only with libjuju) or the CLI's error."""
    try:
        yield
    except Exception as error:
        refused = refused_deploy(
            spec.app, spec.charm, spec.channel, spec.revision, _error_text(error)
        )
        if refused is None:
            raise
        raise refused from None


@contextlib.contextmanager
def refresh_refusal(app: str, path: str | None, channel: str | None) -> Iterator[None]:
    """Juju refusing a refresh for the charm's assumes is one line with its reasons: the
    CLI's last line is only the end of Juju's list (or its feature descriptions)."""
    try:
        yield
    except JujuCLIError as error:
        refused = refused_refresh(app, path or channel or "its charm", _error_text(error))
        if refused is None:
            raise
        raise refused from None
