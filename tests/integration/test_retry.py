"""guards/retry.py: re-read, re-decide, re-write, for a payment that lost a version race.

A payment whose order changed between its read and its write retries from a fresh read (bounded, then 503
busy with nothing written), and a payment racing a cancel ends all or nothing.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ddbguard.store import codec, keys
from ddbguard.store.client import table_name
from tests.integration.test_orders import LINES_TOTAL, ledger_entries, new_order, order_path, stored_order
from tests.support.call_counter import counting_calls
from tests.support.faults import blocked_writes, hooked
from tests.support.ledger_seed import seed_account, seed_balance
from tests.support.table_reads import raw_item


def _bump_order_version_before_each_write(ddb_client, raw_client, order_id: str, times: int):
    """A concurrent writer that changes the order (status kept PENDING) just before our write lands."""
    bumped: list[int] = []

    def bump(**_: object) -> None:
        if len(bumped) < times:
            bumped.append(1)
            raw_client.update_item(
                TableName=table_name(),
                Key=codec.to_item(keys.order_key("alice", order_id)),
                UpdateExpression="SET #v = #v + :one",
                ExpressionAttributeNames={"#v": "version"},
                ExpressionAttributeValues={":one": {"N": "1"}},
            )

    return bump


def test_pay_rereads_and_retries_when_it_lost_a_version_race(api, raw_client, ddb_client, uid):
    order = new_order(api, raw_client, uid)
    seed_balance(raw_client, order["accountId"], "alice", 10_000)
    bump = _bump_order_version_before_each_write(ddb_client, raw_client, order["orderId"], times=2)
    with (
        hooked(ddb_client, "before-call.dynamodb.TransactWriteItems", bump),
        counting_calls(ddb_client) as calls,
    ):
        reply = api.post(f"{order_path(order)}/pay", idempotency_key=f"pay-{uid}")

    assert reply.status == 200, reply.json
    assert reply.json["version"] == 3  # two foreign bumps, then ours
    assert calls.count("TransactWriteItems") == 3
    assert stored_order(raw_client, order["orderId"])["status"] == "PAID"
    assert len(ledger_entries(raw_client, order["accountId"])) == 1
    assert raw_item(raw_client, keys.balance_key(order["accountId"]))["availableCents"] == 10_000 - LINES_TOTAL


def test_pay_that_keeps_losing_the_race_answers_503_and_writes_nothing(api, raw_client, ddb_client, uid):
    order = new_order(api, raw_client, uid)
    seed_balance(raw_client, order["accountId"], "alice", 10_000)
    bump = _bump_order_version_before_each_write(ddb_client, raw_client, order["orderId"], times=100)
    with hooked(ddb_client, "before-call.dynamodb.TransactWriteItems", bump):
        reply = api.post(f"{order_path(order)}/pay", idempotency_key=f"pay-{uid}")

    assert (reply.status, reply.code) == (503, "busy")
    assert reply.header("Retry-After")
    assert stored_order(raw_client, order["orderId"])["status"] == "PENDING"
    assert ledger_entries(raw_client, order["accountId"]) == []
    assert raw_item(raw_client, keys.balance_key(order["accountId"]))["availableCents"] == 10_000


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
