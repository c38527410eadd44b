"""guards/uniqueness.py: one lock item per unique value, written in the owner's own transaction.

Through the account routes (the first entity with unique fields): taken values are refused from the
transaction's cancellation reasons, a change swaps its lock, a delete frees it, a lock of another owner is
never released, and fifty racing sign-ups for one address leave exactly one winner and no orphan lock.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

from tests.integration.test_accounts import _key, sign_up, stored_account
from tests.support.table_reads import is_tombstone, lock_owner, lock_pk

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
    email_locks = locks_with_prefix(raw_client, lock_pk("EMAIL", f"ada@lovelace-{uid}"))
    assert [lock["PK"]["S"] for lock in email_locks] == [lock_pk("EMAIL", f"{email}")]
    assert email_locks[0]["owner"]["S"] == f"ACCT#{winner['accountId']}"
    for i, username in enumerate(usernames):
        expected = f"ACCT#{winner['accountId']}" if i == winner_index else None
        assert lock_owner(raw_client, "HANDLE", username) == expected, username
    handle_locks = locks_with_prefix(raw_client, "UNIQ#HANDLE#racer")
    uid_reading = lock_pk("HANDLE", f"_{uid}").removeprefix("UNIQ#HANDLE#")  # a digit 1 reads as l, 0 as o
    assert [lock["PK"]["S"] for lock in handle_locks if lock["PK"]["S"].endswith(uid_reading)] == [
        lock_pk("HANDLE", f"{usernames[winner_index]}")
    ]


def test_both_fields_taken_is_one_409_listing_both(api, raw_client, uid):
    assert sign_up(api, f"taken@{uid}.io", f"taken_{uid}").status == 201
    clash = sign_up(api, f"TAKEN@{uid}.io", f"Taken_{uid}", sub="bob")
    assert clash.status == 409
    assert clash.code == "unique_violation"
    assert clash.header("Content-Type") == "application/problem+json"
    assert sorted((e["field"], e["code"]) for e in clash.json["errors"]) == [("email", "taken"), ("username", "taken")]


def test_one_field_taken_names_only_that_field_and_leaves_no_lock(api, raw_client, uid):
    first = sign_up(api, f"first@{uid}.io", f"handle_{uid}")
    assert first.status == 201
    clash = sign_up(api, f"second@{uid}.io", f"HANDLE_{uid}", sub="bob")
    assert clash.status == 409
    assert [e["field"] for e in clash.json["errors"]] == ["username"]
    # The loser's free email was not locked: the transaction wrote nothing.
    assert lock_owner(raw_client, "EMAIL", f"second@{uid}.io") is None
    assert lock_owner(raw_client, "HANDLE", f"handle_{uid}") == f"ACCT#{first.json['accountId']}"


def test_email_change_swaps_the_lock_and_frees_the_old_value(api, raw_client, uid):
    account = sign_up(api, f"old@{uid}.io", f"swapper_{uid}").json
    owner = f"ACCT#{account['accountId']}"
    changed = api.patch(f"/accounts/{account['accountId']}", {"email": f"New@{uid}.io"}, if_match=0)
    assert changed.status == 200, changed.json
    assert changed.json["email"] == f"new@{uid}.io"
    assert changed.json["version"] == 1
    assert lock_owner(raw_client, "EMAIL", f"new@{uid}.io") == owner
    assert lock_owner(raw_client, "EMAIL", f"old@{uid}.io") is None
    assert lock_owner(raw_client, "HANDLE", f"swapper_{uid}") == owner
    # Someone else takes the old address at once.
    other = sign_up(api, f"OLD@{uid}.io", f"other_{uid}", sub="bob")
    assert other.status == 201
    assert lock_owner(raw_client, "EMAIL", f"old@{uid}.io") == f"ACCT#{other.json['accountId']}"


def test_change_to_a_taken_email_is_409_and_changes_nothing(api, raw_client, uid):
    mine = sign_up(api, f"mine@{uid}.io", f"mine_{uid}").json
    sign_up(api, f"theirs@{uid}.io", f"theirs_{uid}", sub="bob")
    refused = api.patch(
        f"/accounts/{mine['accountId']}", {"email": f"Theirs@{uid}.io", "username": f"fresh_{uid}"}, if_match=0
    )
    assert refused.status == 409
    assert [e["field"] for e in refused.json["errors"]] == ["email"]
    after = api.get(f"/accounts/{mine['accountId']}").json
    assert after == mine  # version unchanged, values unchanged
    assert lock_owner(raw_client, "EMAIL", f"mine@{uid}.io") == f"ACCT#{mine['accountId']}"
    assert lock_owner(raw_client, "HANDLE", f"mine_{uid}") == f"ACCT#{mine['accountId']}"
    assert lock_owner(raw_client, "HANDLE", f"fresh_{uid}") is None


def test_change_to_the_same_normalised_value_keeps_the_lock(api, raw_client, uid):
    account = sign_up(api, f"same@{uid}.io", f"same_{uid}").json
    changed = api.patch(
        f"/accounts/{account['accountId']}", {"email": f" SAME@{uid}.IO", "username": f"Same_{uid}"}, if_match=0
    )
    assert changed.status == 200, changed.json
    assert changed.json["version"] == 1
    assert changed.json["email"] == f"same@{uid}.io"
    assert lock_owner(raw_client, "EMAIL", f"same@{uid}.io") == f"ACCT#{account['accountId']}"
    assert lock_owner(raw_client, "HANDLE", f"same_{uid}") == f"ACCT#{account['accountId']}"


def test_email_and_username_change_together(api, raw_client, uid):
    account = sign_up(api, f"both@{uid}.io", f"both_{uid}").json
    owner = f"ACCT#{account['accountId']}"
    changed = api.patch(
        f"/accounts/{account['accountId']}",
        {"email": f"both2@{uid}.io", "username": f"both2_{uid}", "displayName": "Both"},
        if_match=0,
    )
    assert changed.status == 200
    assert (changed.json["email"], changed.json["username"], changed.json["displayName"]) == (
        f"both2@{uid}.io",
        f"both2_{uid}",
        "Both",
    )
    assert lock_owner(raw_client, "EMAIL", f"both2@{uid}.io") == owner
    assert lock_owner(raw_client, "HANDLE", f"both2_{uid}") == owner
    assert lock_owner(raw_client, "EMAIL", f"both@{uid}.io") is None
    assert lock_owner(raw_client, "HANDLE", f"both_{uid}") is None


def test_delete_removes_account_and_both_locks_and_values_are_reusable(api, raw_client, uid):
    account = sign_up(api, f"gone@{uid}.io", f"gone_{uid}").json
    assert api.delete(f"/accounts/{account['accountId']}", if_match=0).status == 204
    assert is_tombstone(stored_account(raw_client, account["accountId"]))
    assert lock_owner(raw_client, "EMAIL", f"gone@{uid}.io") is None
    assert lock_owner(raw_client, "HANDLE", f"gone_{uid}") is None
    reuse = sign_up(api, f"gone@{uid}.io", f"gone_{uid}", sub="bob")
    assert reuse.status == 201


def test_a_lock_held_by_another_account_is_never_released(api, raw_client, uid):
    # A broken table (the lock audit reports it): ada's email lock is owned by someone else.
    # Ada's changes and delete go on, and the other owner's lock is left alone.
    ada = sign_up(api, f"clash@{uid}.io", f"clash_{uid}").json
    table = os.environ["TABLE_NAME"]
    raw_client.put_item(
        TableName=table,
        Item={**_key(lock_pk("EMAIL", f"clash@{uid}.io"), "LOCK"), "owner": {"S": f"ACCT#someone-else-{uid}"}},
    )
    moved = api.patch(f"/accounts/{ada['accountId']}", {"email": f"moved@{uid}.io"}, if_match=0)
    assert moved.status == 200, moved.json
    assert lock_owner(raw_client, "EMAIL", f"clash@{uid}.io") == f"ACCT#someone-else-{uid}"
    assert lock_owner(raw_client, "EMAIL", f"moved@{uid}.io") == f"ACCT#{ada['accountId']}"
    raw_client.put_item(
        TableName=table,
        Item={**_key(lock_pk("HANDLE", f"clash_{uid}"), "LOCK"), "owner": {"S": f"ACCT#someone-else-{uid}"}},
    )
    assert api.delete(f"/accounts/{ada['accountId']}", if_match=1).status == 204
    assert lock_owner(raw_client, "HANDLE", f"clash_{uid}") == f"ACCT#someone-else-{uid}"
    assert lock_owner(raw_client, "EMAIL", f"moved@{uid}.io") is None
    assert is_tombstone(stored_account(raw_client, ada["accountId"]))
