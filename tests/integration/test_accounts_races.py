"""Real threads racing the real handlers against DynamoDB Local; invariants checked in the table afterwards."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.table_reads import lock_owner

pytestmark = pytest.mark.slow

SIGNUPS = 50


def locks_with_prefix(raw_client, prefix: str) -> list[dict]:
    items, start = [], None
    while True:
        page = raw_client.scan(
            TableName=os.environ["TABLE_NAME"],
            FilterExpression="begins_with(#pk, :prefix)",
            ExpressionAttributeNames={"#pk": "PK"},
            ExpressionAttributeValues={":prefix": {"S": prefix}},
            ConsistentRead=True,
            **({"ExclusiveStartKey": start} if start else {}),
        )
        items += page["Items"]
        start = page.get("LastEvaluatedKey")
        if not start:
            return items


def _spellings(uid: str) -> list[str]:
    """Mixed-case and Unicode variants that all normalise to ada@lovelace-<uid>.io."""
    fullwidth_ada = "\uff41\uff44\uff41"  # fullwidth small "ada"
    fullwidth_upper = "\uff21\uff24\uff21"  # fullwidth capital "ADA"
    domain = f"lovelace-{uid}.io"
    return [
        f"Ada@{domain}",
        f"ada@{domain}",
        f"{fullwidth_ada}@{domain}",
        f"{fullwidth_upper}@{domain.upper()}",
        f"  ADA@{domain} ",
        f"aDa@Lovelace-{uid}.IO",
    ]


def test_fifty_threads_one_email_exactly_one_winner_and_no_orphan_lock(api, raw_client, uid):
    spellings = _spellings(uid)
    usernames = [f"racer{i}_{uid}" for i in range(SIGNUPS)]
    start = threading.Barrier(SIGNUPS)

    def sign_up(i: int):
        start.wait()
        body = {"email": spellings[i % len(spellings)], "username": usernames[i]}
        return api.post("/accounts", body, sub=f"racer-{i}-{uid}")

    with ThreadPoolExecutor(max_workers=SIGNUPS) as pool:
        replies = list(pool.map(sign_up, range(SIGNUPS)))

    statuses = sorted(r.status for r in replies)
    assert statuses.count(201) == 1, statuses
    assert statuses.count(409) == SIGNUPS - 1, statuses
    winner_index = next(i for i, r in enumerate(replies) if r.status == 201)
    winner = replies[winner_index].json
    for reply in replies:
        if reply.status == 409:
            assert reply.code == "unique_violation"
            assert [e["field"] for e in reply.json["errors"]] == ["email"]

    email = f"ada@lovelace-{uid}.io"
    assert winner["email"] == email
    email_locks = locks_with_prefix(raw_client, f"UNIQ#EMAIL#ada@lovelace-{uid}")
    assert [lock["PK"]["S"] for lock in email_locks] == [f"UNIQ#EMAIL#{email}"]
    assert email_locks[0]["owner"]["S"] == f"ACCT#{winner['accountId']}"
    for i, username in enumerate(usernames):
        expected = f"ACCT#{winner['accountId']}" if i == winner_index else None
        assert lock_owner(raw_client, "HANDLE", username) == expected, username
    handle_locks = locks_with_prefix(raw_client, "UNIQ#HANDLE#racer")
    assert [lock["PK"]["S"] for lock in handle_locks if lock["PK"]["S"].endswith(uid)] == [
        f"UNIQ#HANDLE#{usernames[winner_index]}"
    ]


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
