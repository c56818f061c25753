"""The site, built once and served on 127.0.0.1, and one headless Chromium to read it.

Chromium is Debian's (packages ``chromium`` and ``chromium-driver``; ``.ci/run`` installs
them when missing). Without them every test skips and says so; with ``REQUIRE_CHROMIUM=1``
(set where they were installed) a missing Chromium fails instead, so CI cannot pass by
skipping. Screenshots go to ``--screenshots DIR`` (tox: build/reference-browser/, which
the reference workflow uploads).
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from webdriver import Browser, find_binaries

from harness.evidence.write import write_bundle
from harness.reference import build

ROOT = Path(__file__).resolve().parents[2]
# The unit tests' hand-built evidence, for a live run to fold into the site.
sys.path.insert(0, str(ROOT / "tests" / "unit"))
from evidence_samples import evidence  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--screenshots",
        default=str(ROOT / "build" / "reference-browser"),
        help="where the browser tests keep their screenshots",
    )


@pytest.fixture(scope="session")
def screenshots(request: pytest.FixtureRequest) -> Path:
    folder = Path(str(request.config.getoption("--screenshots")))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference, with one live run folded in (Juju 3.6.12, MicroK8s 1.34)."""
    root = tmp_path_factory.mktemp("reference")
    run = evidence(backend="live", juju="3.6.12", deviation=False)
    run = replace(run, versions=replace(run.versions, microk8s="MicroK8s v1.34.2 revision 8200"))
    write_bundle(run, root / "evidence" / "live-pod-delete")
    build(root / "site", evidence=[root / "evidence"])
    return root / "site"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def served(site: Path) -> Iterator[str]:
    """The site on http://127.0.0.1:<port>/, as GitHub Pages would serve its folder."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    binaries = find_binaries()
    if binaries is None:
        reason = (
            "Chromium is not installed (Debian: apt-get install chromium chromium-driver; "
            ".ci/run installs them when it can)"
        )
        if os.environ.get("REQUIRE_CHROMIUM") == "1":
            pytest.fail(reason + ", and REQUIRE_CHROMIUM=1 says it must be")
        pytest.skip(reason)
    chromium, driver = binaries
    session = Browser(chromium, driver, tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield session
    finally:
        session.quit()
