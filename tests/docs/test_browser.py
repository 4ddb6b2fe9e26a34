"""The documentation site as a reader sees it: every page opened in headless Chromium.

The built site is served over HTTP on 127.0.0.1 and each page loaded by Debian's Chromium,
driven by Playwright (the ``test`` extra; the README's test command installs the ``chromium``
package). Slow: ``.ci/run`` runs it after the default suite (``python -m pytest -m slow
tests/docs/test_browser.py``).
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
import urllib.request
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Flags for a headless browser as root on a machine without a network beyond loopback.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # the test reports failures itself
        pass


@pytest.fixture(scope="module")
def server(site):
    """The built site served on 127.0.0.1 (an ephemeral port): its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not shutil.which(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def visits(site, server, browser):
    """Open every page once: ``{url: (status, console errors, failed requests, page)}``.

    ``page`` holds what the checks read off the rendered page: its links, its images'
    natural widths, its code blocks and their copy buttons.
    """
    results = {}
    page = browser.new_page()
    errors, failures = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: failures.append(f"{r.url}: {r.failure}"))
    page.on(
        "response", lambda r: failures.append(f"{r.url}: {r.status}") if r.status >= 400 else None
    )
    for path in sorted(site.rglob("*.html")):
        if path.name == "404.html":
            continue
        url = urljoin(server, path.relative_to(site).as_posix().removesuffix("index.html"))
        errors.clear()
        failures.clear()
        response = page.goto(url, wait_until="load")
        page.wait_for_load_state("networkidle")
        seen = page.evaluate(
            """() => ({
                links: [...document.querySelectorAll('a[href]')].map(a => a.href),
                images: [...document.querySelectorAll('img')].map(i => [i.src, i.naturalWidth]),
                code: document.querySelectorAll('div.highlight pre > code').length,
                copy: document.querySelectorAll(
                    'div.highlight button[data-md-type="copy"], div.highlight .md-clipboard'
                ).length,
            })"""
        )
        results[url] = (response.status, list(errors), list(failures), seen)
    page.close()
    return results


def test_every_page_loads(visits):
    assert len(visits) > 50
    assert {url: status for url, (status, *_rest) in visits.items() if status != 200} == {}


def test_no_page_logs_a_console_error(visits):
    assert {url: errors for url, (_s, errors, *_rest) in visits.items() if errors} == {}


def test_no_page_requests_a_resource_that_fails(visits):
    assert {url: failed for url, (_s, _e, failed, _p) in visits.items() if failed} == {}


def test_every_image_is_drawn(visits):
    broken = {
        url: [src for src, width in seen["images"] if width == 0]
        for url, (*_rest, seen) in visits.items()
    }
    assert {url: srcs for url, srcs in broken.items() if srcs} == {}


@functools.cache
def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as failure:
        return failure.code


def test_every_internal_link_leads_to_a_page(visits, server):
    broken = []
    for url, (*_rest, seen) in visits.items():
        for link in seen["links"]:
            target, _fragment = urldefrag(link)
            if urlsplit(target).netloc == urlsplit(server).netloc and _status(target) != 200:
                broken.append(f"{url} -> {link}")
    assert broken == []


def test_every_code_block_has_its_copy_button(visits):
    assert sum(seen["code"] for *_rest, seen in visits.values()) > 0
    missing = {
        url: (seen["code"], seen["copy"])
        for url, (*_rest, seen) in visits.items()
        if seen["copy"] < seen["code"]
    }
    assert missing == {}


def test_search_finds_an_env_page_by_its_id(browser, server):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(server, wait_until="networkidle")
    page.keyboard.press("/")  # the theme's shortcut that opens the search box, as a reader would
    # The index loads in a web worker; the box says so until it is ready for a query.
    page.wait_for_function(
        "document.querySelector('.md-search-result__meta').textContent.includes('Type to start')",
        timeout=120_000,
    )
    page.locator("input.md-search__input").press_sequentially("LunarLander-v3", delay=20)
    # Results follow each keystroke: wait for the full id's best match to come first.
    page.wait_for_function(
        """() => {
            const first = document.querySelector('a.md-search-result__link');
            return first && first.href.endsWith('/envs/box2d/LunarLander-v3/');
        }""",
        timeout=60_000,
    )
    titles = page.locator("a.md-search-result__link h1").all_inner_texts()
    assert titles[0] == "LunarLander-v3"
    page.close()
