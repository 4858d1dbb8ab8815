"""Headless Debian Chromium, driven by Playwright, with its networking features off.

Playwright's pip wheel ships only its driver: the browser is Debian's ``chromium`` package
(never a downloaded one). Screenshots go to ``target/test-artifacts/``.
"""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "target" / "test-artifacts"
CHROMIUM = Path(os.environ.get("CDCLAKE_CHROMIUM", "/usr/bin/chromium"))
INSTALL_HINT = "sudo apt-get install -y chromium (bash .ci/run installs it in CI)"

# No background traffic: this machine's network is closed, and a test page must need none.
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps",
]


@dataclass
class PageLog:
    """What a page did: uncaught errors, console errors, and every URL it requested."""

    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def requests_outside(self, *allowed_schemes_or_hosts: str) -> list[str]:
        """Requested URLs whose scheme and host are not among the allowed ones."""
        def allowed(url: str) -> bool:
            parts = urlparse(url)
            return parts.scheme in allowed_schemes_or_hosts or parts.hostname in allowed_schemes_or_hosts
        return [url for url in self.requests if not allowed(url)]


def artifact_path(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name


@contextmanager
def chromium_page(width: int = 1400, height: int = 900, scale: float = 1):
    """A fresh headless Chromium (new empty profile) and one page; yields (page, PageLog).
    Requests to hosts other than loopback are refused (and logged)."""
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: the browser tests need Debian's chromium "
                    f"package. Install it with: {INSTALL_HINT}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is not installed: pip install -e '.[test]'")

    log = PageLog()
    with tempfile.TemporaryDirectory(prefix="cdclake-chromium-") as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": width, "height": height}, device_scale_factor=scale,
        )
        try:
            def route(route):
                host = urlparse(route.request.url).hostname
                if host in (None, "", "127.0.0.1", "localhost"):
                    route.continue_()
                else:
                    route.abort()

            context.route("**/*", route)
            page = context.pages[0] if context.pages else context.new_page()
            page.on("pageerror", lambda error: log.page_errors.append(str(error)))
            page.on("console", lambda msg: log.console_errors.append(f"{msg.text} ({msg.location.get('url')})")
                    if msg.type == "error" else None)
            page.on("request", lambda request: log.requests.append(request.url))
            yield page, log
        finally:
            context.close()
