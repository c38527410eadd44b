"""Where a retry lands decides what it costs: the same warm environment answers from Powertools' local cache
with no DynamoDB call; another environment answers from the request marker with the write's one call.

`warm` runs every request on one reused environment per function (a retry that lands where the first
request ran); `api` gives each request an environment of its own (a retry that lands elsewhere).
Counted with botocore event hooks on ddbguard's own client, on DynamoDB Local.
"""

from __future__ import annotations

import uuid

import pytest

from local.api_client import ApiClient
from local.in_process import InProcessEnvironments
from local.scenarios import balance
from tests.support.call_counter import counting_calls
from tests.support.ledger_seed import open_funded_ledger
from tests.support.settlement import settle_all

TXN = "TransactWriteItems"


@pytest.fixture
def warm(dynamodb_local) -> ApiClient:
    return ApiClient(InProcessEnvironments(reuse=True))


def calls_of(ddb_client, send):
    with counting_calls(ddb_client) as counter:
        reply = send()
    return reply, counter.calls


def test_a_retry_on_the_same_environment_makes_no_call(warm, api, ddb_client, raw_client):
    account = open_funded_ledger(api, raw_client, "alice", 1_000)
    path, key = f"/accounts/{account}/ledger/deposits", f"k-{uuid.uuid4()}"
    first = warm.post(path, {"amountCents": 100}, idempotency_key=key)
    assert first.status == 201 and first.header("Idempotent-Replayed") is None
    again, calls = calls_of(ddb_client, lambda: warm.post(path, {"amountCents": 100}, idempotency_key=key))
    assert (again.status, again.json, calls) == (201, first.json, [])
    assert again.header("Idempotent-Replayed") == "true"
    settle_all()
    assert balance(api, "alice", account)["clearedCents"] == 1_100  # applied once


def test_a_retry_on_another_environment_makes_the_writes_one_call(warm, api, ddb_client, raw_client):
    account = open_funded_ledger(api, raw_client, "alice", 1_000)
    path, key = f"/accounts/{account}/ledger/deposits", f"k-{uuid.uuid4()}"
    first = warm.post(path, {"amountCents": 100}, idempotency_key=key)
    settle_all()
    elsewhere, calls = calls_of(ddb_client, lambda: api.post(path, {"amountCents": 100}, idempotency_key=key))
    assert (elsewhere.status, elsewhere.json, calls) == (201, first.json, [TXN])
    assert elsewhere.header("Idempotent-Replayed") == "true"
    assert balance(api, "alice", account)["clearedCents"] == 1_100


def test_the_same_key_with_another_body_is_422_on_either_environment(warm, api, ddb_client, raw_client):
    account = open_funded_ledger(api, raw_client, "alice", 1_000)
    path, key = f"/accounts/{account}/ledger/deposits", f"k-{uuid.uuid4()}"
    assert warm.post(path, {"amountCents": 100}, idempotency_key=key).status == 201
    settle_all()
    # Same environment: Powertools' payload validation refuses it from its cache, before any call.
    here, calls = calls_of(ddb_client, lambda: warm.post(path, {"amountCents": 999}, idempotency_key=key))
    assert (here.status, here.code, calls) == (422, "idempotency_key_reused", [])
    # Another environment: the write stops at the marker, whose fingerprint is another request's.
    there, calls = calls_of(ddb_client, lambda: api.post(path, {"amountCents": 999}, idempotency_key=key))
    assert (there.status, there.code, calls) == (422, "idempotency_key_reused", [TXN])
    assert here.json == there.json
    assert balance(api, "alice", account)["clearedCents"] == 1_100


