"""Orders on DynamoDB Local through the real handlers: versions, ETag / If-Match, payment.

Accounts and ledger balances are seeded straight into the table (docs/data-model.md formats),
so these tests do not depend on the account and ledger routes.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from ddbguard.domain import orders
from ddbguard.errors import IdempotencyKeyReused
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store import keys
from local.tokens import make_token
from tests.support.call_counter import counting_calls
from tests.support.ledger_seed import seed_account, seed_balance
from tests.support.settlement import settle_all
from tests.support.table_reads import is_tombstone, raw_collection, raw_item

LINES = [
    {"sku": "BOOK-1843", "quantity": 2, "unitPriceCents": 1999},
    {"sku": "PEN-7", "quantity": 1, "unitPriceCents": 250},
]
LINES_TOTAL = 2 * 1999 + 250
PUBLIC_FIELDS = {"orderId", "accountId", "status", "items", "totalCents", "version", "createdAt", "updatedAt"}


def ledger_entries(raw_client, account_id: str) -> list[dict[str, Any]]:
    return raw_collection(raw_client, keys.account_partition(account_id), keys.ENTRY_PREFIX)


def new_order(api, raw_client, uid: str, sub: str = "alice", lines: list | None = None, **body: Any) -> dict:
    """An account of `sub` (seeded) and a PENDING order on it, created through the handler."""
    account_id = body.pop("accountId", None) or f"acct-{uid}"
    seed_account(raw_client, sub, account_id)
    reply = api.post("/orders", {"accountId": account_id, "items": lines or LINES, **body}, sub=sub)
    assert reply.status == 201, reply.json
    return reply.json


def order_path(order: dict) -> str:
    return f"/orders/{order['orderId']}"


def stored_order(raw_client, order_id: str, owner: str = "alice") -> dict[str, Any] | None:
    return raw_item(raw_client, keys.order_key(owner, order_id))


def move(api, order: dict, *statuses: str, sub: str = "alice") -> dict:
    """Walk the order through `statuses`: PAID by paying it (a PATCH cannot), the others by PATCH."""
    from ddbguard.store.client import client

    for status in statuses:
        if status == "PAID":
            seed_balance(client(), order["accountId"], sub, order["totalCents"])
            reply = api.post(f"{order_path(order)}/pay", sub=sub, idempotency_key=f"move-{order['orderId']}")
        else:
            reply = api.patch(order_path(order), {"status": status}, sub=sub, if_match=order["version"])
        assert reply.status == 200, reply.json
        order = reply.json
    return order


# --- create and read -------------------------------------------------------------------------


def test_create_answers_201_with_etag_0_and_location(api, raw_client, uid):
    account_id = f"acct-{uid}"
    seed_account(raw_client, "alice", account_id)

    reply = api.post("/orders", {"accountId": account_id, "items": LINES}, sub="alice")

    assert reply.status == 201
    order = reply.json
    assert set(order) == PUBLIC_FIELDS
    assert order["status"] == "PENDING"
    assert order["version"] == 0
    assert order["totalCents"] == LINES_TOTAL
    assert order["accountId"] == account_id
    assert order["items"] == LINES
    assert reply.header("ETag") == '"0"'
    assert reply.header("Location") == f"/orders/{order['orderId']}"
    stored = stored_order(raw_client, order["orderId"])
    assert stored["ownerSub"] == "alice"
    assert stored["kind"] == "order"
    assert stored["version"] == 0


def test_get_answers_the_order_with_its_etag_to_its_owner_only(api, raw_client, uid):
    order = new_order(api, raw_client, uid)

    mine = api.get(order_path(order), sub="alice")
    assert mine.status == 200
    assert mine.json == order
    assert mine.header("ETag") == '"0"'

    theirs = api.get(order_path(order), sub="mallory")
    assert theirs.status == 404
    assert theirs.code == "order_not_found"
    assert api.get(f"/orders/absent-{uid}", sub="alice").code == "order_not_found"

    # Admins may read any account (docs/api.md), not other callers' orders.
    admin = api.get(order_path(order), sub="root", groups=["admin"])
    assert (admin.status, admin.code) == (404, "order_not_found")


def test_create_refuses_an_account_that_is_absent_or_not_yours(api, raw_client, uid):
    seed_account(raw_client, "bob", f"bobs-{uid}")

    absent = api.post("/orders", {"accountId": f"none-{uid}", "items": LINES, "orderId": f"o1-{uid}"}, sub="alice")
    foreign = api.post("/orders", {"accountId": f"bobs-{uid}", "items": LINES, "orderId": f"o2-{uid}"}, sub="alice")

    for reply in (absent, foreign):
        assert reply.status == 404
        assert reply.code == "account_not_found"
    assert stored_order(raw_client, f"o1-{uid}") is None
    assert stored_order(raw_client, f"o2-{uid}") is None


def test_create_with_an_existing_client_order_id_is_409_and_never_overwrites(api, raw_client, uid):
    order = new_order(api, raw_client, uid, orderId=f"mine-{uid}")
    before = stored_order(raw_client, order["orderId"])

    other_lines = [{"sku": "X", "quantity": 1, "unitPriceCents": 1}]
    again = api.post("/orders", {"accountId": order["accountId"], "items": other_lines, "orderId": order["orderId"]})

    assert again.status == 409
    assert again.code == "already_exists"
    assert stored_order(raw_client, order["orderId"]) == before


def test_create_refuses_a_total_over_the_money_limit(api, raw_client, uid):
    account_id = f"acct-{uid}"
    seed_account(raw_client, "alice", account_id)
    lines = [{"sku": "GOLD", "quantity": 2, "unitPriceCents": 60_000_000_000}]

    reply = api.post("/orders", {"accountId": account_id, "items": lines, "orderId": f"big-{uid}"})

    assert reply.status == 422
    assert reply.json["errors"][0]["field"] == "items"
    assert stored_order(raw_client, f"big-{uid}") is None


def test_create_with_idempotency_key_replays_the_first_201(api, raw_client, uid):
    account_id = f"acct-{uid}"
    seed_account(raw_client, "alice", account_id)
    body = {"accountId": account_id, "items": LINES}

    first = api.post("/orders", body, idempotency_key=f"k-{uid}")
    second = api.post("/orders", body, idempotency_key=f"k-{uid}")

    assert first.status == second.status == 201
    assert second.json == first.json
    other = api.post("/orders", {**body, "items": LINES[:1]}, idempotency_key=f"k-{uid}")
    assert other.status == 422
    assert other.code == "idempotency_key_reused"


def test_create_replay_without_the_idempotency_record_answers_from_the_stored_order(raw_client, uid):
    """The Powertools record lost: the deterministic order id and createdByRequest recognise the retry."""
    account_id = f"acct-{uid}"
    seed_account(raw_client, "alice", account_id)
    identity = RequestIdentity(caller="alice", route="POST /orders", key=f"k-{uid}", fingerprint="fingerprint-1")

    first = orders.create_order("alice", account_id, LINES, identity=identity)
    second = orders.create_order("alice", account_id, LINES, identity=identity)

    assert second == first
    assert first["orderId"] == identity.derived_id("order")
    reused = RequestIdentity(caller="alice", route="POST /orders", key=f"k-{uid}", fingerprint="fingerprint-2")
    with pytest.raises(IdempotencyKeyReused):
        orders.create_order("alice", account_id, LINES[:1], identity=reused)


# --- versioned status changes and deletes ------------------------------------------------------


def test_forbidden_transition_is_409_invalid_transition(api, raw_client, uid):
    order = move(api, new_order(api, raw_client, uid), "PAID", "SHIPPED")
    before = stored_order(raw_client, order["orderId"])

    back = api.patch(order_path(order), {"status": "PENDING"}, if_match=order["version"])
    same = api.patch(order_path(order), {"status": "SHIPPED"}, if_match=order["version"])
    cancel = api.patch(order_path(order), {"status": "CANCELLED"}, if_match=order["version"])

    for reply, requested in ((back, "PENDING"), (same, "SHIPPED"), (cancel, "CANCELLED")):
        assert reply.status == 409
        assert reply.code == "invalid_transition"
        assert reply.json["currentStatus"] == "SHIPPED"
        assert reply.json["requestedStatus"] == requested
    assert stored_order(raw_client, order["orderId"]) == before


def test_absent_order_writes_are_404(api, uid):
    path = f"/orders/absent-{uid}"
    assert api.patch(path, {"status": "PAID"}, if_match=0).code == "order_not_found"
    assert api.delete(path, if_match=0).code == "order_not_found"


def test_delete_takes_pending_or_cancelled_orders_only(api, raw_client, uid):
    pending = new_order(api, raw_client, uid)
    cancelled = move(api, new_order(api, raw_client, f"c{uid}"), "CANCELLED")
    paid = move(api, new_order(api, raw_client, f"p{uid}"), "PAID")

    assert api.delete(order_path(pending), if_match=0).status == 204
    assert api.delete(order_path(cancelled), if_match=1).status == 204
    refused = api.delete(order_path(paid), if_match=1)

    assert is_tombstone(stored_order(raw_client, pending["orderId"]))
    assert is_tombstone(stored_order(raw_client, cancelled["orderId"]))
    assert (refused.status, refused.code) == (409, "invalid_transition")
    assert stored_order(raw_client, paid["orderId"])["status"] == "PAID"
    assert api.delete(order_path(pending), if_match=0).status == 404


# --- payment -----------------------------------------------------------------------------------


def test_pay_debits_the_ledger_writes_one_entry_and_marks_the_order_paid(api, raw_client, uid):
    order = new_order(api, raw_client, uid)
    seed_balance(raw_client, order["accountId"], "alice", 10_000)

    reply = api.post(f"{order_path(order)}/pay", idempotency_key=f"pay-{uid}")

    assert reply.status == 200, reply.json
    assert reply.json["status"] == "PAID"
    assert reply.json["version"] == 1
    assert reply.header("ETag") == '"1"'
    assert api.get(order_path(order)).json == reply.json
    settle_all()  # the table stream's settlement moves availableCentsAfter onto the entry
    balance = raw_item(raw_client, keys.balance_key(order["accountId"]))
    assert balance["clearedCents"] == balance["availableCents"] == 10_000 - LINES_TOTAL
    assert balance["pending"] == {}
    [entry] = ledger_entries(raw_client, order["accountId"])
    assert entry["type"] == "withdrawal"
    assert entry["amountCents"] == LINES_TOTAL
    assert entry["orderId"] == order["orderId"]
    assert entry["availableCentsAfter"] == 10_000 - LINES_TOTAL

    again = api.post(f"{order_path(order)}/pay", idempotency_key=f"pay-{uid}")
    assert (again.status, again.json) == (200, reply.json)
    assert raw_item(raw_client, keys.balance_key(order["accountId"]))["availableCents"] == 10_000 - LINES_TOTAL


def test_pay_replay_without_the_idempotency_record_returns_the_first_result_once(api, raw_client, uid):
    order = new_order(api, raw_client, uid)
    seed_balance(raw_client, order["accountId"], "alice", 10_000)
    identity = RequestIdentity(
        caller="alice", route="POST /orders/{orderId}/pay", key=f"pay-{uid}", fingerprint="fingerprint-1"
    )

    first = orders.pay_order(order["orderId"], "alice", identity)
    second = orders.pay_order(order["orderId"], "alice", identity)

    assert second == first
    assert first["status"] == "PAID"
    assert len(ledger_entries(raw_client, order["accountId"])) == 1
    assert raw_item(raw_client, keys.balance_key(order["accountId"]))["availableCents"] == 10_000 - LINES_TOTAL
    other = RequestIdentity(
        caller="alice", route="POST /orders/{orderId}/pay", key=f"pay-{uid}", fingerprint="fingerprint-2"
    )
    with pytest.raises(IdempotencyKeyReused):
        orders.pay_order(order["orderId"], "alice", other)


def test_pay_needs_an_idempotency_key(api, raw_client, uid):
    order = new_order(api, raw_client, uid)
    reply = api.post(f"{order_path(order)}/pay")
    assert (reply.status, reply.code) == (400, "idempotency_key_required")


def _refused_payment(api, ddb_client, order: dict, key: str):
    with counting_calls(ddb_client) as calls:
        reply = api.post(f"{order_path(order)}/pay", idempotency_key=key)
    return reply, calls


@pytest.mark.parametrize("cause", ["insufficient_funds", "ledger_not_found", "invalid_transition"])
def test_each_pay_refusal_makes_one_write_and_one_read_of_order_and_marker(api, raw_client, ddb_client, uid, cause):
    order = new_order(api, raw_client, uid)
    if cause == "insufficient_funds":
        seed_balance(raw_client, order["accountId"], "alice", LINES_TOTAL - 1)
    if cause == "invalid_transition":
        seed_balance(raw_client, order["accountId"], "alice", 10 * LINES_TOTAL)
        order = move(api, order, "CANCELLED")
    balance_before = raw_item(raw_client, keys.balance_key(order["accountId"]))
    order_before = stored_order(raw_client, order["orderId"])

    reply, calls = _refused_payment(api, ddb_client, order, f"pay-{uid}")

    assert reply.code == cause
    assert reply.status == (404 if cause == "ledger_not_found" else 409)
    assert calls.calls == ["BatchGetItem", "TransactWriteItems"]  # the order and the request's marker, together
    assert raw_item(raw_client, keys.balance_key(order["accountId"])) == balance_before
    assert stored_order(raw_client, order["orderId"]) == order_before
    assert ledger_entries(raw_client, order["accountId"]) == []
    if cause == "insufficient_funds":
        assert reply.json["availableCents"] == LINES_TOTAL - 1
        assert reply.json["requestedCents"] == LINES_TOTAL


# --- through HTTP --------------------------------------------------------------------------------


def http(url: str, method: str, body: Any = None, *, sub: str = "alice", headers: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    all_headers = {"Authorization": f"Bearer {make_token(sub)}", **(headers or {})}
    if data is not None:
        all_headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"null")


def test_conditional_requests_over_http(local_server, raw_client, uid):
    account_id = f"acct-{uid}"
    seed_account(raw_client, "alice", account_id)

    status, headers, _ = http(f"{local_server}/orders", "POST", {"accountId": account_id, "items": LINES})
    assert (status, headers["ETag"]) == (201, '"0"')
    url = f"{local_server}{headers['Location']}"

    status, headers, _ = http(url, "GET")
    assert (status, headers["ETag"]) == (200, '"0"')

    status, headers, paid = http(url, "PATCH", {"status": "CANCELLED"}, headers={"If-Match": headers["ETag"]})
    assert (status, headers["ETag"], paid["version"]) == (200, '"1"', 1)

    status, headers, problem = http(url, "PATCH", {"status": "CANCELLED"}, headers={"If-Match": '"0"'})
    assert status == 412
    assert headers["Content-Type"] == "application/problem+json"
    assert headers["ETag"] == '"1"'
    assert problem["current"] == paid

    status, _, problem = http(url, "DELETE")
    assert (status, problem["code"]) == (428, "precondition_required")
