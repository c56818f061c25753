"""Pieces every page uses: a hook sequence, a survival line, an observed-or-not status, a
source's link text, a confidence warning."""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from harness.catalogue import Expectation, Source
from harness.reference.html import Html, join, link, tag
from harness.reference.observed import ObservedRun
from harness.reference.sequence import Hook

NOT_OBSERVED = "from source, not yet observed"


def hooks_html(hooks: Sequence[Hook]) -> Html:
    """An ordered list read as one line: ``stop → upgrade-charm → …``."""
    if not hooks:
        return tag("span", "no hook is certain", class_="who")
    return tag(
        "ol",
        *(
            tag(
                "li",
                tag("code", hook.text),
                None if hook.who == "every unit" else tag("span", f" ({hook.who})", class_="who"),
            )
            for hook in hooks
        ),
        class_="seq",
    )


def evidence_href(run: ObservedRun) -> str:
    return f"evidence-{run.slug}.html"


def status_html(observed: Sequence[ObservedRun]) -> Html:
    """The newest observed run (linked), or that there is none: never the twin."""
    if not observed:
        return tag("p", NOT_OBSERVED.capitalize(), class_="status unobserved")
    newest, *others = observed
    deviates = newest.deviations > 0
    more = f" ({len(others)} more run{'s' if len(others) > 1 else ''})" if others else ""
    return tag(
        "p",
        link(newest.says, evidence_href(newest)),
        ": ",
        tag("span", newest.agreement, class_="deviates" if deviates else None),
        more,
        class_="status observed",
    )


def confidence_html(entry: Expectation) -> Html | None:
    """A warning for a low-confidence entry: inferred, and what is missing."""
    if entry.confidence != "low":
        return None
    return tag("p", "Low confidence: inferred, not confirmed (see the sources).", class_="low")


def source_label(url: str) -> str:
    """Link text that names the page: ``juju/juju 3.6: worker/uniter/uniter.go``."""
    parts = urlsplit(url)
    path = [p for p in parts.path.split("/") if p]
    host = parts.netloc.removeprefix("www.")
    anchor = f"#{parts.fragment}" if parts.fragment else ""
    if host == "github.com" and len(path) >= 4:
        repo = f"{path[0]}/{path[1]}"
        kind, rest = path[2], path[3:]
        if kind == "pull":
            return f"{repo} pull request {rest[0]}"
        if kind == "issues":
            return f"{repo} issue {rest[0]}"
        if kind == "blob" and len(rest) >= 2:
            ref = rest[0][:7] if re.fullmatch(r"[0-9a-f]{40}", rest[0]) else rest[0]
            return f"{repo} {ref}: {'/'.join(rest[1:])}{anchor}"
    if host == "bugs.launchpad.net" and len(path) >= 3 and path[1] == "+bug":
        return f"Launchpad: {path[0].capitalize()} bug {path[2]}"
    if host == "discourse.charmhub.io" and path[:1] == ["t"]:
        topic = next((p for p in path[1:] if not p.isdigit()), None)
        return f"Charmhub Discourse: {topic or 'topic ' + path[-1]}"
    named = {
        "documentation.ubuntu.com": "Juju documentation",
        "juju.is": "Juju documentation (juju.is)",
        "kubernetes.io": "Kubernetes documentation",
    }
    if host in named:
        rest = [p for p in path if p not in ("juju", "latest", "docs")]
        return f"{named[host]}: {'/'.join(rest)}{anchor}"
    return f"{host}/{'/'.join(path)}{anchor}"


def source_html(source: Source) -> Html:
    """A claim, the link to where it was read, and what is unverified about it."""
    low = None
    if source.confidence == "low" or source.unverified:
        low = tag(
            "p",
            tag(
                "span",
                "Low confidence" if source.confidence == "low" else "Unverified",
                class_="low",
            ),
            f": {source.unverified}" if source.unverified else "",
        )
    return join(
        [
            tag("p", source.claim),
            tag("p", "Source: ", link(source_label(source.url), source.url)),
            low,
        ]
    )
