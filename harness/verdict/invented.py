"""What rests on names the harness invented is undetermined: stand-ins never confirm themselves.

Without a charm's metadata the twin's stand-in declares what the bundle implies: a
``workload`` container, the containers ``--watch`` names (a misspelt one included), an
endpoint per relation end. A stand-in runs whatever hooks the twin dispatches for those
names, so judging them would only compare the twin with itself: the hooks of its units,
the files in its invented containers, the databags on its invented endpoints and its pod
identity (restart counts of invented containers) are ``undetermined``, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from harness.common.findings import Finding
from harness.scenario.charm_meta import CharmMeta


def invented(metas: Mapping[str, CharmMeta]) -> dict[str, str]:
    """app -> why what rests on its names is unchecked, for each app with invented metadata."""
    return {
        app: (
            f"no metadata for {app} ({meta.source}): its containers, endpoints and storage "
            "are the harness's inventions, so what rests on them is unchecked"
        )
        for app, meta in metas.items()
        if meta.implied
    }


def _app_of(word: str) -> str:
    return word.partition("/")[0]


def with_invented(findings: Sequence[Finding], reasons: Mapping[str, str]) -> tuple[Finding, ...]:
    """``findings`` with those resting on invented names made ``undetermined``."""
    judged: list[Finding] = []
    for finding in findings:
        words = finding.subject.split()
        if finding.check == "relation":
            # "database:1 postgresql-k8s/0 (seen by ...)": the databag's owner.
            apps = [_app_of(words[1])] if len(words) > 1 else []
        elif finding.check in ("hooks", "file", "pod-identity"):
            apps = [_app_of(w) for w in words if "/" in w and not w.startswith("[")]
        else:
            apps = []
        why = next((reasons[a] for a in apps if a in reasons), None)
        if why is not None and finding.verdict in ("match", "deviation", "known-bug"):
            detail = f"{why}; was {finding.verdict}" + (
                f"; {finding.detail}" if finding.detail else ""
            )
            finding = replace(finding, verdict="undetermined", detail=detail)
        judged.append(finding)
    return tuple(judged)
