"""Settlement cannot fall behind silently or for good: the sweeper, conflicts on a hot ledger, a ledger at the bound.

Each scenario ends with exact balances and an exact `availableCentsAfter` on every entry: sorted by that value,
every deposit's value is the previous one plus its amount, and each equals what its 201 told the client.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from ddbguard import limits
from ddbguard.guards import settlement as settlement_guard
from ddbguard.store import keys
from ddbguard.store.attribute_names import UNSETTLED_SHARD, UNSETTLED_SINCE
from ddbguard.store.ids import time_sortable_id
from local.sweep import invoke_sweeper
from tests.support import settlement
from tests.support.faults import random_transaction_conflicts
from tests.support.ledger_invariants import assert_ledger_invariants, read_ledger
from tests.support.ledger_requests import move, new_key
from tests.support.ledger_seed import open_funded_ledger, seed_account
from tests.support.table_reads import attribute_values


def assert_exact_afters(entries: list[dict], opening: int, told: dict[str, int] | None = None) -> None:
    """Deposits only: sorted by `availableCentsAfter`, each is the one before plus its amount, from `opening`."""
    chain = sorted(entries, key=lambda e: e["availableCentsAfter"])
    running = opening
    for entry in chain:
        assert entry["type"] == "deposit", entry
        running += entry["amountCents"]
        assert entry["availableCentsAfter"] == running, (entry, running)
    for entry_id, after in (told or {}).items():
        assert next(e for e in entries if e["entryId"] == entry_id)["availableCentsAfter"] == after


def settled_ledger(api, raw_client, sub: str) -> str:
    account_id = seed_account(raw_client, sub)
    assert api.post(f"/accounts/{account_id}/ledger", sub=sub).status == 201
    return account_id


def test_settlement_off_for_many_movements_then_the_sweeper_settles_them(api, raw_client, uid, monkeypatch):
    sub = f"owner-{uid}"
    # Smaller settlement transactions than DynamoDB allows, so the bound's worth of values takes three of them.
    monkeypatch.setattr(settlement_guard, "ENTRIES_PER_TRANSACTION", 25)
    account_id = settled_ledger(api, raw_client, sub)
    settlement.settle_all()
    movements = limits.MAX_PENDING_ENTRIES  # as many as the bound lets wait
    assert movements > 2 * settlement_guard.ENTRIES_PER_TRANSACTION  # three settlement transactions
    told = {}
    for index in range(movements):  # the stream's settlement is off: nothing drains it meanwhile
        reply = move(api, account_id, "deposits", index + 1, sub)
        assert reply.status == 201, reply.json
        told[reply.json["entryId"]] = reply.json["availableCentsAfter"]
    assert len(read_ledger(raw_client, account_id).balance["pending"]) == movements

    young = invoke_sweeper(min_age_s=3600)  # younger than the bound: left to the stream
    assert young["balancesSeen"] >= 1 and young["oldestUnsettledAgeSeconds"] < 3600
    assert len(read_ledger(raw_client, account_id).balance["pending"]) == movements

    swept = invoke_sweeper(min_age_s=0)
    assert swept["entriesSettled"] >= movements and swept["failed"] == 0
    snapshot = read_ledger(raw_client, account_id)
    assert snapshot.balance["pending"] == {}
    assert all("availableCentsAfter" in e for e in snapshot.entries)
    total = movements * (movements + 1) // 2
    assert (snapshot.cleared, snapshot.available, len(snapshot.entries)) == (total, total, movements)
    assert_exact_afters(snapshot.entries, 0, told)

    settlement.settle_all()  # the stream catches up late: nothing left to do, nothing changes
    again = assert_ledger_invariants(raw_client, account_id)
    assert again.entries == snapshot.entries and again.balance == snapshot.balance


def test_conflicts_on_30_percent_of_settlement_writes_while_a_hot_ledger_takes_deposits(
    api, ddb_client, raw_client, uid
):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=1_000)
    settlement.settle_all()
    stop = threading.Event()
    drains: list[int] = []
    errors: list[str] = []

    drained = threading.Condition()
    behind: list[int] = []

    def settle_continuously() -> None:
        while not stop.is_set():
            try:
                drains.append(settlement.settle_all())
            except Exception as error:  # a dead settler must fail the test, not go quiet
                errors.append(repr(error))
            with drained:
                drained.notify_all()
            time.sleep(0.01)

    def deposit(index: int) -> tuple[str, int]:
        key = new_key()
        reply = move(api, account_id, "deposits", 1 + index % 97, sub, key)
        while reply.code == "settlement_behind":  # the ledger is at its bound: as a client does, retry later
            behind.append(index)
            with drained:
                assert drained.wait(timeout=60), "the settlement stopped draining"
            reply = move(api, account_id, "deposits", 1 + index % 97, sub, key)
        assert reply.status == 201, reply.json
        return reply.json["entryId"], reply.json["availableCentsAfter"]

    with random_transaction_conflicts(ddb_client, rate=0.3, function="settle_entries") as conflicts:
        settler = threading.Thread(target=settle_continuously, daemon=True)
        settler.start()
        with ThreadPoolExecutor(max_workers=8) as pool:
            told = dict(pool.map(deposit, range(300)))
        stop.set()
        settler.join(timeout=60)
    assert errors == []
    assert conflicts.injected > 0 and conflicts.passed > 0, (conflicts.injected, conflicts.passed)
    print(f"\nhot ledger under settlement conflicts: {len(behind)} of 300 deposits waited for the bound")
    snapshot = assert_ledger_invariants(raw_client, account_id)  # the last drain runs without faults
    expected = 1_000 + sum(1 + index % 97 for index in range(300))
    assert (snapshot.cleared, snapshot.available, len(snapshot.entries)) == (expected, expected, 301)
    assert_exact_afters(snapshot.entries, 0, told)


def _ledger_at_the_bound(raw_client, account_id: str, count: int) -> None:
    """`count` one-cent deposits whose settlement never ran: entries without their value, all in `pending`."""
    table = os.environ["TABLE_NAME"]
    start_ms = int(time.time() * 1000) - 10 * count
    ids = [time_sortable_id(start_ms + 10 * index) for index in range(count)]
    entries = [
        attribute_values(
            {
                "PK": f"ACCT#{account_id}",
                "SK": f"TXN#{entry_id}",
                "entryId": entry_id,
                "accountId": account_id,
                "type": "deposit",
                "amountCents": 1,
                "createdAt": "2026-01-01T00:00:00.000Z",
            }
        )
        for entry_id in ids
    ]
    for start in range(0, count, 25):
        batch = [{"PutRequest": {"Item": item}} for item in entries[start : start + 25]]
        while batch:
            batch = raw_client.batch_write_item(RequestItems={table: batch}).get("UnprocessedItems", {}).get(table)
    raw_client.update_item(
        TableName=table,
        Key={"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": "BALANCE"}},
        # As the movements would have left it: `pending` full and the balance in the unsettled-balances index.
        UpdateExpression="SET #c = :n, #a = :n, #p = :p, #shard = :shard, #since = :since",
        ExpressionAttributeNames={
            "#c": "clearedCents",
            "#a": "availableCents",
            "#p": "pending",
            "#shard": UNSETTLED_SHARD,
            "#since": UNSETTLED_SINCE,
        },
        ExpressionAttributeValues=attribute_values(
            {
                ":n": count,
                ":p": {entry_id: index + 1 for index, entry_id in enumerate(ids)},
                ":shard": keys.unsettled_shard(account_id),
                ":since": ids[0],
            }
        ),
    )


def test_a_ledger_at_the_declared_bound_refuses_movements_until_the_sweeper_settles_it(api, raw_client, uid):
    sub, payer = f"owner-{uid}", f"payer-{uid}"
    account_id = settled_ledger(api, raw_client, sub)
    source = open_funded_ledger(api, raw_client, payer, deposit=500)
    settlement.settle_all()
    _ledger_at_the_bound(raw_client, account_id, limits.MAX_PENDING_ENTRIES)
    before = read_ledger(raw_client, account_id)

    key = new_key()
    refusals = [
        move(api, account_id, "deposits", 7, sub, key),
        move(api, account_id, "withdrawals", 7, sub),
        move(api, account_id, "holds", 7, sub),
        api.post(
            "/transfers",
            {"fromAccountId": source, "toAccountId": account_id, "amountCents": 7},
            sub=payer,
            idempotency_key=new_key(),
        ),
    ]
    for reply in refusals:
        assert (reply.status, reply.code) == (503, "settlement_behind"), reply.json
        assert reply.header("Retry-After") is not None
    after_refusals = read_ledger(raw_client, account_id)
    assert after_refusals.balance == before.balance and len(after_refusals.entries) == len(before.entries)
    assert read_ledger(raw_client, source).available == 500  # the transfer's other side moved nothing either

    swept = invoke_sweeper(min_age_s=0)
    assert swept["entriesSettled"] >= limits.MAX_PENDING_ENTRIES
    retried = move(api, account_id, "deposits", 7, sub, key)  # the same key: decided afresh, now accepted
    assert retried.status == 201, retried.json
    snapshot = assert_ledger_invariants(raw_client, account_id)
    total = limits.MAX_PENDING_ENTRIES + 7
    assert (snapshot.cleared, snapshot.available, len(snapshot.entries)) == (total, total, total - 6)
    assert_exact_afters(snapshot.entries, 0, {retried.json["entryId"]: total})


@pytest.mark.parametrize("bound", [3])
def test_a_lowered_bound_is_read_at_call_time(api, raw_client, uid, monkeypatch, bound):
    sub = f"owner-{uid}"
    account_id = settled_ledger(api, raw_client, sub)
    settlement.settle_all()
    monkeypatch.setattr(limits, "MAX_PENDING_ENTRIES", bound)
    assert [move(api, account_id, "deposits", 5, sub).status for _ in range(bound)] == [201] * bound
    refused = move(api, account_id, "deposits", 5, sub, key=f"late-{uuid.uuid4()}")
    assert (refused.status, refused.code) == (503, "settlement_behind")
    settlement.settle_all()  # the stream catches up: the ledger takes movements again
    assert move(api, account_id, "deposits", 5, sub).status == 201
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.available, len(snapshot.entries)) == (5 * (bound + 1), bound + 1)
    assert_exact_afters(snapshot.entries, 0)
