"""The browser tier: tests that drive headless Chromium (Debian's `chromium` package).

`make test` does not install a browser. Where Chromium is missing, these tests are skipped, and the run says so
(tests/support/tiers.py: "browser: skipped, ... `make browser`"): a skip, never a pass. CI installs Chromium first
(.ci/run) and sets DDBGUARD_REQUIRE_BROWSER=1, so a missing browser fails there instead of skipping.
"""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE_VARIABLE = "DDBGUARD_REQUIRE_BROWSER"
# A Chromium of one's choosing (another build, or a path that does not exist to see the tier skipped).
PATH_VARIABLE = "CHROMIUM"
ADD_COMMAND = "make browser"
MARKER = "browser"


def chromium_path() -> str | None:
    chosen = os.environ.get(PATH_VARIABLE)
    if chosen is not None:
        return shutil.which(chosen)
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing_reason() -> str:
    return f"browser tier: no Chromium on this machine; `{ADD_COMMAND}` adds it (apt-get install chromium)"


def chromium() -> str:
    """Chromium's path; the test is skipped (failed, where CI requires the tier) without it."""
    found = chromium_path()
    if found is None:
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"{missing_reason()}; {REQUIRE_VARIABLE}=1 requires it")
        pytest.skip(missing_reason())
    return found
