"""guards/ownership.py in the writes: another caller's resource answers as an absent one and nothing changes.

The owner check is part of each write's own condition (tests/unit/test_ownership.py tests the condition alone), so
a foreign caller's writes racing the owner's own never land.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from ddbguard.store import keys
from tests.integration.test_accounts import sign_up
from tests.integration.test_orders import new_order, order_path, stored_order
from tests.support.ledger_invariants import assert_ledger_invariants
from tests.support.ledger_requests import move
from tests.support.ledger_seed import open_funded_ledger
from tests.support.table_reads import lock_owner, raw_item

RACERS = 10


def test_someone_elses_account_answers_404_and_nothing_changes(api, raw_client, uid):
    account = sign_up(api, f"private@{uid}.io", f"private_{uid}").json
    path = f"/accounts/{account['accountId']}"
    for reply in (
        api.get(path, sub="mallory"),
        api.patch(path, {"email": f"stolen@{uid}.io"}, sub="mallory", if_match=0),
        api.patch(path, {"displayName": "pwned"}, sub="mallory", if_match=0),
        api.delete(path, sub="mallory", if_match=0),
    ):
        assert reply.status == 404
        assert reply.code == "account_not_found"
    missing = api.get(f"/accounts/does-not-exist-{uid}", sub="mallory")
    assert missing.status == 404
    assert missing.code == "account_not_found"
    assert api.get(path).json == account
    assert lock_owner(raw_client, "EMAIL", f"private@{uid}.io") == f"ACCT#{account['accountId']}"
    assert lock_owner(raw_client, "EMAIL", f"stolen@{uid}.io") is None


def test_admin_reads_any_account_but_cannot_change_it(api, uid):
    account = sign_up(api, f"watched@{uid}.io", f"watched_{uid}").json
    path = f"/accounts/{account['accountId']}"
    seen = api.get(path, sub="root", groups=["admin"])
    assert seen.status == 200
    assert seen.json == account
    assert api.patch(path, {"displayName": "admin"}, sub="root", groups=["admin"], if_match=0).status == 404
    assert api.get(path).json == account


def test_someone_elses_ledger_answers_like_a_missing_one(api, raw_client, uid):
    account_id = open_funded_ledger(api, raw_client, f"owner-{uid}", deposit=1_000)
    intruder = f"intruder-{uid}"

    replies = [
        move(api, account_id, "withdrawals", 10, intruder),
        move(api, account_id, "deposits", 10, intruder),
        move(api, account_id, "holds", 10, intruder),
        api.get(f"/accounts/{account_id}/ledger", sub=intruder),
    ]

    assert [(r.status, r.code) for r in replies] == [(404, "ledger_not_found")] * 4
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, snapshot.version) == (1_000, 1)
    # An admin may read any account, not its ledger (docs/api.md).
    admin = api.get(f"/accounts/{account_id}/ledger", sub=f"admin-{uid}", groups=["admin"])
    assert (admin.status, admin.code) == (404, "ledger_not_found")


def test_someone_elses_order_is_404_on_every_write_and_unchanged(api, raw_client, uid):
    order = new_order(api, raw_client, uid)
    before = stored_order(raw_client, order["orderId"])

    patch = api.patch(order_path(order), {"status": "CANCELLED"}, sub="mallory", if_match=0)
    delete = api.delete(order_path(order), sub="mallory", if_match=0)
    pay = api.post(f"{order_path(order)}/pay", sub="mallory", idempotency_key=f"p-{uid}")

    for reply in (patch, delete, pay):
        assert reply.status == 404
        assert reply.code == "order_not_found"
    assert stored_order(raw_client, order["orderId"]) == before


def test_a_strangers_writes_racing_the_owners_deposits_never_land(api, raw_client, uid):
    owner, stranger = f"owner-{uid}", f"mallory-{uid}"
    account_id = open_funded_ledger(api, raw_client, owner, deposit=1_000)
    account_before = raw_item(raw_client, keys.account_key(account_id))
    path = f"/accounts/{account_id}"
    foreign_writes = [
        lambda: move(api, account_id, "withdrawals", 1, stranger),
        lambda: move(api, account_id, "holds", 1, stranger),
        lambda: api.patch(path, {"displayName": "pwned"}, sub=stranger, if_match=0),
        lambda: api.delete(path, sub=stranger, if_match=0),
    ]
    start = threading.Barrier(2 * RACERS)

    def owner_deposits(_: int):
        start.wait()
        return move(api, account_id, "deposits", 10, owner)

    def stranger_writes(i: int):
        start.wait()
        return foreign_writes[i % len(foreign_writes)]()

    with ThreadPoolExecutor(max_workers=2 * RACERS) as pool:
        deposits = [pool.submit(owner_deposits, i) for i in range(RACERS)]
        foreign = [pool.submit(stranger_writes, i) for i in range(RACERS)]
        deposit_replies = [f.result() for f in deposits]
        foreign_replies = [f.result() for f in foreign]

    assert [r.status for r in deposit_replies] == [201] * RACERS
    assert {r.status for r in foreign_replies} == {404}, [(r.status, r.code) for r in foreign_replies]
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, snapshot.held) == (1_000 + 10 * RACERS, 0)
    assert sorted({e["type"] for e in snapshot.entries}) == ["deposit"] and snapshot.holds == []
    assert raw_item(raw_client, keys.account_key(account_id)) == account_before
