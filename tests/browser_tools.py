"""Chromium for the browser tests: where it is, how it starts, and what happens when it is missing.

Debian's Chromium, driven by Playwright (never ``playwright install``). ``tests/test_browser.py``,
``test_student_lab.py``, ``test_site.py`` and ``test_feedback_page.py`` start it here. Where Chromium or
Playwright is missing the test skips with what to install, unless ``COURSE_TEST_BROWSER_REQUIRED=1``
(set by ``.ci/run``): then it fails.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("COURSE_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LAUNCH_TIMEOUT_MS = 60_000  # a loaded 2-core machine takes a few seconds to start it


def skip_or_fail(reason: str, env: str = "COURSE_TEST_BROWSER_REQUIRED"):
    """Skip with ``reason``, unless ``env`` is ``1``: then fail (a required component is missing)."""
    if os.environ.get(env) == "1":
        pytest.fail(f"{env}=1 but {reason}")
    pytest.skip(reason)


def require_browser() -> None:
    """Skip (or, where required, fail) unless Chromium and Playwright are installed."""
    if not Path(CHROMIUM).is_file() or not os.access(CHROMIUM, os.X_OK):
        skip_or_fail(f"no Chromium at {CHROMIUM}: as root, `DEBIAN_FRONTEND=noninteractive apt-get install -y "
                     f"chromium` (Debian's; never `playwright install`), or set COURSE_TEST_CHROMIUM")
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError as exc:
        skip_or_fail(f"playwright is not importable ({exc}): `pip install -r requirements.txt` "
                     f"(do NOT run `playwright install`: Debian's Chromium is used)")


@contextmanager
def chromium(profile=None, **options):
    """A headless Chromium, closed afterwards even if it crashed.

    Without ``profile`` a Playwright ``Browser``; with a folder ``profile`` a persistent ``BrowserContext``
    on that fresh profile (Playwright passes it as ``--user-data-dir``), made with ``options`` (a viewport).
    """
    require_browser()
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    instance = None
    try:
        common = dict(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS, timeout=LAUNCH_TIMEOUT_MS)
        if profile is None:
            instance = pw.chromium.launch(**common, **options)
        else:
            instance = pw.chromium.launch_persistent_context(str(profile), **common, **options)
        yield instance
    finally:
        if instance is not None:
            try:
                instance.close()
            except Exception:  # noqa: BLE001 - closing a crashed browser
                pass
        pw.stop()
