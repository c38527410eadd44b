"""The edge cannot be broken by bytes: whatever a client sends, every route with a body answers a 4xx whose body is
valid UTF-8 JSON with no lone surrogate, and the local server answers its own refusals (431, 414, 400) as
problem+json. The routes come from the route table, so a new route with a body is covered when it is declared."""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import uuid
from urllib.parse import urlsplit

import pytest

import routes
from local.tokens import make_token

BODY_ROUTES = [route for route in routes.ROUTES if route.body is not None]
# Each a byte sequence a client sent that once broke the connection or could: a lone surrogate escape as a key, as a
# value, a pair split across a key, and one in a nested object; then the look-alike findings.
FINDINGS = [
    b'{"\\udc00": 1}',
    b'{"\\ud800": "\\udfff"}',
    b'{"email": "\\udc00@example.com", "username": "a\\ud83d"}',
    b'{"items": [{"\\udcff": 1}], "amountCents": "\\ud800"}',
    # Invisible marks and a fold-ambiguous letter in every unique-looking field: refused wherever they land.
    b'{"email": "kate\\u034f\\ufe0f@example.com", "username": "kate\\u3164", "status": "PAID\\u180b"}',
    b'{"email": "kate.\\u03f2ole@example.com", "username": "\\u039dina", "accountId": "\\u03f2"}',
]
LONE_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _request(url: str, method: str, path: str, body: bytes, headers: dict[str, str]):
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def _strings(document: object) -> list[str]:
    if isinstance(document, dict):
        return [s for key, value in document.items() for s in (key, *_strings(value))]
    if isinstance(document, list):
        return [s for value in document for s in _strings(value)]
    return [document] if isinstance(document, str) else []


def _path(route: routes.Route) -> str:
    return re.sub(r"\{[^}]+\}", lambda _: uuid.uuid4().hex, route.path)


@pytest.mark.parametrize("finding", FINDINGS, ids=range(len(FINDINGS)))
@pytest.mark.parametrize("route", BODY_ROUTES, ids=[f"{r.method} {r.path}" for r in BODY_ROUTES])
def test_every_route_with_a_body_answers_any_bytes_with_an_encodable_problem(local_server, route, finding):
    headers = {
        "Authorization": f"Bearer {make_token('edge-bytes')}",
        "Content-Type": "application/json",
        "Idempotency-Key": uuid.uuid4().hex,
        "If-Match": '"0"',
    }
    status, response_headers, raw = _request(local_server, route.method, _path(route), finding, headers)
    assert 400 <= status < 500, raw
    assert response_headers["content-type"] == "application/problem+json"
    document = json.loads(raw.decode("utf-8"))  # strict UTF-8: a raw surrogate would not decode
    assert document["status"] == status
    assert not LONE_SURROGATE_ESCAPE.search(raw), raw
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for text in _strings(document) for ch in text), document


def _raw_exchange(url: str, request: bytes) -> bytes:
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=60) as connection:
        connection.sendall(request)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET /accounts HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n", 431),
        (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        (b"NOT A REQUEST LINE AT ALL\r\n\r\n", 400),
        (b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", 505),
    ],
    ids=["header-too-large", "uri-too-long", "bad-request-line", "bad-version"],
)
def test_the_local_servers_own_refusals_are_problem_json(local_server, request_bytes, status):
    response = _raw_exchange(local_server, request_bytes)
    head, _, body = response.partition(b"\r\n\r\n")
    assert head.split(b" ", 2)[1] == str(status).encode(), head
    assert b"content-type: application/problem+json" in head.lower(), head
    assert json.loads(body)["status"] == status


def test_the_access_log_names_the_route_template_never_the_query_string(dynamodb_local, capsys):
    from local.server import LocalApiServer, in_process

    server = LocalApiServer("127.0.0.1", 0, quiet=False, environments=in_process())
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        secret = f"secret-{uuid.uuid4().hex}"
        account_id = uuid.uuid4().hex
        status, _, _ = _request(server.url, "GET", f"/accounts/{account_id}?access_token={secret}", b"", {})
        assert status == 401
        _raw_exchange(server.url, f"GET /?token={secret}{'a' * 70000} HTTP/1.1\r\n\r\n".encode())
    finally:
        server.shutdown()
        server.server_close()
    log = capsys.readouterr().err
    assert re.search(r"\(api gateway\) +INFO +GET /accounts/\{accountId\}  status=401$", log, re.MULTILINE), log
    assert secret not in log and account_id not in log
