"""Secrets never leave as cleartext: relation data and config options are shown by digest.

A field looks secret when its key contains ``password``, ``passwd``, ``key``, ``token`` or
``secret`` (this covers ``secret-*`` fields), case-insensitively. Over-matching
(``keystone-url``) is the safe side: the value is still compared, only by digest.

A config option of a user's bundle is also secret when its charm declares it ``type:
secret`` (a user secret's URI, Juju 3.1+: charmcraft's ``config.options``) or when the user
names its key (``repro run --redact KEY``). Its value is replaced in the bundle file the
evidence keeps (``redact_options``), in the plan's ``--config`` lines, and wherever else it
turns up (``scrub``: a charm may copy it into relation data or a status message).

``<redacted sha256:1a2b3c4d>`` carries the first digits of the value's sha256: the same value
gives the same text in every run, so two runs can be compared. A digest also lets a guess be
confirmed: a weak password can still be guessed from it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import yaml

SECRET_WORDS: tuple[str, ...] = ("password", "passwd", "key", "token", "secret")
REDACTED_PREFIX = "<redacted "
SCRUB_MIN_CHARS = 4
"""Shorter values are hidden where they are values, never searched for in free text: "1" or
"ok" would redact unrelated words."""

# Why an option is hidden, as bundle.json and the report say it.
DECLARED_SECRET = "the charm declares it type: secret"
LOOKS_SECRET = "its key looks secret"
NAMED = "named with --redact"


def looks_secret(key: str) -> bool:
    lowered = key.lower()
    return any(word in lowered for word in SECRET_WORDS)


def digest(value: str) -> str:
    """``sha256:<hex>`` of the value's UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()


def redacted(value: str) -> str:
    """``<redacted sha256:1a2b3c4d>``: enough to tell two values apart, not to read one.

    Already-redacted values are returned as they are, so redacting twice changes nothing.
    """
    if value.startswith(REDACTED_PREFIX):
        return value
    return f"{REDACTED_PREFIX}{digest(value)[:15]}>"


def comparable(key: str, value: str) -> str:
    """What to compare: the digest for a secret-looking field, else the value."""
    return digest(value) if looks_secret(key) else value


def shown(key: str, value: str) -> str:
    """How a person sees the value: redacted when secret-looking, else quoted."""
    return redacted(value) if looks_secret(key) else repr(value)


def redact(data: Mapping[str, str], named: Iterable[str] = ()) -> dict[str, str]:
    """A copy of a databag that is safe to write into evidence (``named``: more keys)."""
    more = set(named)
    return {
        key: redacted(value) if looks_secret(key) or key in more else value
        for key, value in data.items()
    }


@dataclass(frozen=True)
class HiddenOption:
    """A config option the evidence shows redacted: whose, which, why, and its digest."""

    app: str
    key: str
    why: str  # DECLARED_SECRET, LOOKS_SECRET or NAMED
    digest: str  # sha256:<hex> of the value, to compare runs by


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret value in it redacted (longest first, so a secret that holds
    another is replaced whole); values shorter than SCRUB_MIN_CHARS are left alone."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if (
            len(secret) >= SCRUB_MIN_CHARS
            and not secret.startswith(REDACTED_PREFIX)  # already redacted: not a secret
            and secret in text
        ):
            text = text.replace(secret, redacted(secret))
    return text


_INCLUDE = ("include-file://", "include-base64://")
_PROPERTIES = re.compile(r"^(?:[&!]\S*\s+)*")  # an anchor and a tag before a node's value
_Node = yaml.Node


def redact_options(text: str, secret: Callable[[str, str], bool]) -> str:
    """A bundle file (and its overlays, as further YAML documents) with the value of each
    ``applications.<app>.options.<key>`` for which ``secret(app, key)`` holds replaced, in
    place: comments, quoting, anchors and the rest of the file stay as written.

    An ``include-file://`` or ``include-base64://`` value names a file, not the secret: it is
    kept. Text that is not YAML is returned as it is (a bundle file the harness refused is
    never in evidence).
    """
    spans: dict[int, tuple[int, str]] = {}
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return text
    for document in documents:
        for app, key, node in _option_nodes(document):
            if not isinstance(node, yaml.ScalarNode) or not secret(app, key):
                continue
            if str(node.value).startswith(_INCLUDE):
                continue
            start, end = node.start_mark.index, node.end_mark.index
            written = text[start:end]
            properties = _PROPERTIES.match(written)
            start += len(properties.group()) if properties else 0
            tail = "\n" if written.endswith("\n") else ""  # a block scalar's line end
            spans[start] = (end, f"'{redacted(str(node.value))}'{tail}")
    for start in sorted(spans, reverse=True):
        end, replacement = spans[start]
        text = text[:start] + replacement + text[end:]
    return text


def _option_nodes(document: _Node | None) -> Iterable[tuple[str, str, _Node]]:
    """(app, key, value node) of every application option in one YAML document."""
    for _, apps in _pairs(document, ("applications", "services")):
        for app_key, app in _pairs(apps):
            for _, options in _pairs(app, ("options",)):
                for key, value in _pairs(options):
                    yield str(app_key.value), str(key.value), value


def _pairs(
    node: _Node | None, keys: tuple[str, ...] | None = None
) -> Iterable[tuple[_Node, _Node]]:
    if not isinstance(node, yaml.MappingNode):
        return
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and (keys is None or key.value in keys):
            yield key, value
