"""The local server: real HTTP in, API Gateway proxy events to the real handlers, responses back."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from ddbguard.release import VERSION
from local.tokens import make_token


def _call(url: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_health_answers_ok(local_server):
    status, _headers, body = _call(f"{local_server}/health")
    assert status == 200
    assert json.loads(body) == {"status": "ok", "version": VERSION}


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


def test_wrong_method_on_a_known_path_is_405_with_allow_like_the_deployed_mock(local_server):
    status, headers, body = _call(f"{local_server}/accounts/abc", method="PUT")
    assert status == 405
    assert headers["Allow"] == "GET, PATCH, DELETE"
    assert headers["Content-Type"] == "application/problem+json"
    assert json.loads(body)["code"] == "method_not_allowed"
    # No CORS configured: OPTIONS is just another method this path does not have, and the answer says how to turn
    # CORS on (a browser's preflight lands here).
    status, _, body = _call(f"{local_server}/accounts", method="OPTIONS")
    assert status == 405
    assert "CORS_ALLOWED_ORIGINS" in json.loads(body)["detail"]


def test_openapi_json_and_docs_are_served_without_a_token(local_server):
    from openapi_spec_validator import validate

    from local.openapi import OPENAPI_PATH

    status, headers, body = _call(f"{local_server}/openapi.json")
    assert (status, headers["Content-Type"]) == (200, "application/json")
    assert body == OPENAPI_PATH.read_bytes()
    validate(json.loads(body))
    status, headers, page = _call(f"{local_server}/docs")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"https://" not in page  # no CDN: every asset comes from this server
    for asset in ("swagger-ui.css", "swagger-ui-bundle.js"):
        assert f"/docs/{asset}".encode() in page
        status, _, data = _call(f"{local_server}/docs/{asset}")
        assert status == 200 and len(data) > 10_000
    assert _call(f"{local_server}/docs/../package.json")[0] == 404
    assert _call(f"{local_server}/docs/index.html")[0] == 404


def test_root_sends_a_browser_to_the_docs(local_server):
    status, headers, page = _call(f"{local_server}/")  # urllib follows the redirect, as a browser does
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"swagger-ui" in page
