"""`make browse`: dynamodb-admin on the running table, looked at in headless Chromium as a person would.

The screenshot pages are the README's: the demo account's item collection (Query PK) and its
uniqueness locks (Scan filtered on `owner`). Chromium is Debian's package, the browser tier's
(tests/support/browser.py): `make browser` adds it; without it the screenshot test is skipped, and the run says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from local import browse, demo
from local.dynamodb_local import free_port
from local.paths import ROOT
from tests.http.running_service import get
from tests.support import browser

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _headless(chromium: str, *args: str) -> subprocess.CompletedProcess:
    # Root in a container: Chromium's sandbox needs user namespaces, so it runs without it.
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    command += ["--virtual-time-budget=15000", "--window-size=1600,900", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def browser_url(demo_service):
    port = free_port()
    env = {**demo_service.env, "BROWSE_PORT": str(port)}
    process = subprocess.Popen(
        [sys.executable, "-m", "local.browse"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    try:
        # Readiness is a 200; the bound only stops a hung start (a loaded machine takes its time).
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if get(base + "/")[0] == 200:
                    break
            except OSError:
                time.sleep(0.3)
        else:
            raise AssertionError(f"make browse did not come up: {process.stdout.read().decode()}")
        yield base
    finally:
        process.terminate()
        process.wait(timeout=120)


def test_browse_serves_on_loopback_with_the_running_table(demo_service, browser_url):
    status, body = get(f"{browser_url}/api/tables")
    assert status == 200 and demo_service.table.encode() in body


@pytest.mark.browser
def test_screenshot_finds_an_account_and_its_locks(demo_service, browser_url, tmp_path: Path):
    chromium = browser.chromium()
    table = demo_service.table
    locks_url = browse.account_locks_url(browser_url, table, demo.MAIN_ACCOUNT)
    items_url = browse.account_items_url(browser_url, table, demo.MAIN_ACCOUNT)

    locks_page = _headless(chromium, "--dump-dom", locks_url)
    assert "UNIQ#EMAIL#allce@example.com" in locks_page.stdout, locks_page.stderr[-2000:]  # i reads as l
    assert "UNIQ#HANDLE#allce" in locks_page.stdout
    assert f"ACCT#{demo.MAIN_ACCOUNT}" in locks_page.stdout  # the lock's owner column
    assert "UNIQ#EMAIL#bob@example.com" not in locks_page.stdout

    items_page = _headless(chromium, "--dump-dom", items_url)
    for sort_key in ("PROFILE", "BALANCE", "alice@example.com"):
        assert sort_key in items_page.stdout, sort_key

    for name, url in (("locks", locks_url), ("account", items_url)):
        shot = tmp_path / f"{name}.png"
        _headless(chromium, f"--screenshot={shot}", url)
        data = shot.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 20_000, f"{name}: {len(data)} bytes"
        keep = os.environ.get("DDBGUARD_SCREENSHOT_DIR")
        if keep:
            shutil.copy(shot, Path(keep) / shot.name)
