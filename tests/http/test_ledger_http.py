"""The ledger through real HTTP (the local server): status, media type and problem bodies on the wire.

The ledgers are set up through the handlers; only the requests under test cross the wire.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import uuid

from local.tokens import make_token
from tests.support.ledger_invariants import assert_ledger_invariants
from tests.support.ledger_seed import open_funded_ledger


def call(url: str, method: str, sub: str, body: dict | None = None, idempotency_key: str | None = None):
    headers = {"Authorization": f"Bearer {make_token(sub)}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read())


def test_insufficient_funds_over_http_is_a_problem_document_with_the_amounts(local_server, api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=250)

    status, headers, body = call(
        f"{local_server}/accounts/{account_id}/ledger/withdrawals", "POST", sub, {"amountCents": 251}, str(uuid.uuid4())
    )

    assert status == 409
    assert headers["Content-Type"] == "application/problem+json"
    assert {k: body[k] for k in ("status", "code", "availableCents", "requestedCents")} == {
        "status": 409,
        "code": "insufficient_funds",
        "availableCents": 250,
        "requestedCents": 251,
    }
    assert {"type", "title", "detail"} <= set(body)
    assert assert_ledger_invariants(raw_client, account_id).cleared == 250


def test_transfer_and_paged_statement_over_http(local_server, api, raw_client, uid):
    alice, bob = f"alice-{uid}", f"bob-{uid}"
    source = open_funded_ledger(api, raw_client, alice, deposit=1_000)
    target = open_funded_ledger(api, raw_client, bob, deposit=1)

    status, _, sent = call(
        f"{local_server}/transfers",
        "POST",
        alice,
        {"fromAccountId": source, "toAccountId": target, "amountCents": 300},
        str(uuid.uuid4()),
    )
    assert (status, sent["type"], sent["availableCentsAfter"]) == (201, "transfer_out", 700)

    status, headers, first = call(f"{local_server}/accounts/{source}/ledger?limit=1", "GET", alice)
    assert (status, headers["ETag"], first["availableCents"]) == (200, f'"{first["version"]}"', 700)
    assert [e["type"] for e in first["entries"]] == ["transfer_out"]
    cursor = urllib.parse.quote(first["nextCursor"])
    status, _, second = call(f"{local_server}/accounts/{source}/ledger?limit=1&cursor={cursor}", "GET", alice)
    assert (status, [e["type"] for e in second["entries"]]) == (200, ["deposit"])
    status, _, refused = call(f"{local_server}/accounts/{target}/ledger", "GET", alice)
    assert (status, refused["code"]) == (404, "ledger_not_found")