def test_a_refusal_is_not_kept_so_a_retry_on_the_same_environment_decides_afresh(warm, api, raw_client):
    account = open_funded_ledger(api, raw_client, "alice", 100)
    path, key = f"/accounts/{account}/ledger/withdrawals", f"k-{uuid.uuid4()}"
    refused = warm.post(path, {"amountCents": 500}, idempotency_key=key)
    assert (refused.status, refused.code) == (409, "insufficient_funds")
    deposit = f"/accounts/{account}/ledger/deposits"
    assert api.post(deposit, {"amountCents": 1_000}, idempotency_key=f"k-{uuid.uuid4()}").status == 201
    retried = warm.post(path, {"amountCents": 500}, idempotency_key=key)
    assert retried.status == 201 and retried.header("Idempotent-Replayed") is None


def test_another_callers_identical_key_on_the_same_environment_is_a_new_request(warm, uid):
    key = f"k-{uid}"
    mine = warm.post("/accounts", {"email": f"a-{uid}@env.example", "username": f"a_{uid}"}, idempotency_key=key)
    theirs = warm.post(
        "/accounts", {"email": f"b-{uid}@env.example", "username": f"b_{uid}"}, sub="bob", idempotency_key=key
    )
    assert (mine.status, theirs.status) == (201, 201)
    assert mine.json["accountId"] != theirs.json["accountId"] and theirs.header("Idempotent-Replayed") is None


def test_a_create_replayed_on_the_same_environment_makes_no_call(warm, ddb_client, uid):
    body, key = {"email": f"c-{uid}@env.example", "username": f"c_{uid}"}, f"k-{uid}"
    first = warm.post("/accounts", body, idempotency_key=key)
    again, calls = calls_of(ddb_client, lambda: warm.post("/accounts", body, idempotency_key=key))
    assert (first.status, again.status, again.json, calls) == (201, 201, first.json, [])
    assert again.header("Location") == first.header("Location") and again.header("ETag") == first.header("ETag")


def _order(api: ApiClient, account: str) -> dict:
    body = {"accountId": account, "items": [{"sku": "BOOK-1", "quantity": 1, "unitPriceCents": 100}]}
    reply = api.post("/orders", body)
    assert reply.status == 201, reply.json
    return reply.json


@pytest.mark.parametrize("resource", ["account", "order"])
def test_a_patch_key_reused_with_another_body_is_422_on_a_fresh_environment(warm, api, raw_client, resource):
    account = open_funded_ledger(api, raw_client, "alice", 0)
    if resource == "account":
        path, first_body, other_body = f"/accounts/{account}", {"displayName": "First"}, {"displayName": "Other"}
    else:
        path = f"/orders/{_order(api, account)['orderId']}"
        first_body, other_body = {"status": "CANCELLED"}, {"status": "PAID"}
    before = api.get(path).json["version"]
    key = f"k-{uuid.uuid4()}"
    first = warm.patch(path, first_body, if_match=before, idempotency_key=key)
    assert first.status == 200, first.json
    # A fresh environment, the current If-Match: only the stamp on the item can tell the key was used.
    reused = api.patch(path, other_body, if_match=first.json["version"], idempotency_key=key)
    assert (reused.status, reused.code) == (422, "idempotency_key_reused"), reused.json
    assert api.get(path).json == first.json  # nothing applied
    retried = api.patch(path, first_body, if_match=first.json["version"], idempotency_key=key)
    assert (retried.status, retried.json) == (200, first.json)
    assert retried.header("Idempotent-Replayed") == "true"
    assert api.get(path).json["version"] == before + 1  # applied once


def test_a_delete_key_reused_on_another_order_is_422_on_a_fresh_environment(warm, api, raw_client):
    account = open_funded_ledger(api, raw_client, "alice", 0)
    first_order, other_order = _order(api, account), _order(api, account)
    key = f"k-{uuid.uuid4()}"
    assert warm.delete(f"/orders/{first_order['orderId']}", if_match=0, idempotency_key=key).status == 204
    reused = api.delete(f"/orders/{other_order['orderId']}", if_match=0, idempotency_key=key)
    assert (reused.status, reused.code) == (422, "idempotency_key_reused"), reused.json
    assert api.get(f"/orders/{other_order['orderId']}").status == 200
