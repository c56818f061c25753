"""Text from a bundle, made safe for Markdown (report.md, repro matrix, timeline --format md).

A bundle can hold anything a charm, a cluster or a hand-edited file put in it. GitHub and
Launchpad render Markdown with inline HTML, so every string from a bundle is shown as text:
HTML's ``&`` and ``<`` become entities, table pipes are escaped, backticks cannot end a code span
and only http(s) links become links.
"""

from __future__ import annotations

import re

_MARKUP = str.maketrans({"\\": "\\\\", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]"})
# Control characters but tab and line breaks: an escape from a log or a bundle would act
# on the terminal that prints it (retitle it, write its clipboard), and XML forbids most.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def visible(value: str) -> str:
    """``value`` with its control characters shown as ``\\xNN``."""
    if _CONTROL.search(value) is None:
        return value
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", value)


def text(value: object) -> str:
    """Inline text: HTML escaped, Markdown's emphasis and link brackets escaped."""
    # & and < are what can start an entity or a tag; > alone is harmless and stays readable.
    raw = "" if value is None else visible(str(value))
    return raw.replace("&", "&amp;").replace("<", "&lt;").translate(_MARKUP)


def cell(value: object) -> str:
    """A table cell: ``text`` plus pipes escaped and line breaks kept visible as <br>."""
    escaped = text(value).replace("|", "\\|").replace("\r", "")
    return escaped.replace("\n", "<br>") or " "


def code(value: object) -> str:
    """An inline code span; a backtick inside would end it, so it becomes a quote."""
    return "`" + visible(str(value)).replace("`", "'").replace("\n", " ") + "`"


def link(label: str, url: str) -> str:
    """``[label](url)`` for an http(s) URL; anything else is shown as text, not followed."""
    if url.startswith(("https://", "http://")) and not any(c in url for c in " ()<>\n"):
        return f"[{text(label)}]({url})"
    return f"{text(label)}: {text(url)}"


def fenced(lines: list[str] | tuple[str, ...], language: str = "sh") -> list[str]:
    """A fenced code block whose content cannot close it early."""
    return [f"```{language}", *(visible(line).replace("```", "'''") for line in lines), "```"]
