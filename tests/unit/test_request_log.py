"""The request's one INFO line: which layer module refused, read from the refusal's own traceback."""

from __future__ import annotations

import io
import json
import logging
from typing import Any

from ddbguard import observability
from ddbguard_api.http.proxy_events import ProxyResponse
from ddbguard_api.http.request_log import Outcome, log_request, refused_by


def _raised_in(module_name: str) -> BaseException:
    """An exception whose innermost frame runs in `module_name` (as a guard's would)."""
    namespace: dict[str, Any] = {"__name__": module_name}
    exec("def refuse():\n    raise ValueError('refused')\n", namespace)
    try:
        namespace["refuse"]()
    except ValueError as error:
        return error
    raise AssertionError("not raised")


def test_the_innermost_layer_module_is_the_guard():
    assert refused_by(_raised_in("ddbguard.guards.money").__traceback__) == "guards.money"
    assert refused_by(_raised_in("ddbguard_api.http.headers").__traceback__) == "edge.headers"
    assert refused_by(_raised_in("somewhere.else").__traceback__) is None


def test_the_line_carries_status_code_guard_calls_and_replay_only():
    printed = io.StringIO()
    capture = logging.StreamHandler(printed)
    capture.setFormatter(observability.logger.registered_formatter)
    std = logging.getLogger(observability.logger.name)
    std.addHandler(capture)
    level = std.level
    std.setLevel(logging.INFO)
    try:
        outcome = Outcome()
        outcome.refused("insufficient_funds", _raised_in("ddbguard.guards.money"))
        response: ProxyResponse = {
            "statusCode": 409,
            "multiValueHeaders": {"Idempotent-Replayed": ["true"]},
            "body": '{"detail": "x"}',
            "isBase64Encoded": False,
        }
        log_request("POST /accounts/{accountId}/ledger/withdrawals", response, outcome, 1)
    finally:
        std.removeHandler(capture)
        std.setLevel(level)
    record = json.loads(printed.getvalue())
    assert record["message"] == "POST /accounts/{accountId}/ledger/withdrawals"
    assert {k: record[k] for k in ("status", "code", "guard", "calls", "replayed")} == {
        "status": 409,
        "code": "insufficient_funds",
        "guard": "guards.money",
        "calls": 1,
        "replayed": True,
    }
    assert "detail" not in record and "body" not in record
