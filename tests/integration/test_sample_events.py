"""Every sample event runs through its real handler against DynamoDB Local, as `make invoke` does."""

from __future__ import annotations

import importlib
import json
import os
import re
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


def _invoke(port: int, *args: str, **variables: str) -> subprocess.CompletedProcess:
    # As from a terminal: the test session's own log settings (set for its in-process handlers) stay out.
    env = {k: v for k, v in os.environ.items() if k not in ("POWERTOOLS_LOG_LEVEL", "LOG_FORMAT", "EMF")}
    return subprocess.run(
        [sys.executable, "-m", "local.invoke", *args],
        cwd=ROOT,
        env={**env, "DYNAMODB_PORT": str(port), "TABLE_NAME": "ddbguard-invoke-test", **variables},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_make_invoke_output_is_shaped_as_lambdas(dynamodb_local):
    """stdout: the response as Lambda returns it; stderr with LOG_FORMAT=json: START, the handler's JSON logs, END,
    REPORT, as CloudWatch Logs holds them."""
    refused = _invoke(dynamodb_local.port, "withdraw", "--sub", "nobody-with-a-ledger", LOG_FORMAT="json")
    assert refused.returncode == 0, refused.stderr
    response = json.loads(refused.stdout)
    assert response["statusCode"] == 404 and isinstance(response["body"], str)
    assert json.loads(response["body"])["code"] in ("ledger_not_found", "not_found")
    lines = refused.stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("START RequestId: "))
    end = next(i for i, line in enumerate(lines) if line.startswith("END RequestId: "))
    logged = [json.loads(line) for line in lines[start + 1 : end] if line.startswith("{")]
    (request,) = [entry for entry in logged if entry.get("level") == "INFO"]  # one line for the request
    assert request["message"] == "POST /accounts/{accountId}/ledger/withdrawals", request
    assert (request["status"], request["code"], request["calls"]) == (404, "ledger_not_found", 1), request
    assert request["function_name"] == "ddbguard-withdraw"
    report = lines[end + 1]
    assert report.startswith("REPORT RequestId: ") and "Billed Duration: " in report and "Init Duration: " in report


def test_make_invoke_prints_one_readable_line_per_record_by_default(dynamodb_local):
    """For people: time, function, level, message and the record's own keys; the REPORT line names the function."""
    refused = _invoke(dynamodb_local.port, "withdraw", "--sub", "nobody-with-a-ledger")
    assert refused.returncode == 0, refused.stderr
    assert json.loads(refused.stdout)["statusCode"] == 404  # stdout: the response alone, as ever
    lines = refused.stderr.splitlines()
    assert not [line for line in lines if line.startswith("{")], lines  # no JSON record left
    (request,) = [line for line in lines if " INFO " in line]
    assert re.fullmatch(
        r"\d\d:\d\d:\d\d\.\d{3} withdraw +INFO +POST /accounts/\{accountId\}/ledger/withdrawals  status=404  "
        r"code=ledger_not_found  guard=\S+  calls=1",
        request,
    ), request
    (report,) = [line for line in lines if " REPORT " in line]
    assert re.fullmatch(
        r"\S+ withdraw +REPORT [\d.]+ ms \(billed \d+ ms\), init [\d.]+ ms, memory \d+ of 256 MB", report
    )

    debug = _invoke(dynamodb_local.port, "withdraw", "--sub", "nobody-with-a-ledger", POWERTOOLS_LOG_LEVEL="DEBUG")
    calls = [line for line in debug.stderr.splitlines() if " DEBUG " in line and "DynamoDB " in line]
    assert len(calls) == 1 and "TransactWriteItems" in calls[0] and "condition: " in calls[0], debug.stderr


def test_make_invoke_makes_headers_and_multi_value_headers_agree(dynamodb_local, tmp_path):
    """An Idempotency-Key edited in `headers` alone is the one used (the handler reads `multiValueHeaders`), and the
    tool says so: the second request is new, not the first key reused with another body (422)."""
    sample = json.loads(event_path(routes.by_operation("create_account")).read_text())
    assert sample["multiValueHeaders"]["Idempotency-Key"] == [sample["headers"]["Idempotency-Key"]]
    caller, unique = "edit-" + os.urandom(4).hex(), os.urandom(5).hex()
    statuses = []
    for n in (1, 2):
        event = json.loads(json.dumps(sample))
        event["multiValueHeaders"]["Idempotency-Key"] = [f"first-{unique}"]  # left as the first request had it
        event["headers"]["Idempotency-Key"] = f"{'first' if n == 1 else 'second'}-{unique}"
        event["body"] = json.dumps({"email": f"n{n}-{unique}@example.com", "username": f"n{n}_{unique}"})
        path = tmp_path / f"event-{n}.json"
        path.write_text(json.dumps(event))
        completed = _invoke(dynamodb_local.port, "create_account", "--event", str(path), "--sub", caller)
        statuses.append(json.loads(completed.stdout)["statusCode"])
    assert "headers and multiValueHeaders differ on Idempotency-Key" in completed.stderr, completed.stderr
    assert statuses == [201, 201]
