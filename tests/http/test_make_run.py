"""`make run`'s program end to end: DynamoDB Local + table + API up, /health 200, Ctrl-C leaves nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from local.dynamodb_local import free_port
from local.paths import ROOT
from local.tokens import make_token


def _java_processes_on(port: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(a.endswith(b"java") for a in argv[:1]) and str(port).encode() in argv:
            found.append(int(proc.name))
    return found


def _get(url: str, headers: dict | None = None) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_local_run_serves_and_stops_cleanly_on_ctrl_c(tmp_path):
    port, ddb_port = free_port(), free_port()
    state_file = tmp_path / "run.json"
    env = {
        **os.environ,
        "PORT": str(port),
        "DYNAMODB_PORT": str(ddb_port),
        "DDB_DATA_DIR": "memory",
        "TABLE_NAME": "ddbguard-run-test",
        "DDBGUARD_STATE_FILE": str(state_file),
        "SEED": "0",  # the demo world has its own tests (test_walkthrough.py)
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "local.run"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 90
        status = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                status, body = _get(f"http://127.0.0.1:{port}/health")
                if status == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.3)
        assert status == 200, process.stdout.read().decode() if process.poll() is not None else "no answer"
        assert json.loads(body) == {"status": "ok"}
        status, body = _get(
            f"http://127.0.0.1:{port}/accounts/nobody-here", {"Authorization": f"Bearer {make_token('dave')}"}
        )
        assert status == 404 and json.loads(body)["status"] == 404
        created = urllib.request.Request(
            f"http://127.0.0.1:{port}/accounts",
            data=json.dumps({"email": "run@example.com", "username": "runner"}).encode(),
            headers={"Authorization": f"Bearer {make_token('dave')}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(created, timeout=10) as response:
            assert response.status == 201 and response.headers["ETag"] == '"0"'
        assert _java_processes_on(ddb_port), "DynamoDB Local should be running while the server is up"
        state = json.loads(state_file.read_text())
        assert (state["api_port"], state["dynamodb_port"], state["table"]) == (port, ddb_port, "ddbguard-run-test")
    finally:
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=30)[0].decode()
    assert process.returncode == 0, output
    assert "API on http://127.0.0.1:" in output and "TOKEN=" in output
    time.sleep(0.5)
    assert _java_processes_on(ddb_port) == [], "Ctrl-C must not leave DynamoDB Local behind"
    assert not state_file.exists(), "stopping removes the state file"
