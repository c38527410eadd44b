"""scripts/smoke.py, the deploy smoke test, runs the quickstart against the local server: same script, base URL
and token as arguments, exactly as it is run against a deployed stage."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from local.dynamodb_local import local_client
from local.stream_settler import StreamSettler
from local.tokens import make_token
from tests.conftest import TABLE

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "smoke.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "SMOKE_TOKEN"}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=540, env=env)


@pytest.mark.timeout(600)
def test_smoke_script_passes_against_the_local_server(local_server, dynamodb_local, uid):
    # The quickstart ends by deleting its emptied account, which waits for its movements' settlement: the table's
    # stream is settled in the background while it runs, as on a stage (and in `make run`).
    stop = threading.Event()
    settler = StreamSettler(dynamodb_local.endpoint, TABLE, local_client(dynamodb_local.endpoint, timeout=120))
    thread = threading.Thread(target=settler.run, args=(stop,), name="smoke-settler", daemon=True)
    thread.start()
    try:
        # A first request to each function is a cold start: on a loaded machine far longer than on a stage.
        result = _run("--base-url", local_server, "--token", make_token(f"smoke-{uid}"), "--timeout", "120")
    finally:
        stop.set()
        thread.join()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "smoke test passed" in result.stdout
    assert "POST /accounts -> 201" in result.stdout


@pytest.mark.timeout(600)
def test_smoke_script_fails_on_a_surprise(local_server):
    # An unusable token: the API answers 401 where the quickstart expects 201.
    result = _run("--base-url", local_server, "--token", "not-a-jwt")
    assert result.returncode == 1
    assert "expected 201, got 401" in result.stderr


def test_smoke_script_needs_a_token():
    result = _run("--base-url", "http://127.0.0.1:9")
    assert result.returncode == 2
