"""The sparse unsettled-balances index: a balance is in it exactly while its `pending` is non-empty, and the
sweeper reads nothing else (no Scan), so what a sweep reads does not grow with the table.

Races use real threads against DynamoDB Local: movements landing while the settlement empties the balance must
never leave a waiting balance out of the index (the sweeper would never see it).
"""

from __future__ import annotations

import os

from boto3.dynamodb.conditions import Key

from ddbguard.store import keys
from ddbguard.store.attribute_names import UNSETTLED_INDEX, UNSETTLED_SHARD, UNSETTLED_SINCE
from ddbguard.store.expressions import key_condition_params
from local.sweep import invoke_sweeper
from tests.support import settlement
from tests.support.call_counter import counting_calls
from tests.support.ledger_invariants import assert_ledger_invariants
from tests.support.ledger_requests import move
from tests.support.ledger_seed import seed_account


def balance_item(raw_client, account_id: str) -> dict:
    item = raw_client.get_item(
        TableName=os.environ["TABLE_NAME"],
        Key={"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": "BALANCE"}},
        ConsistentRead=True,
    ).get("Item", {})
    return item


def indexed_accounts(raw_client, account_id: str) -> set[str]:
    """Accounts the index lists in this account's shard (read as the sweeper reads it)."""
    request = {
        "TableName": os.environ["TABLE_NAME"],
        "IndexName": UNSETTLED_INDEX,
        **key_condition_params(Key(UNSETTLED_SHARD).eq(keys.unsettled_shard(account_id))),
    }
    found: set[str] = set()
    for page in raw_client.get_paginator("query").paginate(**request):
        found |= {item["PK"]["S"].removeprefix("ACCT#") for item in page["Items"]}
    return found


def open_ledger(api, raw_client, sub: str) -> str:
    account_id = seed_account(raw_client, sub)
    assert api.post(f"/accounts/{account_id}/ledger", sub=sub).status == 201
    settlement.settle_all()
    return account_id


def assert_indexed_exactly_while_waiting(raw_client, account_id: str) -> None:
    balance = balance_item(raw_client, account_id)
    pending = balance.get("pending", {}).get("M", {})
    if pending:
        assert balance[UNSETTLED_SHARD]["S"] == keys.unsettled_shard(account_id), balance
        # The index's sort key never claims a younger wait than the oldest value has had.
        assert balance[UNSETTLED_SINCE]["S"] <= min(pending), (balance[UNSETTLED_SINCE], min(pending))
        assert account_id in indexed_accounts(raw_client, account_id)
    else:
        assert UNSETTLED_SINCE not in balance and UNSETTLED_SHARD not in balance, balance
        assert account_id not in indexed_accounts(raw_client, account_id)


def test_a_balance_joins_the_index_with_its_first_unsettled_value_and_leaves_when_settled(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub)
    assert_indexed_exactly_while_waiting(raw_client, account_id)

    first = move(api, account_id, "deposits", 10, sub)
    assert first.status == 201, first.json
    assert balance_item(raw_client, account_id)[UNSETTLED_SINCE]["S"] == first.json["entryId"]
    second = move(api, account_id, "deposits", 20, sub)
    assert second.status == 201, second.json
    # A balance that already waits keeps its index keys: the second movement wrote nothing to the index.
    assert balance_item(raw_client, account_id)[UNSETTLED_SINCE]["S"] == first.json["entryId"]
    assert_indexed_exactly_while_waiting(raw_client, account_id)

    settlement.settle_all()
    assert_indexed_exactly_while_waiting(raw_client, account_id)
    assert_ledger_invariants(raw_client, account_id)


def test_a_sweep_queries_each_index_shard_and_never_scans_however_many_items_the_table_holds(
    api, raw_client, ddb_client, uid
):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub)
    assert move(api, account_id, "deposits", 10, sub).status == 201  # one balance waits
    with counting_calls(ddb_client) as before:
        first = invoke_sweeper(min_age_s=3600)
    # Grow the table by 2,000 items of another kind: nothing the sweeper reads changes.
    table = os.environ["TABLE_NAME"]
    for start in range(0, 2000, 25):
        batch = [
            {"PutRequest": {"Item": {"PK": {"S": f"FILLER#{uid}"}, "SK": {"S": f"{n:05d}"}}}}
            for n in range(start, start + 25)
        ]
        while batch:
            batch = raw_client.batch_write_item(RequestItems={table: batch}).get("UnprocessedItems", {}).get(table)
    with counting_calls(ddb_client) as after:
        second = invoke_sweeper(min_age_s=3600)
    assert first["balancesSeen"] == second["balancesSeen"] >= 1
    assert "Scan" not in before.calls + after.calls
    assert before.count("Query") == after.count("Query") >= keys.UNSETTLED_SHARDS
    assert set(after.calls) <= {"Query"}  # every balance waiting is younger than an hour: nothing to settle
