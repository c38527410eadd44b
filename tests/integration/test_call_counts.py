"""Every route at its physical minimum of DynamoDB calls, pinned: success, refusal and replay, key included.

Counted with botocore event hooks on ddbguard's own client (no mocking): each entry is one API call
as sent, botocore's own retries counted once. The stream's settlement is not the request's work;
replays are counted after it has run (before it, a replay reads `pending` once more, shown apart).
"""

from __future__ import annotations

import uuid

import pytest

from local.api_client import ApiClient
from tests.support.call_counter import counting_calls
from tests.support.settlement import settle_all

TXN, GET, BATCH, UPDATE, PUT, QUERY = (
    "TransactWriteItems",
    "GetItem",
    "BatchGetItem",
    "UpdateItem",
    "PutItem",
    "Query",
)


def calls_of(ddb_client, send):
    with counting_calls(ddb_client) as counter:
        reply = send()
    return reply, counter.calls


def key() -> str:
    return f"k-{uuid.uuid4()}"


def sign_up(api: ApiClient, sub: str = "alice") -> dict:
    tag = uuid.uuid4().hex[:12]
    reply = api.post("/accounts", {"email": f"{tag}@calls.example", "username": f"c{tag}"}, sub=sub)
    assert reply.status == 201, reply.json
    return reply.json


def funded(api: ApiClient, amount: int = 10_000, sub: str = "alice") -> str:
    account_id = sign_up(api, sub)["accountId"]
    assert api.post(f"/accounts/{account_id}/ledger", sub=sub).status == 201
    if amount:
        deposit = api.post(
            f"/accounts/{account_id}/ledger/deposits", {"amountCents": amount}, sub=sub, idempotency_key=key()
        )
        assert deposit.status == 201
    return account_id


# --- accounts ----------------------------------------------------------------------------------


def test_sign_up_with_a_key_is_one_transaction_and_so_are_its_refusal_and_replay(api, ddb_client):
    tag, k = uuid.uuid4().hex[:12], key()
    body = {"email": f"{tag}@calls.example", "username": f"c{tag}"}
    first, calls = calls_of(ddb_client, lambda: api.post("/accounts", body, idempotency_key=k))
    assert (first.status, calls) == (201, [TXN])
    again, calls = calls_of(ddb_client, lambda: api.post("/accounts", body, idempotency_key=k))
    assert (again.status, again.json, calls) == (201, first.json, [TXN])
    taken, calls = calls_of(ddb_client, lambda: api.post("/accounts", body, idempotency_key=key()))
    assert (taken.status, calls) == (409, [TXN])


def test_reading_an_account_is_one_get(api, ddb_client):
    account = sign_up(api)
    reply, calls = calls_of(ddb_client, lambda: api.get(f"/accounts/{account['accountId']}"))
    assert (reply.status, calls) == (200, [GET])


def test_an_unkeyed_display_name_change_is_one_update_item(api, ddb_client):
    account = sign_up(api)
    path = f"/accounts/{account['accountId']}"
    first, calls = calls_of(ddb_client, lambda: api.patch(path, {"displayName": "Ada"}, if_match=0))
    assert (first.status, calls) == (200, [UPDATE])
    stale, calls = calls_of(ddb_client, lambda: api.patch(path, {"displayName": "B"}, if_match=0))
    assert (stale.status, calls) == (412, [UPDATE])


def test_a_keyed_patch_is_one_transaction_after_reading_item_and_marker_its_replay_that_read(api, ddb_client):
    """The key's marker goes in the same transaction as the change; a transaction returns no item, so the reply is
    composed from one read of the item and the marker together, which alone answers a replay elsewhere."""
    account = sign_up(api)
    path, k = f"/accounts/{account['accountId']}", key()
    send = lambda: api.patch(path, {"displayName": "Ada"}, if_match=0, idempotency_key=k)  # noqa: E731
    first, calls = calls_of(ddb_client, send)
    assert (first.status, calls) == (200, [BATCH, TXN])
    again, calls = calls_of(ddb_client, send)
    assert (again.status, again.json, calls) == (200, first.json, [BATCH])
    stale, calls = calls_of(
        ddb_client, lambda: api.patch(path, {"displayName": "B"}, if_match=0, idempotency_key=key())
    )
    assert (stale.status, calls) == (412, [BATCH, TXN])


