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

    Subparsers = argparse._SubParsersAction[Parser]


def parse_juju(text: str) -> JujuVersion:
    """The Juju version at the start of ``text`` (as ``juju version`` prints it)."""
    try:
        return JujuVersion.parse(text)
    except ValueError:
        raise HarnessError(
            f"not a Juju version: {text!r}", "use a version such as 3.6 or 2.9.43"
        ) from None


_JUJU_OPTION = re.compile(r"v?\d+\.\d+(?:[.-][a-z]*\d+)?(?:\.\d+)?")


def parse_juju_option(text: str | None) -> JujuVersion | None:
    """``--juju`` as given: a whole version (3.6, 2.9.43, 3.0-beta4, 3.6.1.1), never a prefix.

    ``JujuVersion.parse`` reads the version at the start of any text (``juju version``
    prints ``3.6.1-genericlinux-amd64``); a person's option must be a version and no more.
    """
    return None if text is None else parse_juju_strict(text)


def parse_juju_strict(text: str) -> JujuVersion:
    if not _JUJU_OPTION.fullmatch(text.strip()):
        raise HarnessError(
            f"not a Juju version: {text!r}", "use a version such as 3.6, 2.9.43 or 3.0-beta4"
        )
    return parse_juju(text)


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
