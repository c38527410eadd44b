"""The write units of one money movement from its request to its settlement are the cost model's
(infra/cost_model.py `MOVEMENT_UNITS`, shown in docs/capacity.md and priced in docs/infra.md): counted from what the
code writes on DynamoDB Local, by DynamoDB's billing rules (bench/capacity.py), the unsettled index included.
"""

from __future__ import annotations

from bench.capacity import WriteUnits
from bench.counter import Tally, counting
from ddbguard.store.attribute_names import UNSETTLED_SHARD
from infra import cost_model
from tests.integration.test_unsettled_index import balance_item, open_ledger
from tests.support import settlement
from tests.support.ledger_requests import move


def test_a_movement_costs_the_models_write_units_from_request_to_settled(api, ddb_client, raw_client, uid) -> None:
    sub = f"units-{uid}"
    account_id = open_ledger(api, raw_client, sub)
    assert UNSETTLED_SHARD not in balance_item(raw_client, account_id)  # an idle ledger: nothing waits
    units = WriteUnits(raw_client)

    with counting(ddb_client) as request:
        assert move(api, account_id, "deposits", 2500, sub).status == 201
    request_units = units.of(request)  # the balance as the request left it
    starts_waiting = UNSETTLED_SHARD in balance_item(raw_client, account_id)
    with counting(ddb_client) as settling:
        assert settlement.settle_all() >= 1
    stops_waiting = starts_waiting and UNSETTLED_SHARD not in balance_item(raw_client, account_id)
    # Each settlement write on its own (the items as they are now, settled: what the billing rules read).
    writes = [call for call in settling.made if call.operation in {"TransactWriteItems", "UpdateItem"}]
    settled = [(call.operation, units.of(Tally(made=[call]))) for call in writes]

    (request_units_expected, put, markers, entry_and_balance, leaves_index, delete) = cost_model.MOVEMENT_UNITS.values()
    assert request.calls.count("TransactWriteItems") == 1 and request_units == request_units_expected
    assert (starts_waiting, stops_waiting) == (True, True)  # one index put, one index delete: 1 unit each
    assert (put, delete) == (1, 1)
    assert settled == [
        ("TransactWriteItems", markers),
        ("TransactWriteItems", entry_and_balance),
        ("UpdateItem", leaves_index),
    ]
    total = request_units + put + sum(units for _operation, units in settled) + delete
    assert total == cost_model.movement_write_units() == 15