def test_a_unique_change_reads_the_account_once_then_writes_once(api, ddb_client):
    account = sign_up(api)
    path, k, email = f"/accounts/{account['accountId']}", key(), f"{uuid.uuid4().hex[:10]}@moved.example"
    unkeyed, calls = calls_of(ddb_client, lambda: api.patch(path, {"email": email}, if_match=0))
    assert (unkeyed.status, calls) == (200, [GET, TXN])
    moved = f"{uuid.uuid4().hex[:10]}@moved.example"
    send = lambda: api.patch(path, {"email": moved}, if_match=1, idempotency_key=k)  # noqa: E731
    first, calls = calls_of(ddb_client, send)
    assert (first.status, calls) == (200, [BATCH, TXN])
    again, calls = calls_of(ddb_client, send)
    assert (again.status, again.json, calls) == (200, first.json, [BATCH])


def test_delete_with_a_key_reads_account_and_marker_together(api, ddb_client):
    account = sign_up(api)
    path, k = f"/accounts/{account['accountId']}", key()
    first, calls = calls_of(ddb_client, lambda: api.delete(path, if_match=0, idempotency_key=k))
    assert (first.status, calls) == (204, [BATCH, TXN])
    again, calls = calls_of(ddb_client, lambda: api.delete(path, if_match=0, idempotency_key=k))
    assert (again.status, calls) == (204, [BATCH])


# --- ledger ------------------------------------------------------------------------------------


def test_opening_a_ledger_is_one_transaction(api, ddb_client):
    account = sign_up(api)
    path, k = f"/accounts/{account['accountId']}/ledger", key()
    first, calls = calls_of(ddb_client, lambda: api.post(path, idempotency_key=k))
    assert (first.status, calls) == (201, [TXN])
    again, calls = calls_of(ddb_client, lambda: api.post(path, idempotency_key=k))
    assert (again.status, again.json, calls) == (201, first.json, [TXN])
    twice, calls = calls_of(ddb_client, lambda: api.post(path, idempotency_key=key()))
    assert (twice.status, calls) == (409, [TXN])


@pytest.mark.parametrize(("route", "amount"), [("deposits", 100), ("withdrawals", 100), ("holds", 100)])
def test_money_in_out_and_holds_are_two_calls_refusals_and_replays_one(api, ddb_client, route, amount):
    account = funded(api, 1_000)
    path, k = f"/accounts/{account}/ledger/{route}", key()
    first, calls = calls_of(ddb_client, lambda: api.post(path, {"amountCents": amount}, idempotency_key=k))
    assert (first.status, calls) == (201, [TXN, GET])  # the write, then its exact availableCentsAfter
    early, calls = calls_of(ddb_client, lambda: api.post(path, {"amountCents": amount}, idempotency_key=k))
    assert (early.json, calls) == (first.json, [TXN, GET])  # unsettled: the value still in `pending`
    settle_all()
    again, calls = calls_of(ddb_client, lambda: api.post(path, {"amountCents": amount}, idempotency_key=k))
    assert (again.status, again.json, calls) == (201, first.json, [TXN])
    if route != "deposits":
        refused, calls = calls_of(ddb_client, lambda: api.post(path, {"amountCents": 10**9}, idempotency_key=key()))
        assert (refused.status, refused.code, calls) == (409, "insufficient_funds", [TXN])


@pytest.mark.parametrize("settle", ["capture", "release"])
def test_settling_a_hold_reads_hold_and_marker_once(api, ddb_client, settle):
    account = funded(api, 1_000)
    hold = api.post(f"/accounts/{account}/ledger/holds", {"amountCents": 300}, idempotency_key=key()).json
    path, k = f"/accounts/{account}/ledger/holds/{hold['holdId']}/{settle}", key()
    first, calls = calls_of(ddb_client, lambda: api.post(path, idempotency_key=k))
    assert (first.status, calls) == (200, [BATCH, TXN, GET])
    settle_all()
    again, calls = calls_of(ddb_client, lambda: api.post(path, idempotency_key=k))
    assert (again.status, again.json, calls) == (200, first.json, [BATCH])
    settled, calls = calls_of(ddb_client, lambda: api.post(path, idempotency_key=key()))
    assert (settled.status, settled.code, calls) == (409, "hold_settled", [BATCH, TXN])


