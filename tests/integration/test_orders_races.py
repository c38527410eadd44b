"""Orders under real concurrency: threads race the real handlers against DynamoDB Local,
and the invariants are checked afterwards by reading the table."""

from __future__ import annotations

import threading
import time
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
from tests.support.faults import blocked_writes
from tests.support.ledger_seed import seed_account, seed_balance
from tests.support.table_reads import raw_item


def test_lost_update_race_over_http_has_exactly_one_winner(local_server, api, raw_client, uid):
    """20 writers read the same ETag and PATCH with it: one wins, 19 get 412."""
    order = new_order(api, raw_client, uid)
    read = api.get(order_path(order))
    etag = read.header("ETag")
    url = f"{local_server}{order_path(order)}"
    targets = ["CANCELLED"] * 20  # the one move a PENDING order may make by PATCH
    start = threading.Barrier(len(targets))

    def patch(status: str):
        start.wait()
        return http(url, "PATCH", {"status": status}, headers={"If-Match": etag})

    with ThreadPoolExecutor(len(targets)) as pool:
        replies = list(pool.map(patch, targets))

    winners = [body for status, _, body in replies if status == 200]
    losers = [(headers, body) for status, headers, body in replies if status == 412]
    assert len(winners) == 1, [status for status, _, _ in replies]
    assert len(losers) == 19
    [winner] = winners
    assert winner["version"] == read.json["version"] + 1
    for headers, problem in losers:
        assert problem["code"] == "version_conflict"
        assert problem["current"]["status"] == winner["status"]
        assert problem["current"]["version"] == winner["version"]
        assert headers["ETag"] == f'"{winner["version"]}"'
    stored = stored_order(raw_client, order["orderId"])
    assert stored["version"] == read.json["version"] + 1
    assert stored["status"] == winner["status"]


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


def _pay_and_cancel_at_once(api, order: dict, cancel_delay_s: float):
    start = threading.Barrier(2)

    def pay():
        start.wait()
        return api.post(f"{order_path(order)}/pay", idempotency_key=f"pay-{order['orderId']}")

    def cancel():
        start.wait()
        time.sleep(cancel_delay_s)
        return api.patch(order_path(order), {"status": "CANCELLED"}, if_match=order["version"])

    with ThreadPoolExecutor(2) as pool:
        paying, cancelling = pool.submit(pay), pool.submit(cancel)
        return paying.result(), cancelling.result()


def _cancel_between_pay_read_and_write(api, ddb_client, order: dict):
    """Forced interleaving: the payment has read the order (PENDING); the cancel commits; then
    the payment's transaction is sent, with the version it read."""
    release = threading.Event()
    with ThreadPoolExecutor(1) as pool, blocked_writes(ddb_client, release) as payment_waiting:
        paying = pool.submit(api.post, f"{order_path(order)}/pay", idempotency_key=f"pay-{order['orderId']}")
        assert payment_waiting.wait(10)
        cancel_reply = api.patch(order_path(order), {"status": "CANCELLED"}, if_match=order["version"])
        release.set()
        return paying.result(timeout=120), cancel_reply


def _pay_then_stale_cancel(api, order: dict):
    pay_reply = api.post(f"{order_path(order)}/pay", idempotency_key=f"pay-{order['orderId']}")
    return pay_reply, api.patch(order_path(order), {"status": "CANCELLED"}, if_match=order["version"])


def test_payment_racing_a_cancel_is_all_or_nothing(api, ddb_client, raw_client, uid):
    account_id = f"acct-{uid}"
    seed_account(raw_client, "alice", account_id)
    funds = 1_000_000
    seed_balance(raw_client, account_id, "alice", funds)
    outcomes = []

    for round_ in range(22):
        order = new_order(api, raw_client, f"{uid}-{round_}", accountId=account_id)
        if round_ == 0:  # the two orders of events that must each be handled, forced
            pay_reply, cancel_reply = _cancel_between_pay_read_and_write(api, ddb_client, order)
        elif round_ == 1:
            pay_reply, cancel_reply = _pay_then_stale_cancel(api, order)
        else:
            # Free races, staggered: from "both at once" to "the cancel lands after the payment read".
            pay_reply, cancel_reply = _pay_and_cancel_at_once(api, order, cancel_delay_s=(round_ % 10) * 0.006)

        status = stored_order(raw_client, order["orderId"])["status"]
        outcomes.append(status)
        debited = [e for e in ledger_entries(raw_client, account_id) if e["orderId"] == order["orderId"]]
        if status == "PAID":
            assert pay_reply.status == 200
            assert (cancel_reply.status, cancel_reply.code) == (412, "version_conflict")
            assert [e["amountCents"] for e in debited] == [order["totalCents"]]
        else:
            assert status == "CANCELLED"
            assert cancel_reply.status == 200
            assert (pay_reply.status, pay_reply.code) == (409, "invalid_transition")
            assert debited == []

    paid_total = sum(e["amountCents"] for e in ledger_entries(raw_client, account_id))
    assert paid_total == outcomes.count("PAID") * LINES_TOTAL
    balance = raw_item(raw_client, keys.balance_key(account_id))
    assert balance["availableCents"] == balance["clearedCents"] == funds - paid_total
    assert outcomes[:2] == ["CANCELLED", "PAID"]


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
