"""Who leads each application of the simulated model.

The first unit an application gets leads; when the leader is removed, the lowest-numbered
unit left leads. The twin models no other leadership change.
"""

from __future__ import annotations

from harness.twin.model import App, Unit


def leads(app: App, unit: Unit) -> bool:
    """Whether ``unit`` (of ``app``) is the application's leader."""
    return app.leader == unit.number


def arrived(app: App, unit: Unit) -> None:
    """``unit`` has joined ``app``: the first unit of an application leads."""
    if app.leader is None:
        app.leader = unit.number


def removed(app: App, unit: Unit) -> None:
    """``unit`` has left ``app``: a removed leader's place goes to the lowest number left."""
    if app.leader == unit.number:
        app.leader = min((u.number for u in app.units), default=None)
