"""What the live backend needs, checked before anything touches a cluster."""

from __future__ import annotations

import shutil

from harness.live.controller import controller_reachable


def live_prerequisites_missing(*, charmcraft: bool = True) -> str | None:
    """One line naming what is missing for a live run, or None when all is there.

    ``charmcraft=False`` for the jubilant driver, which (unlike pytest-operator) does not
    need charmcraft to start.
    """
    if shutil.which("juju") is None:
        return (
            "the `juju` CLI is not on PATH (sudo snap install juju, then juju bootstrap microk8s)"
        )
    # pytest-operator's ops_test refuses to start without charmcraft, even for a prebuilt charm.
    if charmcraft and shutil.which("charmcraft") is None:
        return "`charmcraft` is not on PATH (sudo snap install charmcraft --classic)"
    if not controller_reachable():
        return "no Juju controller is reachable (bootstrap one: juju bootstrap microk8s)"
    return None
