"""Hostile input through real HTTP: every bad request is a clear 4xx problem+json that writes nothing."""

from __future__ import annotations

import http.client
import json
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from local.api_client import ApiClient
from local.tokens import make_token
from tests.support.ledger_seed import open_funded_ledger


def _raw(url: str, method: str, path: str, body: bytes = b"", headers: dict | None = None):
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def _auth(sub: str = "mallory") -> dict:
    return {"Authorization": f"Bearer {make_token(sub)}"}


BAD_ACCOUNT_BODIES = [
    (b"not json", 400),
    (b'{"email": "a@b.io", "email": "c@d.io", "username": "abc"}', 400),
    (b'{"email": "a@b.io", "username": NaN}', 400),
    (b'{"email": "a@b.io", "username": Infinity}', 400),
    (b"[1, 2]", 422),
    (b'"just a string"', 422),
    (b'{"email": "a@b.io", "username": "abc", "admin": true}', 422),
    (b'{"email": 42, "username": "abc"}', 422),
    (b'{"email": "a@b.io", "username": "ab\\u0000c"}', 422),
    (b'{"email": "a\\u200b@b.io", "username": "abcd"}', 422),
    (b'{"email": "a@b.io", "username": "abc\\u202e"}', 422),
    ('{{"email": "{}@b.io", "username": "abcd"}}'.format("a" * 260).encode(), 422),
    (b'{"email": "a@b.io", "username": "a b c"}', 422),
    (b'{"email": "a@b.io", "username": "ab"}', 422),
    (b'{"email": "a@b.io"}', 422),
    (b"\xff\xfe not utf-8", 400),
]


@pytest.mark.parametrize(("body", "status"), BAD_ACCOUNT_BODIES, ids=range(len(BAD_ACCOUNT_BODIES)))
def test_bad_account_bodies_are_4xx_problems(local_server, body, status):
    headers = {**_auth(), "Content-Type": "application/json"}
    got, headers_out, raw = _raw(local_server, "POST", "/accounts", body, headers)
    assert got == status, raw
    assert headers_out["content-type"] == "application/problem+json"
    problem = json.loads(raw)
    assert problem["status"] == status and problem["code"] and problem["title"] and problem["detail"]


def test_wrong_content_type_is_400(local_server):
    status, _, raw = _raw(local_server, "POST", "/accounts", b'{"email":"a@b.io","username":"abcd"}', _auth())
    assert status == 400 and json.loads(raw)["code"] == "unsupported_media_type"


def test_body_over_64_kib_is_413(local_server):
    body = json.dumps({"email": "a@b.io", "username": "abcd", "displayName": "x" * 70_000}).encode()
    status, _, raw = _raw(local_server, "POST", "/accounts", body, {**_auth(), "Content-Type": "application/json"})
    assert status == 413 and json.loads(raw)["code"] == "payload_too_large"


AMOUNTS = [0, -1, 1.5, "100", True, None, "1e400", 10**39, 100_000_000_001, [], {}]


@pytest.mark.parametrize("amount", AMOUNTS, ids=[repr(a) for a in AMOUNTS])
def test_bad_amounts_are_422_and_write_nothing(api: ApiClient, raw_client, amount):
    account = open_funded_ledger(api, raw_client, "alice", 1000)
    raw = b'{"amountCents": 1e400}' if amount == "1e400" else json.dumps({"amountCents": amount}).encode()
    for route in ("deposits", "withdrawals", "holds"):
        reply = api.post(f"/accounts/{account}/ledger/{route}", raw_body=raw, idempotency_key=str(uuid.uuid4()))
        assert reply.status == 422, (route, amount, reply.json)
        assert reply.json["errors"][0]["field"] == "amountCents"
    state = api.get(f"/accounts/{account}/ledger").json
    assert (state["clearedCents"], state["holdCents"], len(state["entries"])) == (1000, 0, 1)


def test_path_injection_is_404_not_500(api: ApiClient):
    for path in ("/accounts/..%2F..%2Fetc", "/accounts/" + "x" * 3000, "/accounts/%00", "/orders/%F0%9F%92%A5"):
        reply = api.get(path)
        assert reply.status == 404, (path, reply.json)


def test_server_survives_64_concurrent_connections(local_server):
    def health(_: int) -> int:
        return _raw(local_server, "GET", "/health")[0]

    with ThreadPoolExecutor(max_workers=64) as pool:
        statuses = list(pool.map(health, range(256)))
    assert statuses == [200] * 256


def test_server_keeps_serving_after_a_handler_raises(local_server, monkeypatch):
    from local.environments import ProcessEnvironment

    calls = threading.Event()

    def broken(environment, event, context):
        calls.set()
        raise RuntimeError("boom")

    monkeypatch.setattr(ProcessEnvironment, "invoke", broken)
    status, _, raw = _raw(local_server, "GET", "/health")
    assert status == 502 and calls.is_set() and json.loads(raw)["code"] == "bad_gateway"
    monkeypatch.undo()
    assert _raw(local_server, "GET", "/health")[0] == 200
