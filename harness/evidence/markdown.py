"""Text from a bundle, made safe for Markdown (report.md, repro matrix, timeline --format md).

A bundle can hold anything a charm, a cluster or a hand-edited file put in it. GitHub and
Launchpad render Markdown with inline HTML, so every string from a bundle is shown as text:
HTML's ``&`` and ``<`` become entities, table pipes are escaped, backticks cannot end a code span
and only http(s) links become links.
"""

from __future__ import annotations

_MARKUP = str.maketrans({"\\": "\\\\", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]"})


def text(value: object) -> str:
    """Inline text: HTML escaped, Markdown's emphasis and link brackets escaped."""
    # & and < are what can start an entity or a tag; > alone is harmless and stays readable.
    raw = "" if value is None else str(value)
    return raw.replace("&", "&amp;").replace("<", "&lt;").translate(_MARKUP)


def cell(value: object) -> str:
    """A table cell: ``text`` plus pipes escaped and line breaks kept visible as <br>."""
    escaped = text(value).replace("|", "\\|").replace("\r", "")
    return escaped.replace("\n", "<br>") or " "


def code(value: object) -> str:
    """An inline code span; a backtick inside would end it, so it becomes a quote."""
    return "`" + str(value).replace("`", "'").replace("\n", " ") + "`"


def link(label: str, url: str) -> str:
    """``[label](url)`` for an http(s) URL; anything else is shown as text, not followed."""
    if url.startswith(("https://", "http://")) and not any(c in url for c in " ()<>\n"):
        return f"[{text(label)}]({url})"
    return f"{text(label)}: {text(url)}"


def fenced(lines: list[str] | tuple[str, ...], language: str = "sh") -> list[str]:
    """A fenced code block whose content cannot close it early."""
    return [f"```{language}", *(line.replace("```", "'''") for line in lines), "```"]
