"""Writing HTML safely: text is escaped unless it is already ``Html``; one page shell.

``tag("p", "a < b")`` escapes its text; ``tag("p", tag("a", "x", href=url))`` nests
without escaping twice. Attributes come out in the order given, so output is stable.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from harness.reference.seeds import SEEDS

GENERATOR = "repro reference"  # marks a folder this command wrote (see harness.reference.write)
STYLESHEET = "style.css"


class Html(str):
    """Markup, as opposed to text: ``tag`` passes it through without escaping."""

    __slots__ = ()


def escape(text: str) -> Html:
    return Html(html.escape(text, quote=True))


def join(parts: Iterable[Html | str | None], separator: str = "") -> Html:
    """Children side by side; text among them is escaped, ``None`` left out."""
    return Html(separator.join(_piece(part) for part in parts if part is not None))


def _piece(part: Html | str) -> str:
    return part if isinstance(part, Html) else escape(part)


def tag(element: str, /, *children: Html | str | None, **attrs: str | bool | None) -> Html:
    """``<name attrs>children</name>``; ``class_`` is ``class``, ``aria_label`` is
    ``aria-label``; an attribute that is None or False is left out, True is bare."""
    parts = [element]
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        attribute = key.rstrip("_").replace("_", "-")
        parts.append(attribute if value is True else f'{attribute}="{escape(value)}"')
    opening = f"<{' '.join(parts)}>"
    if element in ("img", "meta", "link", "br"):
        return Html(opening)
    return Html(f"{opening}{join(children)}</{element}>")


def link(text: str | Html, href: str, **attrs: str | bool | None) -> Html:
    return tag("a", text, href=href, **attrs)


def page(title: str, body: Html, *, description: str, here: str = "") -> Html:
    """A whole document: language, viewport, the shared stylesheet, a skip link, the site
    navigation (``here`` is marked current), ``body`` as the main content."""
    nav = tag(
        "nav",
        tag(
            "ul",
            *(
                tag("li", link(text, href, aria_current="page" if href == here else None))
                for text, href in (
                    ("Overview", "index.html"),
                    *((f"Juju bug {seed.number}", seed.page) for seed in SEEDS),
                )
            ),
        ),
        aria_label="Site",
    )
    head = join(
        [
            Html('<meta charset="utf-8">'),
            tag("meta", name="viewport", content="width=device-width, initial-scale=1"),
            tag("meta", name="description", content=description),
            tag("meta", name="generator", content=GENERATOR),
            tag("title", f"{title} · Juju lifecycle reference"),
            tag("link", rel="stylesheet", href=STYLESHEET),
        ],
        "\n",
    )
    document = join(
        [
            Html("<!DOCTYPE html>"),
            Html('<html lang="en">'),
            tag("head", Html("\n"), head, Html("\n")),
            Html("<body>"),
            link("Skip to the content", "#main", class_="skip"),
            tag("header", nav),
            tag("main", Html("\n"), body, Html("\n"), id="main"),
            tag(
                "footer",
                tag(
                    "p",
                    "Built by ",
                    tag("code", "repro reference"),
                    " from the harness's expectation catalogue and the live evidence "
                    "bundles given to it. Every claim links to where it was read.",
                ),
            ),
            Html("</body>"),
            Html("</html>"),
        ],
        "\n",
    )
    return Html(document + "\n")


# Small and plain: system fonts, a readable measure, tables that scroll inside their own
# box on a narrow screen (the page itself never gets wider than the viewport).
CSS = """\
:root { color-scheme: light; --ink: #1b1b1b; --muted: #555; --line: #d0d0d0;
  --accent: #0b5394; --observed: #1b5e20; --warn: #8a4b00; --band: #f4f6f8; }
* { box-sizing: border-box; }
body { margin: 0; font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: #fff; }
header, main, footer { max-width: 72rem; margin: 0 auto; padding: 0 1rem; }
header nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1.25rem;
  margin: 0; padding: .75rem 0; border-bottom: 1px solid var(--line); }
header a[aria-current] { font-weight: 700; text-decoration: none; color: var(--ink); }
a { color: var(--accent); overflow-wrap: anywhere; }
a:focus-visible, .scroll:focus-visible { outline: 3px solid #f9a825; outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: .5rem; background: #fff; padding: .25rem .5rem; }
h1 { font-size: 1.7rem; line-height: 1.25; margin: 1.25rem 0 .5rem; }
h2 { font-size: 1.35rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.1rem; margin: 1.5rem 0 .4rem; }
p, ul, ol, dl { margin: .4rem 0 .8rem; }
/* A source path or a Go expression in a claim is one long word: it wraps on a phone. */
p, li, blockquote { overflow-wrap: anywhere; }
code { font-size: .92em; overflow-wrap: anywhere; }
.lede { font-size: 1.08rem; color: var(--muted); }
.scroll { overflow-x: auto; max-width: 100%; margin: .5rem 0 1rem; }
table { border-collapse: collapse; font-size: .9rem; }
th, td { border: 1px solid var(--line); padding: .4rem .5rem; vertical-align: top;
  text-align: left; }
thead th { background: var(--band); }
table.matrix th[scope=row] { position: sticky; left: 0; background: #fff; min-width: 9rem; }
table.matrix td { min-width: 13rem; }
table.matrix th small { font-weight: 400; }
table.matrix td p { margin: .2rem 0; }
ol.seq { display: inline; margin: 0; padding: 0; list-style: none; }
ol.seq li { display: inline; }
ol.seq li + li::before { content: " \\2192  "; color: var(--muted); }
.who { font-style: italic; color: var(--muted); }
.survives { color: var(--muted); }
.status { font-size: .85rem; }
.observed { color: var(--observed); font-weight: 600; }
.unobserved { color: var(--muted); }
.low { color: var(--warn); font-weight: 600; }
.deviates { color: #b71c1c; font-weight: 700; }
figure { margin: .75rem 0 1rem; }
figure .scroll img { display: block; max-width: none; height: auto; }
figcaption { font-size: .9rem; color: var(--muted); }
blockquote { margin: .6rem 0; padding: .4rem .9rem; border-left: 4px solid var(--line);
  background: var(--band); white-space: pre-line; }
.source-list li { margin-bottom: .6rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
footer { margin-top: 3rem; border-top: 1px solid var(--line); color: var(--muted);
  font-size: .85rem; }
@media (max-width: 40rem) { h1 { font-size: 1.4rem; } table { font-size: .85rem; } }
"""
