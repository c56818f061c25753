"""The lifecycle reference as a reader sees it, in headless Chromium: the matrix, a
disruption's timeline, a citation, an observed cell, and a phone's screen.

Each test reads the rendered page through WebDriver (what Chromium laid out, loaded and
computed as accessible names) and keeps a screenshot.
"""

from __future__ import annotations

from pathlib import Path

from webdriver import ELEMENT, Browser

from harness.catalogue import load
from harness.reference.fragments import source_label
from harness.reference.model import matrix

PHONE = (390, 844)  # CSS pixels of a common phone
DESKTOP = (1280, 900)


def _full_height(browser: Browser, width: int, path: Path) -> Path:
    """A screenshot of the whole page at ``width``: the window made as tall as the page."""
    height = int(browser.script("return document.documentElement.scrollHeight"))
    browser.size(width, min(height + 100, 8000))
    return browser.screenshot(path)


def _loaded(browser: Browser, image: str) -> bool:
    return bool(
        browser.script(
            "const i = arguments[0]; return i.complete && i.naturalWidth > 0;",
            {ELEMENT: image},
        )
    )


def test_the_matrix_is_a_table_with_a_header_per_juju_version_range(
    browser: Browser, served: str, screenshots: Path
) -> None:
    browser.size(*DESKTOP)
    browser.get(f"{served}/index.html")

    table = browser.find("table.matrix")
    headers = [browser.text(th) for th in browser.find_all("thead th[scope=col]", table)]
    expected = [f"Juju {span.label}" for span in matrix(load()).columns]
    assert headers == ["Disruption", *expected]
    assert browser.label(table).startswith("Hooks and survival for every disruption")
    rows = [browser.text(a) for a in browser.find_all("tbody th[scope=row] a", table)]
    assert sorted(rows) == sorted(load().disruptions())
    first_cell = browser.text(browser.find("tbody tr td", table))
    assert "upgrade-charm" in first_cell
    assert "Lost: container root" in first_cell
    page = browser.text(browser.find("main"))
    assert "From source, not yet observed" in page
    assert "Observed on Juju 3.6.12, MicroK8s 1.34 on 2026-01-01" in page
    browser.screenshot(screenshots / "index-desktop.png")


def test_a_disruption_page_shows_each_timeline_with_a_text_alternative(
    browser: Browser, served: str, screenshots: Path
) -> None:
    browser.size(*DESKTOP)
    browser.get(f"{served}/pod-delete.html")

    assert browser.text(browser.find("h1")) == "pod-delete"
    images = browser.find_all("figure img")
    assert len(images) >= 3
    for image in images:
        alt = browser.attribute(image, "alt") or ""
        assert alt.startswith("Timeline of the hooks: ")
        assert browser.label(image) == alt, "the accessible name is the alt text"
        assert _loaded(browser, image), browser.attribute(image, "src")
    first = str(browser.prop(images[1], "src"))
    assert "Branch: interrupted-stop" in browser.text(browser.find("main"))
    _full_height(browser, DESKTOP[0], screenshots / "pod-delete-desktop.png")

    browser.size(*DESKTOP)
    browser.get(first)
    svg = browser.find("svg")
    assert browser.attribute(svg, "role") == "img"
    title = browser.prop(browser.find("title"), "textContent")
    desc = browser.prop(browser.find("desc"), "textContent")
    assert "pod-delete (main), Juju 2.9.4 to before 4.0" in title
    assert desc.startswith("leader: stop, upgrade-charm, config-changed, start")
    assert title in browser.label(svg)
    browser.screenshot(screenshots / "pod-delete-timeline.png")


def test_a_citation_is_a_link_to_its_source(browser: Browser, served: str) -> None:
    browser.size(*DESKTOP)
    browser.get(f"{served}/pod-delete.html")

    for source in load().expect("pod-delete", "3.6").sources:
        links = browser.find_all(f'ol.source-list a[href="{source.url}"]')
        assert links, f"no link to {source.url}"
        assert browser.text(links[0]) == source_label(source.url)
        assert browser.prop(links[0], "href") == source.url
    claim = browser.text(browser.find("#source-1"))
    assert "Source:" in claim


def test_an_observed_cell_opens_its_evidence(
    browser: Browser, served: str, screenshots: Path
) -> None:
    browser.size(*DESKTOP)
    browser.get(f"{served}/index.html")

    observed = browser.find("td .observed a")
    assert browser.text(observed) == "Observed on Juju 3.6.12, MicroK8s 1.34 on 2026-01-01"
    browser.click(observed)

    assert browser.url.endswith(".html")
    assert "/evidence-lp2021891-pod-delete-juju-3.6.12-microk8s-1.34" in browser.url
    assert browser.text(browser.find("h1")) == "Observed: lp2021891-pod-delete"
    timeline = browser.find("figure img")
    assert _loaded(browser, timeline)
    bundle = browser.find('a[href$="/bundle.json"]')
    assert browser.text(bundle) == "The evidence bundle (bundle.json)"
    browser.screenshot(screenshots / "evidence-desktop.png")


def test_on_a_phone_no_page_is_wider_than_the_screen(
    browser: Browser, served: str, screenshots: Path
) -> None:
    for name in ("index", "pod-delete", "container-restart", "bug-2021891"):
        browser.size(*PHONE)
        browser.get(f"{served}/{name}.html")
        page, screen = browser.script(
            "return [document.documentElement.scrollWidth, window.innerWidth];"
        )
        assert page <= screen, f"{name}.html is {page}px wide on a {screen}px screen"
        if name == "index":
            # The matrix is wider than a phone: it scrolls inside its own box.
            box = browser.find("div.scroll")
            inner, shown = browser.script(
                "const b = arguments[0]; return [b.scrollWidth, b.clientWidth];", {ELEMENT: box}
            )
            assert inner > shown
            assert browser.role(box) == "region"
        _full_height(browser, PHONE[0], screenshots / f"{name}-phone.png")


def test_a_seed_page_quotes_the_report(browser: Browser, served: str) -> None:
    browser.size(*DESKTOP)
    browser.get(f"{served}/bug-2021891.html")

    quotes = [browser.text(q) for q in browser.find_all("blockquote")]
    assert any(
        "these events are fired: stop -> upgrade-charm -> config-changed -> start" in q
        for q in quotes
    )
    main = browser.text(browser.find("main"))
    assert "What the catalogue says now" in main
    assert "On Juju 2.9.43, as reported, the catalogue expects:" in main
