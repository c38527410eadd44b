"""guards/settlement.py: a balance's waiting values moved onto their entries, idempotently.

Settlement runs late, twice or concurrently without changing anything already right: racing settlers of one
balance write each value once and exactly, movements racing a settlement never leave a waiting balance out of
the unsettled index, and a settlement that leaves values waiting moves the index age up to the oldest of them.
The stack's settlement resources are tested in tests/infra/test_settlement_stack.py.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

from ddbguard.guards.settlement import settle_balance
from ddbguard.store import keys
from ddbguard.store.attribute_names import UNSETTLED_SHARD, UNSETTLED_SINCE
from tests.integration.test_unsettled_index import assert_indexed_exactly_while_waiting, balance_item, open_ledger
from tests.support.ledger_invariants import assert_ledger_invariants
from tests.support.ledger_requests import move
from tests.support.table_reads import attribute_values, raw_collection, raw_item

SETTLERS = 8


def test_racing_settlers_of_one_balance_write_each_value_once_and_exactly(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub)
    replies = [move(api, account_id, "deposits", 7 * (n + 1), sub) for n in range(12)]
    assert [reply.status for reply in replies] == [201] * 12
    told = {reply.json["entryId"]: reply.json["availableCentsAfter"] for reply in replies}
    assert set(raw_item(raw_client, keys.balance_key(account_id))["pending"]) == set(told)
    start = threading.Barrier(SETTLERS)

    def settle(_: int) -> int:
        start.wait()
        return settle_balance(account_id).entries

    with ThreadPoolExecutor(max_workers=SETTLERS) as pool:
        settled = list(pool.map(settle, range(SETTLERS)))

    # Every settler found some or none of the values; together they moved each one at least once.
    assert max(settled) <= len(told) and sum(settled) >= len(told)
    balance = raw_item(raw_client, keys.balance_key(account_id))
    assert not balance.get("pending")
    assert UNSETTLED_SINCE not in balance and UNSETTLED_SHARD not in balance
    entries = raw_collection(raw_client, keys.account_partition(account_id), keys.ENTRY_PREFIX)
    assert {entry["entryId"]: entry["availableCentsAfter"] for entry in entries} == told
    # A settler that runs again later finds nothing to do and changes nothing.
    assert settle_balance(account_id).entries == 0
    assert raw_collection(raw_client, keys.account_partition(account_id), keys.ENTRY_PREFIX) == entries
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert snapshot.available == sum(7 * (n + 1) for n in range(12))


def test_a_settlement_that_leaves_values_waiting_moves_the_index_age_up_to_the_oldest_of_them(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub)
    replies = [move(api, account_id, "deposits", 5, sub) for _ in range(3)]
    assert [reply.status for reply in replies] == [201] * 3
    table = os.environ["TABLE_NAME"]
    # A value that arrived after the settlement read `pending`: put back as the movement would have left it.
    late = replies[-1].json["entryId"]
    settle_balance(account_id)
    raw_client.update_item(
        TableName=table,
        Key={"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": "BALANCE"}},
        UpdateExpression="SET #p.#e = :v, #shard = if_not_exists(#shard, :shard), #since = if_not_exists(#since, :e)",
        ExpressionAttributeNames={"#p": "pending", "#e": late, "#shard": UNSETTLED_SHARD, "#since": UNSETTLED_SINCE},
        ExpressionAttributeValues=attribute_values(
            {":v": 15, ":shard": keys.unsettled_shard(account_id), ":e": replies[0].json["entryId"]}
        ),
    )
    assert balance_item(raw_client, account_id)[UNSETTLED_SINCE]["S"] == replies[0].json["entryId"]
    settled = settle_balance(account_id)
    assert settled.entries == 1
    assert_indexed_exactly_while_waiting(raw_client, account_id)


def test_movements_racing_the_settlement_never_leave_a_waiting_balance_out_of_the_index(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub)
    done = threading.Event()
    checks = 0

    def settle_until_done() -> None:
        nonlocal checks
        while not done.is_set():
            settle_balance(account_id)
            checks += 1

    def deposit(_: int) -> int:
        return move(api, account_id, "deposits", 1, sub).status

    with ThreadPoolExecutor(max_workers=6) as pool:
        settlers = [pool.submit(settle_until_done) for _ in range(2)]
        statuses = list(ThreadPoolExecutor(max_workers=4).map(deposit, range(80)))
        done.set()
        for settler in settlers:
            settler.result()
    assert statuses == [201] * 80 and checks > 0
    # Whatever interleaving happened: waiting values are indexed, an empty `pending` is not.
    assert_indexed_exactly_while_waiting(raw_client, account_id)
    settle_balance(account_id)
    assert_indexed_exactly_while_waiting(raw_client, account_id)
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.available, len(snapshot.entries)) == (80, 80)
