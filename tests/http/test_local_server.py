"""The local server: real HTTP in, API Gateway proxy events to the real handlers, responses back."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from local.tokens import make_token


def _call(url: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_health_answers_ok(local_server):
    status, _headers, body = _call(f"{local_server}/health")
    assert status == 200
    assert json.loads(body) == {"status": "ok"}


def test_no_token_is_401_problem(local_server):
    status, headers, body = _call(f"{local_server}/accounts/abc")
    assert status == 401
    assert headers["Content-Type"] == "application/problem+json"
    assert json.loads(body)["code"] == "unauthorized"


def test_unreadable_token_is_401(local_server):
    status, _, body = _call(f"{local_server}/accounts/abc", headers={"Authorization": "Bearer not-a-jwt"})
    assert status == 401
    assert json.loads(body)["code"] == "unauthorized"


def test_unknown_route_is_404_and_wrong_method_405(local_server):
    assert _call(f"{local_server}/nope")[0] == 404
    assert _call(f"{local_server}/health", method="DELETE")[0] == 405


def test_token_payload_reaches_handler_as_claims(local_server):
    token = make_token("carol")
    status, _, body = _call(f"{local_server}/accounts/does-not-exist", headers={"Authorization": f"Bearer {token}"})
    assert status == 404
    assert json.loads(body)["status"] == 404
