"""A busy store never strands an Idempotency-Key: on every route that takes one, a 503 `busy` wrote nothing,
its request marker included, so the client's retry with the same key runs the operation afresh.

Every DynamoDB call is answered ThrottlingException before it is sent (a `before-call` answer: botocore's
own retries do not run, ddbguard's do, without sleeping).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from botocore.awsrequest import AWSResponse, HTTPHeaders

import routes
from ddbguard.store import transient
from local.route_stories import sample_body

IDEMPOTENT_ROUTES = [route for route in routes.ROUTES if route.idempotency != "none"]
THROTTLED = {
    "Error": {"Code": "ThrottlingException", "Message": "Rate of requests exceeds the allowed throughput."},
    "ResponseMetadata": {"HTTPStatusCode": 400, "RequestId": "injected-throttle"},
}


@contextmanager
def throttled(client) -> Iterator[list[str]]:
    answered: list[str] = []

    def answer(model, params, **_: object):
        answered.append(model.name)
        return AWSResponse("https://client.invalid", 400, HTTPHeaders(), None), THROTTLED

    client.meta.events.register_first("before-call.dynamodb.*", answer, unique_id="ddbguard-throttle-domain")
    try:
        yield answered
    finally:
        client.meta.events.unregister("before-call.dynamodb.*", unique_id="ddbguard-throttle-domain")


def _path(route: routes.Route, uid: str) -> str:
    path = route.path
    for name in route.path_parameters:
        path = path.replace(f"{{{name}}}", f"{name[:4]}-{uid}")
    return path


def _body(route: routes.Route, uid: str) -> dict | None:
    if route.operation == "create_transfer":
        return {"fromAccountId": f"from-{uid}", "toAccountId": f"to-{uid}", "amountCents": 100}
    if route.operation == "create_order":
        return {"accountId": f"acct-{uid}", "items": [{"sku": "S", "quantity": 1, "unitPriceCents": 1}]}
    if route.operation == "create_account":
        return {"email": f"busy-{uid}@example.com", "username": f"busy_{uid}"}
    return sample_body(route)


@pytest.fixture
def no_backoff(monkeypatch):
    monkeypatch.setattr(transient, "BACKOFF_BASE_S", 0.0)
    monkeypatch.setattr(transient, "BACKOFF_CAP_S", 0.0)


@pytest.mark.parametrize("route", IDEMPOTENT_ROUTES, ids=lambda route: route.operation)
def test_busy_leaves_no_marker_so_the_retry_runs(api, ddb_client, no_backoff, route, uid):
    def send():
        return api.request(
            route.method,
            _path(route, uid),
            _body(route, uid),
            sub=f"busy-{uid}",
            idempotency_key=f"busy-{uid}",
            if_match=0 if route.if_match else None,
        )

    with throttled(ddb_client) as answered:
        busy = send()
    assert answered, "the operation never reached the store"
    assert (busy.status, busy.code) == (503, "busy"), busy.json
    assert busy.header("Retry-After")

    retry = send()
    # Nothing was recorded: the retry runs the operation (whatever it answers), it is not "still in progress".
    assert retry.code != "request_in_progress", retry.json
    assert retry.status < 500, retry.json
    again = send()
    assert (again.status, json.loads(again.raw or b"null")) == (retry.status, retry.json)
