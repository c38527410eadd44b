"""Races on the remaining guards: a hold settles once, and an account with money cannot vanish."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

from ddbguard.store import keys
from tests.support.ledger_seed import open_funded_ledger
from tests.support.table_reads import raw_collection, raw_item


def _entries(raw_client, account_id: str) -> list[dict]:
    return raw_collection(raw_client, keys.account_partition(account_id), keys.ENTRY_PREFIX)


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


def test_delete_racing_deposits_never_loses_money(api, raw_client):
    for _ in range(5):
        account = open_funded_ledger(api, raw_client, "alice", 0)

        def deposit(_: int, account: str = account):
            return api.post(
                f"/accounts/{account}/ledger/deposits", {"amountCents": 10}, idempotency_key=str(uuid.uuid4())
            )

        with ThreadPoolExecutor(max_workers=9) as pool:
            deposits = [pool.submit(deposit, i) for i in range(8)]
            deleting = pool.submit(api.delete, f"/accounts/{account}", if_match=0)
            replies = [d.result() for d in deposits]
            deleted = deleting.result()
        committed = [r for r in replies if r.status == 201]
        assert {r.status for r in replies} <= {201, 404}
        balance = raw_item(raw_client, keys.balance_key(account))
        if deleted.status == 204:
            # The account went first: no deposit can have landed, and no ghost balance item remains.
            assert committed == [] and balance is None
            assert raw_item(raw_client, keys.account_key(account)) is None
        else:
            assert (deleted.status, deleted.code) == (409, "balance_not_zero")
            assert balance["clearedCents"] == 10 * len(committed) and committed
        assert sum(e["amountCents"] for e in _entries(raw_client, account) if e["type"] == "deposit") == 10 * len(
            committed
        )
