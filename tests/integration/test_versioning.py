"""guards/versioning.py: optimistic locking, on accounts and orders.

Every change and delete names the version it read (`If-Match`): missing is 428, stale is 412 with the current
item taken from the failed write, every success bumps the version by one, and writers racing with one ETag
leave exactly one winner.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.test_accounts import sign_up
from tests.integration.test_orders import http, move, new_order, order_path, stored_order
from tests.support.ledger_seed import seed_balance
from tests.support.table_reads import lock_owner


@pytest.mark.parametrize("method", ["patch", "delete"])
def test_stale_if_match_is_412_with_current_and_etag(api, raw_client, uid, method):
    account = sign_up(api, f"stale@{uid}.io", f"stale_{uid}").json
    path = f"/accounts/{account['accountId']}"
    current = api.patch(path, {"displayName": "v1"}, if_match=0).json
    if method == "patch":
        stale = api.patch(path, {"email": f"elsewhere@{uid}.io"}, if_match=0)
    else:
        stale = api.delete(path, if_match=0)
    assert stale.status == 412
    assert stale.code == "version_conflict"
    assert stale.json["current"] == current
    assert stale.header("ETag") == '"1"'
    assert api.get(path).json == current
    assert lock_owner(raw_client, "EMAIL", f"stale@{uid}.io") == f"ACCT#{account['accountId']}"
    assert lock_owner(raw_client, "EMAIL", f"elsewhere@{uid}.io") is None


def test_if_match_that_can_never_match_is_412(api, uid):
    account = sign_up(api, f"star@{uid}.io", f"star_{uid}").json
    reply = api.patch(f"/accounts/{account['accountId']}", {"displayName": "x"}, if_match='W/"0"')
    assert reply.status == 412
    assert reply.json["current"]["version"] == 0


def test_missing_if_match_is_428(api, uid):
    account = sign_up(api, f"nomatch@{uid}.io", f"nomatch_{uid}").json
    path = f"/accounts/{account['accountId']}"
    assert api.patch(path, {"displayName": "x"}).status == 428
    reply = api.delete(path)
    assert reply.status == 428
    assert reply.code == "precondition_required"
    assert api.get(path).json == account


def test_patch_and_delete_without_if_match_are_428(api, raw_client, uid):
    order = new_order(api, raw_client, uid)

    patch = api.patch(order_path(order), {"status": "PAID"})
    delete = api.delete(order_path(order))

    assert (patch.status, patch.code) == (428, "precondition_required")
    assert (delete.status, delete.code) == (428, "precondition_required")
    assert stored_order(raw_client, order["orderId"])["version"] == 0


def test_stale_if_match_is_412_with_current_and_nothing_changes(api, raw_client, uid):
    order = move(api, new_order(api, raw_client, uid), "PAID")
    before = stored_order(raw_client, order["orderId"])

    patch = api.patch(order_path(order), {"status": "CANCELLED"}, if_match=0)
    delete = api.delete(order_path(order), if_match=0)

    for reply in (patch, delete):
        assert reply.status == 412
        assert reply.code == "version_conflict"
        assert reply.json["current"] == order
        assert reply.header("ETag") == '"1"'
    assert stored_order(raw_client, order["orderId"]) == before


def test_full_lifecycle_bumps_the_version_at_every_step(api, raw_client, uid):
    order = new_order(api, raw_client, uid)
    seed_balance(raw_client, order["accountId"], "alice", order["totalCents"])

    for expected_version, status in enumerate(("PAID", "SHIPPED", "DELIVERED"), start=1):
        if status == "PAID":
            reply = api.post(f"{order_path(order)}/pay", idempotency_key=f"life-{uid}")
        else:
            reply = api.patch(order_path(order), {"status": status}, if_match=order["version"])
        assert reply.status == 200
        assert reply.json["status"] == status
        assert reply.json["version"] == expected_version
        assert reply.header("ETag") == f'"{expected_version}"'
        assert reply.json["createdAt"] == order["createdAt"]
        order = reply.json

    assert api.get(order_path(order)).json == order
    assert stored_order(raw_client, order["orderId"])["version"] == 3


def test_concurrent_email_changes_with_one_if_match_exactly_one_wins(api, raw_client, uid):
    account = api.post("/accounts", {"email": f"start@{uid}.io", "username": f"changer_{uid}"}).json
    path = f"/accounts/{account['accountId']}"
    contenders = 16
    start = threading.Barrier(contenders)

    def change(i: int):
        start.wait()
        return api.patch(path, {"email": f"new{i}@{uid}.io"}, if_match=0)

    with ThreadPoolExecutor(max_workers=contenders) as pool:
        replies = list(pool.map(change, range(contenders)))

    statuses = [r.status for r in replies]
    assert statuses.count(200) == 1, statuses
    assert statuses.count(412) == contenders - 1, statuses
    winner = next(r.json for r in replies if r.status == 200)
    for reply in replies:
        if reply.status == 412:
            assert reply.json["current"]["version"] == 1
    final = api.get(path).json
    assert final == winner
    assert final["version"] == 1
    owner = f"ACCT#{account['accountId']}"
    assert lock_owner(raw_client, "EMAIL", final["email"]) == owner
    assert lock_owner(raw_client, "EMAIL", f"start@{uid}.io") is None
    for i in range(contenders):
        value = f"new{i}@{uid}.io"
        assert lock_owner(raw_client, "EMAIL", value) == (owner if value == final["email"] else None)


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
