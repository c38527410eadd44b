"""docs/api.md's curl walk-through runs as written against the local server."""

from __future__ import annotations

import os
import re
import subprocess

from local.paths import ROOT
from local.tokens import make_token


def _walkthrough() -> str:
    guide = (ROOT / "docs" / "api.md").read_text()
    section = guide.split("## Walk-through", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, flags=re.DOTALL).group(1)


def test_walkthrough_runs_and_shows_each_guard(local_server):
    env = {**os.environ, "API": local_server, "ALICE": make_token("guide-alice"), "BOB": make_token("guide-bob")}
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", _walkthrough()],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for code in ("unique_violation", "insufficient_funds", "invalid_transition", "version_conflict"):
        assert f'"code": "{code}"' in out, (code, out)
    assert "replayed: same response, charged once" in out
    assert '"availableCents": 2002' in out
