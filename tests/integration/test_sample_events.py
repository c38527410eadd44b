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
