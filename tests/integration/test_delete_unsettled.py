"""An emptied account cannot be deleted while any of its movements is unsettled: 409 `ledger_unsettled` with
Retry-After, nothing written. Once the settlement ran, the same request (same key) deletes it; every entry keeps
its value and every replay of a movement answers its first response exactly.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

from tests.support import settlement
from tests.support.ledger_requests import move, new_key
from tests.support.ledger_seed import seed_account


def entries_of(raw_client, account_id: str) -> list[dict]:
    pages = raw_client.get_paginator("query").paginate(
        TableName=os.environ["TABLE_NAME"],
        KeyConditionExpression="#pk = :pk AND begins_with(#sk, :txn)",
        ExpressionAttributeNames={"#pk": "PK", "#sk": "SK"},
        ExpressionAttributeValues={":pk": {"S": f"ACCT#{account_id}"}, ":txn": {"S": "TXN#"}},
        ConsistentRead=True,
    )
    return [item for page in pages for item in page["Items"]]


def item_exists(raw_client, account_id: str, sort: str) -> bool:
    key = {"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": sort}}
    return "Item" in raw_client.get_item(TableName=os.environ["TABLE_NAME"], Key=key, ConsistentRead=True)


def emptied_ledger(api, raw_client, sub: str) -> tuple[str, list[tuple[str, str, dict]]]:
    """An account whose ledger took a deposit and a withdrawal of the same amount (unsettled): the movements as
    (route, key, first reply)."""
    account_id = seed_account(raw_client, sub)
    assert api.post(f"/accounts/{account_id}/ledger", sub=sub).status == 201
    movements = []
    for route in ("deposits", "withdrawals"):
        key = new_key()
        reply = move(api, account_id, route, 100, sub, key)
        assert reply.status == 201, reply.json
        movements.append((route, key, reply.json))
    return account_id, movements


def test_deleting_an_emptied_account_with_unsettled_movements_is_refused_until_they_settle(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id, movements = emptied_ledger(api, raw_client, sub)
    path, key = f"/accounts/{account_id}", new_key()

    refused = api.delete(path, if_match=0, sub=sub, idempotency_key=key)
    assert (refused.status, refused.code) == (409, "ledger_unsettled"), refused.json
    assert refused.header("Retry-After") is not None and refused.json["unsettledMovements"] == 2
    assert item_exists(raw_client, account_id, "PROFILE") and item_exists(raw_client, account_id, "BALANCE")

    settlement.settle_all()
    deleted = api.delete(path, if_match=0, sub=sub, idempotency_key=key)  # the same request, decided afresh
    assert deleted.status == 204, deleted.json
    assert not item_exists(raw_client, account_id, "BALANCE")
    assert all("availableCentsAfter" in entry for entry in entries_of(raw_client, account_id))
    for route, movement_key, first in movements:  # replays answer from the markers, exactly
        replay = move(api, account_id, route, 100, sub, movement_key)
        assert (replay.status, replay.json) == (201, first)


def test_racing_deletes_and_settlement_over_many_accounts_lose_no_value(api, raw_client, uid):
    """Deposit, withdraw, read, delete back to back on 8 accounts while the settlement runs beside them: every
    delete is refused until its ledger settled, then succeeds, and no entry is left without its value."""
    stop = threading.Event()
    drained = threading.Condition()

    def settle_continuously() -> None:
        while not stop.is_set():
            settlement.settle_all()
            with drained:
                drained.notify_all()

    def lifecycle(index: int) -> tuple[str, list[tuple[str, str, dict]], int]:
        sub = f"owner-{uid}-{index}"
        account_id, movements = emptied_ledger(api, raw_client, sub)
        assert api.get(f"/accounts/{account_id}/ledger", sub=sub).status == 200
        key, refusals = new_key(), 0
        while True:
            reply = api.delete(f"/accounts/{account_id}", if_match=0, sub=sub, idempotency_key=key)
            if reply.code != "ledger_unsettled":
                break
            refusals += 1
            with drained:  # wait for the settlement to go round, as Retry-After tells a client
                assert drained.wait(timeout=60), "the settlement stopped"
        assert reply.status == 204, reply.json
        return account_id, movements, refusals

    settler = threading.Thread(target=settle_continuously, daemon=True)
    settler.start()
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            outcomes = list(pool.map(lifecycle, range(8)))
    finally:
        stop.set()
        settler.join(timeout=60)
    settlement.settle_all()
    for account_id, movements, _refusals in outcomes:
        entries = entries_of(raw_client, account_id)
        assert len(entries) == 2 and all("availableCentsAfter" in entry for entry in entries), entries
        sub = f"owner-{uid}-{[o[0] for o in outcomes].index(account_id)}"
        for route, movement_key, first in movements:
            replay = move(api, account_id, route, 100, sub, movement_key)
            assert (replay.status, replay.json) == (201, first)