def test_a_transfer_is_two_calls_its_refusal_and_replay_one(api, ddb_client):
    source, target = funded(api, 1_000, "alice"), funded(api, 0, "bob")
    k = key()
    body = {"fromAccountId": source, "toAccountId": target, "amountCents": 250}
    first, calls = calls_of(ddb_client, lambda: api.post("/transfers", body, idempotency_key=k))
    assert (first.status, calls) == (201, [TXN, BATCH])  # both balances' values in one read
    settle_all()
    again, calls = calls_of(ddb_client, lambda: api.post("/transfers", body, idempotency_key=k))
    assert (again.status, again.json, calls) == (201, first.json, [TXN])
    too_much = {**body, "amountCents": 10**9}
    refused, calls = calls_of(ddb_client, lambda: api.post("/transfers", too_much, idempotency_key=key()))
    assert (refused.status, calls) == (409, [TXN])


def test_a_statement_is_one_get_and_one_query(api, ddb_client):
    account = funded(api, 1_000)
    settle_all()
    reply, calls = calls_of(ddb_client, lambda: api.get(f"/accounts/{account}/ledger"))
    assert (reply.status, calls) == (200, [GET, QUERY])


# --- orders ------------------------------------------------------------------------------------


def _order(api: ApiClient, account: str, k: str | None = None):
    body = {"accountId": account, "items": [{"sku": "BOOK-1", "quantity": 2, "unitPriceCents": 150}]}
    return api.post("/orders", body, idempotency_key=k)


def test_order_create_read_patch_delete_are_one_call_each(api, ddb_client):
    account = funded(api, 0)
    k = key()
    created, calls = calls_of(ddb_client, lambda: _order(api, account, k))
    assert (created.status, calls) == (201, [TXN])
    again, calls = calls_of(ddb_client, lambda: _order(api, account, k))
    assert (again.status, again.json, calls) == (201, created.json, [TXN])
    path = f"/orders/{created.json['orderId']}"
    read, calls = calls_of(ddb_client, lambda: api.get(path))
    assert (read.status, calls) == (200, [GET])
    pk = key()
    cancel = lambda: api.patch(path, {"status": "CANCELLED"}, if_match=0, idempotency_key=pk)  # noqa: E731
    cancelled, calls = calls_of(ddb_client, cancel)
    assert (cancelled.status, calls) == (200, [BATCH, TXN])
    replayed, calls = calls_of(ddb_client, cancel)
    assert (replayed.status, replayed.json, calls) == (200, cancelled.json, [BATCH])
    dk = key()
    gone, calls = calls_of(ddb_client, lambda: api.delete(path, if_match=1, idempotency_key=dk))
    assert (gone.status, calls) == (204, [TXN])
    gone_again, calls = calls_of(ddb_client, lambda: api.delete(path, if_match=1, idempotency_key=dk))
    assert (gone_again.status, calls) == (204, [TXN])
    other = _order(api, account).json
    plain, calls = calls_of(ddb_client, lambda: api.delete(f"/orders/{other['orderId']}", if_match=0))
    assert (plain.status, calls) == (204, [PUT])  # the order becomes its tombstone


@pytest.mark.parametrize("money", ["pay", "refund"])
def test_pay_and_refund_are_one_read_and_one_write_their_replay_one_read(api, ddb_client, money):
    account = funded(api, 1_000)
    order = _order(api, account).json
    if money == "refund":
        assert api.post(f"/orders/{order['orderId']}/pay", idempotency_key=key()).status == 200
    path, k = f"/orders/{order['orderId']}/{money}", key()
    paid, calls = calls_of(ddb_client, lambda: api.post(path, idempotency_key=k))
    assert (paid.status, calls) == (200, [BATCH, TXN])  # the order and the marker together, then the write
    again, calls = calls_of(ddb_client, lambda: api.post(path, idempotency_key=k))
    assert (again.status, again.json, calls) == (200, paid.json, [BATCH])
    twice, calls = calls_of(ddb_client, lambda: api.post(path, idempotency_key=key()))
    assert (twice.status, twice.code, calls) == (409, "invalid_transition", [BATCH, TXN])


def test_health_touches_nothing(api, ddb_client):
    reply, calls = calls_of(ddb_client, lambda: api.get("/health", sub=None))
    assert (reply.status, calls) == (200, [])
