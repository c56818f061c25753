"""Relation data that looks secret never leaves as cleartext: it is shown by digest.

A field looks secret when its key contains ``password``, ``key``, ``token`` or ``secret``
(this covers ``secret-*`` fields), case-insensitively. Over-matching (``keystone-url``) is
the safe side: the value is still compared, only by digest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

SECRET_WORDS: tuple[str, ...] = ("password", "passwd", "key", "token", "secret")
REDACTED_PREFIX = "<redacted "


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


def redact(data: Mapping[str, str]) -> dict[str, str]:
    """A copy of a databag that is safe to write into evidence."""
    return {key: redacted(value) if looks_secret(key) else value for key, value in data.items()}


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret value in it redacted (longest first; values under four
    characters are left, as they would redact unrelated text such as ``1`` or ``ok``)."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= 4 and not secret.startswith(REDACTED_PREFIX) and secret in text:
            text = text.replace(secret, redacted(secret))
    return text
