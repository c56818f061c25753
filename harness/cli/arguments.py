"""What every ``repro`` command shares: its parser, and a user's strings read into values.

A bad command line is one ``UsageError`` line, never argparse's usage and exit; a Juju
version or a model name a person typed is checked here, once, with a fix in its message.
"""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING, NoReturn

from harness.common.errors import HarnessError
from harness.common.versions import JujuVersion


class UsageError(Exception):
    """Bad command-line usage, reported as one line."""


class Parser(argparse.ArgumentParser):
    # argparse prints usage and exits; we want one line and our own exit status.
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


if TYPE_CHECKING:  # what each command module's add_parsers is given
    from harness.catalogue.judged import JudgedJuju
    from harness.run.options import RunOptions

    Subparsers = argparse._SubParsersAction[Parser]


def parse_juju(text: str) -> JujuVersion:
    """The Juju version at the start of ``text`` (as ``juju version`` prints it)."""
    try:
        return JujuVersion.parse(text)
    except ValueError:
        raise HarnessError(
            f"not a Juju version: {text!r}", "use a version such as 3.6 or 2.9.43"
        ) from None


def parse_juju_option(text: str | None) -> JujuVersion | None:
    """``--juju`` as given: a whole version (3.6, 2.9.43, 3.0-beta4, 3.6.1.1), never a prefix.

    ``JujuVersion.parse`` reads the version at the start of any text (``juju version``
    prints ``3.6.1-genericlinux-amd64``); a person's option must be a version and no more.
    """
    return None if text is None else parse_juju_strict(text)


def parse_juju_strict(text: str) -> JujuVersion:
    try:
        return JujuVersion.parse_number(text)
    except ValueError:
        raise HarnessError(
            f"not a Juju version: {text!r}", "use a version such as 3.6, 2.9.43 or 3.0-beta4"
        ) from None


def judge_juju(text: str) -> JudgedJuju:
    """``--juju`` as the catalogue judges it: a bare track (``2.9``) is its newest release,
    as a snap channel gives it; a version the catalogue cannot judge is refused; the notes
    say which release a track was taken as, and when the catalogue only extrapolates."""
    from harness.catalogue import load
    from harness.catalogue.judged import judged_juju

    parse_juju_strict(text)
    return judged_juju(text.strip(), load())


# juju/names model.go (IsValidModelName): lowercase letters, digits, non-leading hyphens.
_MODEL = re.compile(r"^[a-z0-9]+[a-z0-9-]*$")


def check_model(name: str | None) -> None:
    """``--model``: refused before anything runs; the name is also the Kubernetes namespace
    in every printed command, so it must be one Juju accepts."""
    if name is not None and not _MODEL.match(name):
        raise HarnessError(
            f"not a Juju model name: {name!r}",
            "use lowercase letters, digits and hyphens, e.g. --model repro-lab",
        )


def require_consent(name: str, disruption: str, backend: str, options: RunOptions) -> None:
    """A live disruption that stops MicroK8s runs only with --allow-node-restart, as pytest
    runs its node-restart tests; a dry run and the twin touch nothing real."""
    from harness.disrupt import get
    from harness.disrupt.node_restart import CONSENT_FLAG, WHY_CONSENT

    if backend != "live" or options.dry_run or options.allow_node_restart:
        return
    try:
        takes_node_down = get(disruption).takes_node_down
    except HarnessError:
        return  # not a disruption: refused where the name is checked
    if takes_node_down:
        raise HarnessError(
            f"{name} {WHY_CONSENT}",
            f"pass {CONSENT_FLAG} to run it, or --dry-run to see the plan",
        )
