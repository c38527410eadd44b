"""What a handler answers is UTF-8 encodable whatever a client sent: API Gateway must encode the body a Lambda
returns, so a lone surrogate echoed from a JSON key or value would be a 5xx deployed. Each handler is invoked
directly (no local server in between, which would mask it), for every route with a body in the route table."""

from __future__ import annotations

import json
import re
import uuid

import pytest

import routes
from local.apigw_events import build_event
from local.lambda_context import LambdaContext
from local.server import in_process

BODY_ROUTES = [route for route in routes.ROUTES if route.body is not None]
FINDINGS = [b'{"\\udc00": 1}', b'{"email": "\\ud800@example.com", "username": "\\udfff", "amountCents": "\\ud83d"}']


@pytest.mark.parametrize("finding", FINDINGS, ids=["key", "values"])
@pytest.mark.parametrize("route", BODY_ROUTES, ids=[f"{r.method} {r.path}" for r in BODY_ROUTES])
def test_a_handler_answers_a_lone_surrogate_with_an_encodable_4xx(dynamodb_local, route, finding):
    parameters = {name: uuid.uuid4().hex for name in re.findall(r"\{([^}]+)\}", route.path)}
    path = route.path.format(**parameters)
    event = build_event(
        method=route.method,
        resource=route.path,
        raw_path=path,
        headers=[
            ("Content-Type", "application/json"),
            ("Idempotency-Key", uuid.uuid4().hex),
            ("If-Match", '"0"'),
        ],
        body=finding,
        path_parameters=parameters or None,
        claims={"sub": "edge-bytes", "token_use": "id"},
    )
    response = in_process().invoke(route, event, LambdaContext(function_name=f"ddbguard-{route.operation}"))
    assert 400 <= response["statusCode"] < 500, response
    encoded = response["body"].encode("utf-8")  # strict: raises on a lone surrogate
    document = json.loads(encoded)
    assert document["status"] == response["statusCode"]
