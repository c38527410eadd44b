"""Replays say so (`Idempotent-Replayed: true`), and refusals are not cached under the key.

Decision (docs/decisions/022-refusals-are-not-cached-under-an-idempotency-key.md): a refused write
wrote nothing, its request marker included, so the same key decides afresh, e.g. once a missing
recipient ledger exists.
"""

from __future__ import annotations

from local.scenarios import balance, create_account, open_funded_ledger
from tests.integration.test_idempotency import _deposit, _marker, _withdraw

REPLAYED = "Idempotent-Replayed"


def _transfer(api, source, target, amount, key, sub="alice"):
    body = {"fromAccountId": source, "toAccountId": target, "amountCents": amount}
    return api.post("/transfers", body, sub=sub, idempotency_key=key)


def test_a_replay_from_the_request_marker_says_so(api, uid):
    account = open_funded_ledger(api, "alice", 1000)
    first = _withdraw(api, account, 300, f"w-{uid}")
    assert first.status == 201 and first.header(REPLAYED) is None
    again = _withdraw(api, account, 300, f"w-{uid}")
    assert again.status == 201 and again.json == first.json
    assert again.header(REPLAYED) == "true"


def test_a_replayed_account_create_says_so(api, uid):
    body = {"email": f"{uid}@replayed.example", "username": f"rp{uid}"}
    first = api.post("/accounts", body, idempotency_key=f"acct-{uid}")
    assert first.status == 201 and first.header(REPLAYED) is None
    again = api.post("/accounts", body, idempotency_key=f"acct-{uid}")
    assert (again.status, again.json) == (201, first.json)
    assert again.header(REPLAYED) == "true"


def test_a_refusal_is_not_replayed_it_is_decided_again(api, uid):
    account = open_funded_ledger(api, "alice", 100)
    refused = _withdraw(api, account, 500, f"w-{uid}")
    assert refused.code == "insufficient_funds" and refused.header(REPLAYED) is None
    again = _withdraw(api, account, 500, f"w-{uid}")
    assert again.json == refused.json and again.header(REPLAYED) is None


def test_a_transfer_to_a_missing_ledger_is_not_cached_and_succeeds_once_it_is_opened(api, uid):
    source = open_funded_ledger(api, "alice", 5000)
    target = create_account(api, "bob")
    refused = _transfer(api, source, target, 1200, f"t-{uid}")
    assert refused.status == 404 and refused.code == "ledger_not_found"
    assert refused.json["errors"][0]["field"] == "toAccountId"
    assert api.post(f"/accounts/{target}/ledger", sub="bob").status == 201
    moved = _transfer(api, source, target, 1200, f"t-{uid}")
    assert moved.status == 201 and moved.header(REPLAYED) is None
    again = _transfer(api, source, target, 1200, f"t-{uid}")
    assert (again.status, again.json, again.header(REPLAYED)) == (201, moved.json, "true")
    assert balance(api, "alice", source)["clearedCents"] == 3800
    assert balance(api, "bob", target)["clearedCents"] == 1200


def test_a_refusal_leaves_no_marker(api, raw_client, uid):
    refused = _deposit(api, f"nobody{uid}", 100, f"d-{uid}")
    assert refused.status == 404 and refused.code == "ledger_not_found"
    assert _marker(raw_client, "deposit", f"d-{uid}") is None


def test_malformed_ids_answer_what_an_absent_one_answers(api, uid):
    """The same code as for a well-formed id that names nothing, route by route."""
    for malformed, absent in (("bad.id", f"absent{uid}"),):
        assert api.get(f"/accounts/{malformed}").code == api.get(f"/accounts/{absent}").code == "account_not_found"
        assert api.get(f"/orders/{malformed}").code == api.get(f"/orders/{absent}").code == "order_not_found"
        for account in (malformed, absent):
            assert api.get(f"/accounts/{account}/ledger").code == "ledger_not_found"
            assert api.post(f"/accounts/{account}/ledger").code == "account_not_found"
            deposit = api.post(f"/accounts/{account}/ledger/deposits", {"amountCents": 1}, idempotency_key=f"d-{uid}")
            assert deposit.code == "ledger_not_found"
    reply = api.post("/accounts/abc/ledger/holds/bad.id/capture", idempotency_key="k-malformed-hold")
    assert (reply.status, reply.code) == (404, "hold_not_found")
    assert api.get("/nowhere").code == "not_found"


def test_paying_a_paid_order_says_it_is_already_paid(api, uid):
    account = open_funded_ledger(api, "alice", 10_000)
    lines = [{"sku": "BOOK-1", "quantity": 1, "unitPriceCents": 1000}]
    order = api.post("/orders", {"accountId": account, "items": lines, "orderId": f"o-{uid}"}).json
    assert api.post(f"/orders/o-{uid}/pay", idempotency_key=f"p1-{uid}").status == 200
    twice = api.post(f"/orders/o-{uid}/pay", idempotency_key=f"p2-{uid}")
    assert (twice.status, twice.code) == (409, "invalid_transition")
    assert twice.json["detail"] == f"Order {order['orderId']} is already paid."
    refunded = api.post(f"/orders/o-{uid}/refund", idempotency_key=f"r1-{uid}")
    assert refunded.status == 200
    again = api.post(f"/orders/o-{uid}/refund", idempotency_key=f"r2-{uid}")
    assert (again.status, again.json["detail"]) == (409, f"Order o-{uid} is already refunded.")
