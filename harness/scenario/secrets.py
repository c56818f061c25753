"""Which config options of a stack are secret, and their values, for redaction.

An option of a user's bundle is secret when its charm declares it ``type: secret`` (read with
the metadata: ``CharmMeta.secret_options``), when its key looks secret, or when the user
named its key (``Stack.redact``, from ``repro run --redact KEY``). The values stay in memory,
for the writer to hide wherever they turn up; the evidence keeps ``HiddenOption`` records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.common.redact import (
    DECLARED_SECRET,
    LOOKS_SECRET,
    NAMED,
    HiddenOption,
    digest,
    looks_secret,
)
from harness.scenario.stack import Stack


@dataclass(frozen=True)
class SecretOption:
    app: str
    key: str
    why: str
    value: str = field(repr=False)

    @property
    def hidden(self) -> HiddenOption:
        return HiddenOption(self.app, self.key, self.why, digest(self.value))


def why_secret(stack: Stack, app: str, key: str) -> str | None:
    """Why ``app``'s option ``key`` is secret, or None when it is not."""
    meta = stack.metas.get(app)
    if meta is not None and key in meta.secret_options:
        return f"{DECLARED_SECRET} ({meta.source})" if meta.source else DECLARED_SECRET
    if key in stack.redact:
        return NAMED
    if looks_secret(key):
        return LOOKS_SECRET
    return None


def secret_options(stack: Stack) -> tuple[SecretOption, ...]:
    """Every secret option the stack's applications are given, in app and key order."""
    found = []
    for spec in stack.apps:
        for key, value in sorted(spec.config.items()):
            why = why_secret(stack, spec.app, key)
            if why is not None:
                found.append(SecretOption(spec.app, key, why, value))
    return tuple(found)


def secret_values(stack: Stack) -> tuple[str, ...]:
    """The cleartext of every secret option: what must not appear anywhere in evidence."""
    return tuple(dict.fromkeys(option.value for option in secret_options(stack) if option.value))
