"""Orders under real concurrency: threads race the real handlers against DynamoDB Local,
and the invariants are checked afterwards by reading the table."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from ddbguard.store import keys
from tests.integration.test_orders import (
    LINES_TOTAL,
    http,
    ledger_entries,
    new_order,
    order_path,
    stored_order,
)
from tests.support.ledger_seed import seed_account, seed_balance
from tests.support.table_reads import raw_item


def test_payments_of_ten_orders_against_funds_for_four(api, raw_client, uid):
    account_id = f"acct-{uid}"
    seed_account(raw_client, "alice", account_id)
    lines = [{"sku": "LAMP", "quantity": 1, "unitPriceCents": 2500}]
    placed = [new_order(api, raw_client, f"{uid}-{n}", lines=lines, accountId=account_id) for n in range(10)]
    seed_balance(raw_client, account_id, "alice", 4 * 2500)
    start = threading.Barrier(len(placed))
    racing = threading.Event()
    lowest_seen: list[int] = []

    def pay(order: dict):
        start.wait()
        return api.post(f"{order_path(order)}/pay", idempotency_key=f"pay-{order['orderId']}")

    def watch_balance() -> None:
        # The balance is sampled while the payments run: it must never be seen below zero.
        while racing.is_set():
            balance = raw_item(raw_client, keys.balance_key(account_id))
            lowest_seen.append(min(balance["availableCents"], balance["clearedCents"]))

    racing.set()
    watcher = threading.Thread(target=watch_balance)
    watcher.start()
    try:
        with ThreadPoolExecutor(len(placed)) as pool:
            replies = list(pool.map(pay, placed))
    finally:
        racing.clear()
        watcher.join()

    paid = [r for r in replies if r.status == 200]
    refused = [r for r in replies if r.status == 409]
    assert len(paid) == 4, [(r.status, r.code) for r in replies]
    assert len(refused) == 6
    assert {r.code for r in refused} == {"insufficient_funds"}
    assert lowest_seen and min(lowest_seen) >= 0
    balance = raw_item(raw_client, keys.balance_key(account_id))
    assert balance["availableCents"] == balance["clearedCents"] == 0
    entries = ledger_entries(raw_client, account_id)
    assert sum(e["amountCents"] for e in entries) == 4 * 2500
    assert sorted(e["orderId"] for e in entries) == sorted(r.json["orderId"] for r in paid)
    statuses = [stored_order(raw_client, o["orderId"])["status"] for o in placed]
    assert sorted(statuses) == ["PAID"] * 4 + ["PENDING"] * 6


def test_twenty_concurrent_patches_to_paid_are_all_refused_and_paying_still_works(local_server, api, raw_client, uid):
    """PAID is reached only by paying: 20 racing PATCH {"status": "PAID"} at the right version all get
    409 invalid_transition, the order and the ledger stay as they were, and the payment then succeeds."""
    order = new_order(api, raw_client, uid)
    seed_balance(raw_client, order["accountId"], "alice", LINES_TOTAL)
    before = stored_order(raw_client, order["orderId"])
    balance_before = raw_item(raw_client, keys.balance_key(order["accountId"]))
    url = f"{local_server}{order_path(order)}"
    start = threading.Barrier(20)

    def patch(_: int):
        start.wait()
        return http(url, "PATCH", {"status": "PAID"}, headers={"If-Match": '"0"'})

    with ThreadPoolExecutor(20) as pool:
        replies = list(pool.map(patch, range(20)))

    assert [(status, body["code"]) for status, _, body in replies] == [(409, "invalid_transition")] * 20
    for _, _, problem in replies:
        assert (problem["currentStatus"], problem["requestedStatus"]) == ("PENDING", "PAID")
    assert stored_order(raw_client, order["orderId"]) == before
    assert raw_item(raw_client, keys.balance_key(order["accountId"])) == balance_before
    assert ledger_entries(raw_client, order["accountId"]) == []

    paid = api.post(f"{order_path(order)}/pay", idempotency_key=f"pay-{uid}")
    assert (paid.status, paid.json["status"], paid.json["version"]) == (200, "PAID", 1)
    [entry] = ledger_entries(raw_client, order["accountId"])
    assert (entry["amountCents"], entry["orderId"]) == (LINES_TOTAL, order["orderId"])
