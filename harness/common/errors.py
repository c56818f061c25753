"""Errors a person acts on: each says what is wrong and how to fix it, in one line."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class HarnessError(Exception):
    """A problem the user can fix; the CLI prints it as one line and exits 2."""

    def __init__(self, problem: str, fix: str = "") -> None:
        self.problem = problem
        self.fix = fix
        super().__init__(f"{problem} ({fix})" if fix else problem)


class UnknownName(HarnessError):
    """An unknown scenario, disruption, unit or application name."""


def choose_one_of(name: str, choices: Iterable[str]) -> str:
    """The fix for a ``name`` not in ``choices``: a typo is told the choice it resembles."""
    known = list(dict.fromkeys(choices))
    close = difflib.get_close_matches(name, known, n=1)
    meant = f"did you mean {close[0]}? " if close else ""
    return f"{meant}choose one of: {', '.join(known)}"


def unknown(kind: str, name: str, choices: Iterable[str]) -> UnknownName:
    """``name`` is not one of ``choices``."""
    return UnknownName(f"unknown {kind} {name!r}", choose_one_of(name, choices))


class EnvironmentUnavailable(HarnessError):
    """No controller, no cluster, no sudo: the live backend cannot run here."""


class WaitTimeout(HarnessError):
    """A named condition did not hold in time; carries the last state seen."""

    def __init__(
        self, condition: str, waited: float, last_seen: str, *, simulated: bool = False
    ) -> None:
        self.condition = condition
        self.waited = waited
        self.last_seen = last_seen
        clock = " on the twin's simulated clock" if simulated else ""
        super().__init__(
            f"timed out after {waited:.0f}s{clock} waiting for {condition}; last seen: {last_seen}"
        )
