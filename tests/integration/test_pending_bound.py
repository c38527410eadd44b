"""A ledger whose settlement is stalled: every movement costs about what the first one did, up to the bound of
unsettled values, and past it is refused with 503 `settlement_behind` before anything is written.

Counted, not timed: each movement's write units by DynamoDB's billing rules (bench/capacity.py, from the items
the request wrote), and the balance item's size as DynamoDB counts it. The stream's settlement is off (tests drain
it only when they ask), so `pending` grows by one value per movement.
"""

from __future__ import annotations

import os

from bench.capacity import WriteUnits, item_size
from bench.counter import counting
from ddbguard import limits
from tests.support import settlement
from tests.support.ledger_invariants import assert_ledger_invariants, read_ledger
from tests.support.ledger_requests import move, new_key
from tests.support.ledger_seed import seed_account

# The largest amount a movement may carry: every number in `pending` as long as it gets.
AMOUNT = limits.MAX_CENTS


def raw_balance(raw_client, account_id: str) -> dict:
    return raw_client.get_item(
        TableName=os.environ["TABLE_NAME"],
        Key={"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": "BALANCE"}},
        ConsistentRead=True,
    )["Item"]


def test_movements_cost_flat_up_to_the_bound_then_are_refused_before_any_write(api, raw_client, ddb_client, uid):
    sub = f"owner-{uid}"
    account_id = seed_account(raw_client, sub)
    assert api.post(f"/accounts/{account_id}/ledger", sub=sub).status == 201
    settlement.settle_all()
    units = WriteUnits(raw_client)
    costs = []
    for _ in range(limits.MAX_PENDING_ENTRIES):
        with counting(ddb_client) as tally:
            reply = move(api, account_id, "deposits", AMOUNT, sub)
        assert reply.status == 201, reply.json
        costs.append(units.of(tally))
    balance = raw_balance(raw_client, account_id)
    assert len(balance["pending"]["M"]) == limits.MAX_PENDING_ENTRIES
    # The balance at the bound, with the longest numbers a movement can leave, stays within its byte bound.
    assert item_size(balance) <= limits.MAX_BALANCE_BYTES, item_size(balance)
    # A movement's write units stay flat, well within 2x, from the first unsettled value to the last.
    assert costs[-1] < 2 * costs[0], (costs[0], costs[-1])
    assert max(costs) == costs[-1]  # they grow with the balance, never jump

    before = read_ledger(raw_client, account_id)
    key = new_key()
    with counting(ddb_client) as refused_tally:
        refused = move(api, account_id, "deposits", AMOUNT, sub, key)
    assert (refused.status, refused.code) == (503, "settlement_behind"), refused.json
    assert refused.header("Retry-After") is not None
    assert refused_tally.calls == ["TransactWriteItems"]  # decided by the write's own condition, no read
    after = read_ledger(raw_client, account_id)
    assert after.balance == before.balance and after.entries == before.entries

    settlement.settle_all()  # the settlement catches up: the same request is now accepted
    accepted = move(api, account_id, "deposits", AMOUNT, sub, key)
    assert accepted.status == 201, accepted.json
    assert accepted.json["availableCentsAfter"] == AMOUNT * (limits.MAX_PENDING_ENTRIES + 1)
    settlement.settle_all()
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert len(snapshot.entries) == limits.MAX_PENDING_ENTRIES + 1
    assert sorted(e["availableCentsAfter"] for e in snapshot.entries) == [
        AMOUNT * n for n in range(1, limits.MAX_PENDING_ENTRIES + 2)
    ]
