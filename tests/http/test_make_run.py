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

from ddbguard.release import VERSION
from local.dynamodb_local import free_port, interface_addresses
from local.paths import ROOT
from local.tokens import make_token
from tests.http.running_service import java_processes_on


def _get(url: str, headers: dict | None = None) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=120) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


ORIGIN = "https://app.example.com"


def _open(url: str, method: str, headers: dict, body: bytes | None = None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def _check_cors(base: str) -> None:
    """With CORS_ALLOWED_ORIGINS set, the local server answers preflight as API Gateway's mock does, and
    the handlers (ddbguard_api.http.cors) add the Access-Control-* headers, exposing ETag and Location."""
    status, headers = _open(
        f"{base}/accounts",
        "OPTIONS",
        {
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "idempotency-key",
        },
    )
    assert status == 204
    assert headers["Access-Control-Allow-Origin"] == ORIGIN
    assert "POST" in headers["Access-Control-Allow-Methods"]
    assert "Idempotency-Key" in headers["Access-Control-Allow-Headers"]
    token = {"Authorization": f"Bearer {make_token('erin')}", "Content-Type": "application/json", "Origin": ORIGIN}
    body = json.dumps({"email": "cors@example.com", "username": "corsy"}).encode()
    status, headers = _open(f"{base}/accounts", "POST", token, body)
    assert status == 201
    assert headers["Access-Control-Allow-Origin"] == ORIGIN
    assert {"ETag", "Location"} <= set(headers["Access-Control-Expose-Headers"].split(","))
    status, headers = _open(f"{base}/accounts/nope", "GET", {"Origin": ORIGIN})
    assert status == 401 and headers["Access-Control-Allow-Origin"] == ORIGIN
    status, headers = _open(f"{base}/accounts", "PUT", {**token, "Origin": "https://evil.example"}, body)
    assert status == 405 and {"GET", "POST", "OPTIONS"} <= {m.strip() for m in headers["Allow"].split(",")}
    assert headers.get("Access-Control-Allow-Origin") is None
    status, headers = _open(f"{base}/accounts/nope", "GET", {**token, "Origin": "https://evil.example"})
    assert status == 404 and headers.get("Access-Control-Allow-Origin") is None


def test_local_run_serves_and_stops_cleanly_on_ctrl_c(tmp_path):
    port, ddb_port = free_port(), free_port()
    state_file = tmp_path / "run.json"
    env = {
        **os.environ,
        "PORT": str(port),
        "DYNAMODB_PORT": str(ddb_port),
        "DDB_DATA_DIR": "memory",
        "TABLE_NAME": "ddbguard-run-test",
        "CORS_ALLOWED_ORIGINS": ORIGIN,
        "DDBGUARD_STATE_FILE": str(state_file),
        "SEED": "0",  # the demo world has its own tests (test_walkthrough.py)
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "local.run"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 240  # readiness is /health 200; the bound only stops a hung start
        status = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                status, body = _get(f"http://127.0.0.1:{port}/health")
                if status == 200:
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.3)
        assert status == 200, process.stdout.read().decode() if process.poll() is not None else "no answer"
        assert json.loads(body) == {"status": "ok", "version": VERSION}
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
        with urllib.request.urlopen(created, timeout=120) as response:
            assert response.status == 201 and response.headers["ETag"] == '"0"'
        _check_cors(f"http://127.0.0.1:{port}")
        assert java_processes_on(ddb_port), "DynamoDB Local should be running while the server is up"
        state = json.loads(state_file.read_text())
        assert (state["api_port"], state["dynamodb_port"], state["table"]) == (port, ddb_port, "ddbguard-run-test")
    finally:
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=120)[0].decode()
    assert process.returncode == 0, output
    assert "API on http://127.0.0.1:" in output and "TOKEN=" in output
    # DynamoDB Local listens on every interface (no option binds one): `make run` says so when it is reachable.
    exposed = [address for address in interface_addresses() if f"{address}:{ddb_port}" in output]
    assert ("WARNING: DynamoDB Local" in output) == bool(exposed) == bool(interface_addresses()), output
    assert f"http://127.0.0.1:{port}/openapi.json" in output
    assert f"http://127.0.0.1:{port}/docs" in output
    # `make run` waits for DynamoDB Local to exit before it exits; only the kernel's reaping may lag.
    gone = time.monotonic() + 60
    while java_processes_on(ddb_port) and time.monotonic() < gone:
        time.sleep(0.2)
    assert java_processes_on(ddb_port) == [], "Ctrl-C must not leave DynamoDB Local behind"
    assert not state_file.exists(), "stopping removes the state file"
