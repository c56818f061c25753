"""The evidence as it may be written or shown: no secret in cleartext.

The writer's last line of defence, and ``repro report``'s for a bundle written before options
were redacted: secret-looking databag values (the verdict and observers should already have
redacted them) and a key the user named (``--redact``) are shown by digest; a user's secret
options (``Evidence.secrets``, from ``harness.scenario.secrets``) and those values are
redacted wherever a charm copied them; the user's bundle file has each secret option's value
replaced in place (``harness.common.redact.redact_options``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from harness.common.observations import Snapshot
from harness.common.redact import (
    REDACTED_PREFIX,
    looks_secret,
    redact_options,
    redacted,
    scrub,
)
from harness.evidence.model import Evidence
from harness.evidence.user_bundle import UserBundle


def _secret_values(
    snapshots: Iterable[Snapshot | None], secret: Callable[[str], bool]
) -> set[str]:
    found: set[str] = set()
    for snapshot in snapshots:
        for bag in snapshot.relations if snapshot else ():
            for key, value in bag.data.items():
                if secret(key) and not value.startswith(REDACTED_PREFIX):
                    found.add(value)
    return found


def _redact_snapshot(
    snapshot: Snapshot | None, secret: Callable[[str], bool], values: Sequence[str]
) -> Snapshot | None:
    if snapshot is None:
        return None

    def data(bag: Mapping[str, str]) -> dict[str, str]:
        return {k: redacted(v) if secret(k) else scrub(v, values) for k, v in bag.items()}

    return replace(
        snapshot,
        relations=tuple(replace(bag, data=data(bag.data)) for bag in snapshot.relations),
        journal=tuple(replace(j, databags=data(j.databags)) for j in snapshot.journal),
        statuses=tuple(
            replace(s, workload_message=scrub(s.workload_message, values))
            for s in snapshot.statuses
        ),
        files=tuple(
            replace(f, reason=scrub(f.reason, values)) if f.reason else f for f in snapshot.files
        ),
    )


def _redact_user_bundle(
    bundle: UserBundle | None, secret: Callable[[str], bool], values: Sequence[str]
) -> UserBundle | None:
    """The file with each secret option's value redacted in place (again: a bundle written
    before options were redacted still has them), then any copy of a secret value."""
    if bundle is None:
        return None
    hidden = {(h.app, h.key) for h in bundle.hidden}
    text = redact_options(bundle.text, lambda app, key: (app, key) in hidden or secret(key))
    return replace(
        bundle,
        text=scrub(text, values),
        notes=tuple(scrub(n, values) for n in bundle.notes),
        deploy=scrub(bundle.deploy, values),
    )


def redact(evidence: Evidence) -> Evidence:
    """The evidence as it may be written or shown: no secret in cleartext.

    Relation data under a secret-looking key, or a key the user named (``--redact``), is
    shown by digest; the run's secret options (``Evidence.secrets``) and those relation
    values are redacted wherever else they appear as text (a charm may copy them into other
    keys, its status, a finding); the user's bundle file has each secret option's value
    redacted in place.
    """
    named = set(evidence.redact)

    def secret(key: str) -> bool:
        return looks_secret(key) or key in named

    found = _secret_values((evidence.before, evidence.after), secret)
    values = sorted(found | set(evidence.secrets))
    findings = tuple(
        replace(
            f,
            expected=scrub(f.expected, values),
            observed=scrub(f.observed, values),
            detail=scrub(f.detail, values),
        )
        for f in evidence.findings
    )
    return replace(
        evidence,
        before=_redact_snapshot(evidence.before, secret, values),
        after=_redact_snapshot(evidence.after, secret, values),
        findings=findings,
        hooks=tuple(replace(h, detail=scrub(h.detail, values)) for h in evidence.hooks),
        steps=tuple(replace(s, detail=scrub(s.detail, values)) for s in evidence.steps),
        commands=tuple(scrub(c, values) for c in evidence.commands),
        error=scrub(evidence.error, values) if evidence.error else evidence.error,
        bundle=_redact_user_bundle(evidence.bundle, secret, values),
        secrets=(),
    )
