"""Every sample event runs through its real handler against DynamoDB Local, as `make invoke` does."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest

import routes
from local.events import event_path
from local.lambda_context import LambdaContext
from local.paths import ROOT


@pytest.mark.parametrize("route", routes.ROUTES, ids=lambda r: r.operation)
def test_sample_event_invokes_handler(dynamodb_local, route):
    handler = importlib.import_module(route.handler).handler
    event = json.loads(event_path(route).read_text())
    response = handler(event, LambdaContext(function_name=f"ddbguard-{route.operation}"))
    # Sample ids name the demo world, which this table does not hold: a clean 2xx/4xx answer, never a 5xx
    # (tests/http/test_walkthrough.py runs them against a seeded `make run`).
    assert 200 <= response["statusCode"] < 500, response
    body = response.get("body")
    if response["statusCode"] >= 400:
        assert json.loads(body)["status"] == response["statusCode"]


def test_make_invoke_command_prints_the_response(dynamodb_local):
    port = dynamodb_local.port
    completed = subprocess.run(
        [sys.executable, "-m", "local.invoke", "check_health"],
        cwd=ROOT,
        env={**os.environ, "DYNAMODB_PORT": str(port), "TABLE_NAME": "ddbguard-invoke-test"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["statusCode"] == 200


def _invoke(port: int, *args: str) -> subprocess.CompletedProcess:
    # As from a terminal: the test session's own log level (set for its in-process handlers) stays out.
    env = {k: v for k, v in os.environ.items() if k != "POWERTOOLS_LOG_LEVEL"}
    return subprocess.run(
        [sys.executable, "-m", "local.invoke", *args],
        cwd=ROOT,
        env={**env, "DYNAMODB_PORT": str(port), "TABLE_NAME": "ddbguard-invoke-test"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_make_invoke_output_is_shaped_as_lambdas(dynamodb_local):
    """stdout: the response as Lambda returns it; stderr: START, the handler's logs, END, REPORT."""
    refused = _invoke(dynamodb_local.port, "withdraw", "--sub", "nobody-with-a-ledger")
    assert refused.returncode == 0, refused.stderr
    response = json.loads(refused.stdout)
    assert response["statusCode"] == 404 and isinstance(response["body"], str)
    assert json.loads(response["body"])["code"] in ("ledger_not_found", "not_found")
    lines = refused.stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("START RequestId: "))
    end = next(i for i, line in enumerate(lines) if line.startswith("END RequestId: "))
    logged = [json.loads(line) for line in lines[start + 1 : end] if line.startswith("{")]
    assert any(entry.get("message") == "refused" and entry.get("level") == "INFO" for entry in logged), lines
    report = lines[end + 1]
    assert report.startswith("REPORT RequestId: ") and "Billed Duration: " in report and "Init Duration: " in report

    pretty = _invoke(dynamodb_local.port, "check_health", "--pretty")
    assert pretty.returncode == 0, pretty.stderr
    assert json.loads(pretty.stdout)["body"]["status"] == "ok"  # for people: indented, the body decoded
    assert pretty.stdout.count("\n") > 1
