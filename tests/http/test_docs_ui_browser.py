"""/docs renders in a real headless Chromium: the Swagger UI, from local assets, lists every route.

Chromium is the Debian package `chromium`, the browser tier's (tests/support/browser.py): `make browser` adds it;
without it the test is skipped and the run says which tier did not run.
"""

from __future__ import annotations

import subprocess

import pytest

import routes
from tests.support.browser import chromium

pytestmark = pytest.mark.browser


def _headless(tmp_path, url: str, *mode: str) -> subprocess.CompletedProcess:
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",  # root in CI; the page is our own
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,2400",
        # Virtual time runs the page's JavaScript (fetch /openapi.json, render) before dumping.
        "--virtual-time-budget=20000",
        *mode,
        url,
    ]
    return subprocess.run(command, capture_output=True, timeout=120, check=False)


def test_swagger_ui_lists_every_route(local_server, tmp_path):
    result = _headless(tmp_path, f"{local_server}/docs", "--dump-dom")
    dom = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    assert 'id="swagger-ui"' in dom
    for route in routes.ROUTES:
        assert f'id="operations-{route.tag}-{route.operation}"' in dom, f"{route.key} is not in the rendered list"
        assert f'data-path="{route.path}"' in dom

    screenshot = tmp_path / "docs.png"
    result = _headless(tmp_path, f"{local_server}/docs", f"--screenshot={screenshot}")
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert screenshot.stat().st_size > 20_000  # a blank page is a few KB
