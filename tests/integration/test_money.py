"""guards/money.py: guarded balance changes, checked inside the write.

A debit needs the ledger and the funds, refused from the failed write's own item in one call; a hold settles
once; a hundred withdrawals racing for fifty withdrawals' worth never overdraw.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from ddbguard.store import keys
from tests.support.call_counter import counting_calls
from tests.support.ledger_invariants import assert_ledger_invariants, balance_of, read_ledger
from tests.support.ledger_requests import move
from tests.support.ledger_seed import open_funded_ledger, seed_account
from tests.support.table_reads import raw_collection, raw_item


def _entries(raw_client, account_id: str) -> list[dict]:
    return raw_collection(raw_client, keys.account_partition(account_id), keys.ENTRY_PREFIX)


def test_withdraw_from_a_never_opened_ledger_is_one_call_and_404(api, raw_client, ddb_client, uid):
    sub = f"owner-{uid}"
    account_id = seed_account(raw_client, sub)

    with counting_calls(ddb_client) as calls:
        reply = move(api, account_id, "withdrawals", 100, sub)

    assert (reply.status, reply.code) == (404, "ledger_not_found")
    assert calls.calls == ["TransactWriteItems"]
    assert read_ledger(raw_client, account_id).balance is None


def test_insufficient_funds_is_one_call_and_says_what_is_available(api, raw_client, ddb_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=4_999)

    with counting_calls(ddb_client) as calls:
        reply = move(api, account_id, "withdrawals", 5_000, sub)

    assert (reply.status, reply.code) == (409, "insufficient_funds")
    assert reply.header("Content-Type") == "application/problem+json"
    assert (reply.json["availableCents"], reply.json["requestedCents"]) == (4_999, 5_000)
    assert calls.calls == ["TransactWriteItems"]
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, snapshot.version, len(snapshot.entries)) == (4_999, 1, 1)


def test_withdrawing_exactly_the_balance_leaves_zero(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=100_000_000_000)

    reply = move(api, account_id, "withdrawals", 100_000_000_000, sub)

    assert (reply.status, reply.json["availableCentsAfter"]) == (201, 0)
    assert balance_of(assert_ledger_invariants(raw_client, account_id)) == (0, 0, 0)
    assert move(api, account_id, "withdrawals", 1, sub).json["availableCents"] == 0


def test_twenty_threads_capture_or_release_one_hold_exactly_one_settles(api, raw_client):
    account = open_funded_ledger(api, raw_client, "alice", 1000)
    hold = api.post(f"/accounts/{account}/ledger/holds", {"amountCents": 400}, idempotency_key=str(uuid.uuid4()))
    assert hold.status == 201
    hold_path = f"/accounts/{account}/ledger/holds/{hold.json['holdId']}"

    def settle(i: int):
        action = "capture" if i % 2 else "release"
        return action, api.post(f"{hold_path}/{action}", idempotency_key=str(uuid.uuid4()))

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(settle, range(20)))
    winners = [(action, reply) for action, reply in results if reply.status == 200]
    losers = [reply for _, reply in results if reply.status != 200]
    assert len(winners) == 1 and len(losers) == 19
    assert {(r.status, r.code) for r in losers} == {(409, "hold_settled")}
    action = winners[0][0]
    balance = raw_item(raw_client, keys.balance_key(account))
    expected_cleared = 600 if action == "capture" else 1000
    assert (balance["clearedCents"], balance["holdCents"], balance["availableCents"]) == (
        expected_cleared,
        0,
        expected_cleared,
    )
    types = sorted(e["type"] for e in _entries(raw_client, account))
    assert types == sorted(["deposit", "hold", action])
    assert raw_item(raw_client, keys.hold_key(account, hold.json["holdId"]))["status"] == (
        "CAPTURED" if action == "capture" else "RELEASED"
    )


def test_hundred_withdrawals_race_for_fifty_withdrawals_worth(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=5_000)
    start = threading.Barrier(100)

    def withdraw(_: int):
        start.wait()
        return api.post(
            f"/accounts/{account_id}/ledger/withdrawals",
            {"amountCents": 100},
            sub=sub,
            idempotency_key=str(uuid.uuid4()),
        )

    began = time.monotonic()
    with ThreadPoolExecutor(max_workers=100) as pool:
        replies = list(pool.map(withdraw, range(100)))
    elapsed = time.monotonic() - began

    outcomes = sorted((r.status, r.code) for r in replies)
    assert outcomes == [(201, None)] * 50 + [(409, "insufficient_funds")] * 50
    refused = [r.json for r in replies if r.status == 409]
    assert all(body["requestedCents"] == 100 and 0 <= body["availableCents"] < 100 for body in refused)
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, snapshot.available, len(snapshot.entries_of("withdrawal"))) == (0, 0, 50)
    # Each success saw its own exact balance after the write: 4900, 4800, ..., 0, once each.
    afters = sorted(r.json["availableCentsAfter"] for r in replies if r.status == 201)
    assert afters == list(range(0, 5_000, 100))
    print(f"\n100 racing withdrawals: {elapsed:.2f} s")
