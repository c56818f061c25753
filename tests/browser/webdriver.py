"""Just enough of the W3C WebDriver protocol, over HTTP with the standard library, to drive
Debian's headless Chromium through its chromedriver: no Selenium needed.

Protocol: https://www.w3.org/TR/webdriver2/ (new session, navigate, find elements, element
text, attribute and property, computed label, execute script, window rect, screenshot).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C key of an element reference


def find_binaries() -> tuple[str, str] | None:
    """(chromium, chromedriver) as Debian installs them, or None when either is missing."""
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    chromium = chromium or shutil.which("chromium-browser")
    driver = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
    return (chromium, driver) if chromium and driver else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class WebDriverError(Exception):
    pass


class Browser:
    """One headless Chromium session, driven through a chromedriver this object started."""

    def __init__(self, chromium: str, chromedriver: str, profile: Path) -> None:
        port = _free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.driver = subprocess.Popen(
            [chromedriver, f"--port={port}", "--allowed-ips=127.0.0.1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            self._wait_ready()
            args = [
                "--headless=new",
                "--no-sandbox",  # as root in a container, Chromium's sandbox cannot start
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
            ]
            caps = {
                "browserName": "chrome",
                "goog:chromeOptions": {"binary": chromium, "args": args},
            }
            answer = self._call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
            self.session = f"/session/{answer['sessionId']}"
        except BaseException:
            self.driver.kill()
            self.driver.wait()
            raise

    def _wait_ready(self, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.driver.poll() is not None:
                raise WebDriverError(f"chromedriver exited with {self.driver.returncode}")
            try:
                if self._call("GET", "/status").get("ready"):
                    return
            except (OSError, WebDriverError):
                pass
            time.sleep(0.2)
        raise WebDriverError(f"chromedriver did not answer within {seconds:.0f} s")

    def _call(self, method: str, path: str, body: object = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read() or b"{}").get("value")
        except urllib.error.HTTPError as error:
            detail = json.loads(error.read() or b"{}").get("value", {})
            raise WebDriverError(
                f"{method} {path}: {detail.get('error')}: {detail.get('message')}"
            ) from None

    def _session(self, method: str, path: str, body: object = None) -> Any:
        return self._call(method, self.session + path, body)

    # --- what a test uses -------------------------------------------------------------

    def size(self, width: int, height: int) -> None:
        self._session("POST", "/window/rect", {"width": width, "height": height})

    def get(self, url: str) -> None:
        self._session("POST", "/url", {"url": url})

    @property
    def url(self) -> str:
        return str(self._session("GET", "/url"))

    def find_all(self, css: str, within: str | None = None) -> list[str]:
        where = f"/element/{within}/elements" if within else "/elements"
        found = self._session("POST", where, {"using": "css selector", "value": css})
        return [item[ELEMENT] for item in found]

    def find(self, css: str, within: str | None = None) -> str:
        found = self.find_all(css, within)
        if not found:
            raise WebDriverError(f"nothing matches {css!r}")
        return found[0]

    def text(self, element: str) -> str:
        return str(self._session("GET", f"/element/{element}/text"))

    def attribute(self, element: str, name: str) -> str | None:
        value = self._session("GET", f"/element/{element}/attribute/{name}")
        return None if value is None else str(value)

    def prop(self, element: str, name: str) -> Any:
        return self._session("GET", f"/element/{element}/property/{name}")

    def label(self, element: str) -> str:
        """The accessible name Chromium computes (what a screen reader announces)."""
        return str(self._session("GET", f"/element/{element}/computedlabel"))

    def role(self, element: str) -> str:
        return str(self._session("GET", f"/element/{element}/computedrole"))

    def click(self, element: str) -> None:
        self._session("POST", f"/element/{element}/click", {})

    def script(self, source: str, *args: object) -> Any:
        return self._session("POST", "/execute/sync", {"script": source, "args": list(args)})

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self._session("GET", "/screenshot")))
        return path

    def quit(self) -> None:
        try:
            self._session("DELETE", "")
        except (OSError, WebDriverError):
            pass
        finally:
            self.driver.terminate()
            try:
                self.driver.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.driver.kill()
                self.driver.wait()
