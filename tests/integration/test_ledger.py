"""The ledger through the real handlers on DynamoDB Local: guards in the write, refusals from ALL_OLD."""

from __future__ import annotations

import base64
import json
import os
import uuid

import pytest

from ddbguard import holds
from ddbguard import ledger as ledger_domain
from ddbguard.errors import AlreadyExists, IdempotencyKeyReused
from ddbguard.request_identity import RequestIdentity
from tests.support.call_counter import counting_calls, idempotency_record_call
from tests.support.faults import dropped_responses, transaction_conflicts
from tests.support.ledger_invariants import assert_ledger_invariants, read_ledger
from tests.support.ledger_seed import seed_account


def new_key() -> str:
    return str(uuid.uuid4())


def open_ledger(api, raw_client, sub: str, deposit: int = 0) -> str:
    account_id = seed_account(raw_client, sub)
    assert api.post(f"/accounts/{account_id}/ledger", sub=sub).status == 201
    if deposit:
        assert move(api, account_id, "deposits", deposit, sub).status == 201
    return account_id


def move(api, account_id: str, route: str, amount, sub: str, key: str | None = None):
    return api.post(
        f"/accounts/{account_id}/ledger/{route}", {"amountCents": amount}, sub=sub, idempotency_key=key or new_key()
    )


def settle(api, account_id: str, hold_id: str, action: str, sub: str):
    return api.post(f"/accounts/{account_id}/ledger/holds/{hold_id}/{action}", sub=sub, idempotency_key=new_key())


def balance_of(snapshot) -> tuple[int, int, int]:
    return snapshot.cleared, snapshot.held, snapshot.available


# --- opening ---------------------------------------------------------------------------------


def test_open_ledger_creates_an_empty_balance_at_version_zero(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = seed_account(raw_client, sub)

    reply = api.post(f"/accounts/{account_id}/ledger", sub=sub)

    assert reply.status == 201
    body = reply.json
    assert {k: body[k] for k in ("accountId", "clearedCents", "holdCents", "availableCents", "version")} == {
        "accountId": account_id,
        "clearedCents": 0,
        "holdCents": 0,
        "availableCents": 0,
        "version": 0,
    }
    assert not {"PK", "SK", "ownerSub", "pending"} & set(body)
    assert reply.header("ETag") == '"0"'
    assert reply.header("Location") == f"/accounts/{account_id}/ledger"
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert snapshot.balance["ownerSub"] == sub and snapshot.entries == []


def test_open_ledger_of_an_unknown_account_is_404_and_writes_nothing(api, raw_client, uid):
    account_id = str(uuid.uuid4())

    reply = api.post(f"/accounts/{account_id}/ledger", sub=f"owner-{uid}")

    assert (reply.status, reply.code) == (404, "account_not_found")
    assert reply.header("Content-Type") == "application/problem+json"
    assert read_ledger(raw_client, account_id).balance is None


def test_open_ledger_of_someone_elses_account_answers_like_absent(api, raw_client, uid):
    account_id = seed_account(raw_client, f"owner-{uid}")

    reply = api.post(f"/accounts/{account_id}/ledger", sub=f"intruder-{uid}")

    assert (reply.status, reply.code) == (404, "account_not_found")
    assert read_ledger(raw_client, account_id).balance is None


def test_open_ledger_twice_is_409_already_exists(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=700)

    reply = api.post(f"/accounts/{account_id}/ledger", sub=sub)

    assert (reply.status, reply.code) == (409, "already_exists")
    assert read_ledger(raw_client, account_id).cleared == 700


def test_open_ledger_retry_after_a_lost_idempotency_record_answers_the_first_balance(raw_client, uid):
    sub = f"owner-{uid}"
    account_id = seed_account(raw_client, sub)
    identity = RequestIdentity(sub, "POST /accounts/{accountId}/ledger", new_key(), "fp")

    first = ledger_domain.open_ledger(account_id, sub, identity)
    again = ledger_domain.open_ledger(account_id, sub, identity)

    assert again == first
    other = RequestIdentity(sub, identity.route, new_key(), "fp")
    with pytest.raises(AlreadyExists):
        ledger_domain.open_ledger(account_id, sub, other)


# --- money in, money out, holds ----------------------------------------------------------------


def test_deposit_withdraw_hold_capture_release_keep_every_balance_right(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub)

    deposit = move(api, account_id, "deposits", 10_000, sub)
    assert deposit.status == 201
    assert {k: deposit.json[k] for k in ("type", "amountCents", "availableCentsAfter", "accountId")} == {
        "type": "deposit",
        "amountCents": 10_000,
        "availableCentsAfter": 10_000,
        "accountId": account_id,
    }
    assert balance_of(assert_ledger_invariants(raw_client, account_id)) == (10_000, 0, 10_000)

    withdrawal = move(api, account_id, "withdrawals", 2_500, sub)
    assert withdrawal.status == 201
    assert (withdrawal.json["type"], withdrawal.json["availableCentsAfter"]) == ("withdrawal", 7_500)
    assert balance_of(assert_ledger_invariants(raw_client, account_id)) == (7_500, 0, 7_500)

    hold = move(api, account_id, "holds", 3_000, sub)
    assert hold.status == 201
    hold_id = hold.json["holdId"]
    assert (hold.json["type"], hold.json["holdStatus"], hold.json["availableCentsAfter"]) == ("hold", "OPEN", 4_500)
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert balance_of(snapshot) == (7_500, 3_000, 4_500)
    assert [(h["holdId"], h["status"], h["amountCents"]) for h in snapshot.holds] == [(hold_id, "OPEN", 3_000)]

    capture = settle(api, account_id, hold_id, "capture", sub)
    assert capture.status == 200
    assert {k: capture.json[k] for k in ("type", "amountCents", "holdId", "holdStatus", "availableCentsAfter")} == {
        "type": "capture",
        "amountCents": 3_000,
        "holdId": hold_id,
        "holdStatus": "CAPTURED",
        "availableCentsAfter": 4_500,
    }
    assert balance_of(assert_ledger_invariants(raw_client, account_id)) == (4_500, 0, 4_500)

    second_hold = move(api, account_id, "holds", 4_500, sub)  # exactly everything available
    assert second_hold.status == 201
    assert balance_of(assert_ledger_invariants(raw_client, account_id)) == (4_500, 4_500, 0)
    assert move(api, account_id, "withdrawals", 1, sub).code == "insufficient_funds"

    release = settle(api, account_id, second_hold.json["holdId"], "release", sub)
    assert release.status == 200
    assert (release.json["type"], release.json["holdStatus"], release.json["availableCentsAfter"]) == (
        "release",
        "RELEASED",
        4_500,
    )
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert balance_of(snapshot) == (4_500, 0, 4_500)
    assert [e["type"] for e in snapshot.entries] == ["deposit", "withdrawal", "hold", "capture", "hold", "release"]
    assert snapshot.version == 6
    assert all(e["availableCentsAfter"] is not None for e in snapshot.entries)
    assert snapshot.balance["pending"] == {}


def test_a_hold_settles_once(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=5_000)
    captured_id = move(api, account_id, "holds", 2_000, sub).json["holdId"]
    released_id = move(api, account_id, "holds", 1_000, sub).json["holdId"]
    assert settle(api, account_id, captured_id, "capture", sub).status == 200
    assert settle(api, account_id, released_id, "release", sub).status == 200
    before = assert_ledger_invariants(raw_client, account_id)

    refusals = [
        settle(api, account_id, captured_id, "capture", sub),
        settle(api, account_id, captured_id, "release", sub),
        settle(api, account_id, released_id, "release", sub),
        settle(api, account_id, released_id, "capture", sub),
    ]

    assert [(r.status, r.code) for r in refusals] == [(409, "hold_settled")] * 4
    assert [r.json["holdStatus"] for r in refusals] == ["CAPTURED", "CAPTURED", "RELEASED", "RELEASED"]
    after = assert_ledger_invariants(raw_client, account_id)
    assert (after.version, len(after.entries)) == (before.version, len(before.entries))
    assert balance_of(after) == (3_000, 0, 3_000)


def test_unknown_or_foreign_holds_are_404_hold_not_found(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=5_000)
    hold_id = move(api, account_id, "holds", 2_000, sub).json["holdId"]
    other_account = open_ledger(api, raw_client, sub)

    unknown = settle(api, account_id, str(uuid.uuid4()), "capture", sub)
    foreign_caller = settle(api, account_id, hold_id, "capture", f"intruder-{uid}")
    wrong_account = settle(api, other_account, hold_id, "release", sub)

    assert [(r.status, r.code) for r in (unknown, foreign_caller, wrong_account)] == [(404, "hold_not_found")] * 3
    assert balance_of(assert_ledger_invariants(raw_client, account_id)) == (5_000, 2_000, 3_000)


def test_a_hold_needs_the_funds(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=100)

    reply = move(api, account_id, "holds", 101, sub)

    assert (reply.status, reply.code) == (409, "insufficient_funds")
    assert (reply.json["availableCents"], reply.json["requestedCents"]) == (100, 101)
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.holds, len(snapshot.entries)) == ([], 1)


def test_a_repeated_request_moves_money_once(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=1_000)
    key = new_key()

    first = move(api, account_id, "withdrawals", 300, sub, key=key)
    again = move(api, account_id, "withdrawals", 300, sub, key=key)
    reused = move(api, account_id, "withdrawals", 301, sub, key=key)

    assert (first.status, again.status) == (201, 201) and again.json == first.json
    assert (reused.status, reused.code) == (422, "idempotency_key_reused")
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, len(snapshot.entries_of("withdrawal"))) == (700, 1)


def test_the_request_marker_replays_even_without_the_idempotency_record(api, raw_client, uid):
    """The write itself is idempotent: calling the layer twice with one identity writes one entry."""
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=1_000)
    route = "POST /accounts/{accountId}/ledger/holds"
    identity = RequestIdentity(sub, route, new_key(), "fingerprint-a")

    first = holds.place_hold(account_id, sub, 400, identity)
    again = holds.place_hold(account_id, sub, 400, identity)

    assert again == first
    with pytest.raises(IdempotencyKeyReused):
        holds.place_hold(account_id, sub, 400, RequestIdentity(sub, route, identity.key, "fingerprint-b"))
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (len(snapshot.holds), len(snapshot.entries_of("hold")), snapshot.held) == (1, 1, 400)


def test_transient_conflicts_are_retried_not_refused(api, raw_client, ddb_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=1_000)

    with transaction_conflicts(ddb_client, times=2) as conflicts:
        retried = move(api, account_id, "withdrawals", 100, sub)
    with transaction_conflicts(ddb_client, times=100):
        busy = move(api, account_id, "withdrawals", 100, sub)

    assert (retried.status, conflicts.injected) == (201, 2)
    assert (busy.status, busy.code) == (503, "busy") and busy.header("Retry-After")
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, len(snapshot.entries_of("withdrawal"))) == (900, 1)


def test_a_lost_transaction_response_does_not_move_money_twice(api, raw_client, ddb_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=1_000)

    with dropped_responses(ddb_client, times=1) as dropped:
        reply = move(api, account_id, "withdrawals", 250, sub)

    assert (dropped.injected, reply.status, reply.json["availableCentsAfter"]) == (1, 201, 750)
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, len(snapshot.entries_of("withdrawal"))) == (750, 1)


# --- refusals cost one call -----------------------------------------------------------------


def test_withdraw_from_a_never_opened_ledger_is_one_call_and_404(api, raw_client, ddb_client, uid):
    sub = f"owner-{uid}"
    account_id = seed_account(raw_client, sub)

    with counting_calls(ddb_client, ignore=idempotency_record_call) as calls:
        reply = move(api, account_id, "withdrawals", 100, sub)

    assert (reply.status, reply.code) == (404, "ledger_not_found")
    assert calls.calls == ["TransactWriteItems"]
    assert read_ledger(raw_client, account_id).balance is None


def test_insufficient_funds_is_one_call_and_says_what_is_available(api, raw_client, ddb_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=4_999)

    with counting_calls(ddb_client, ignore=idempotency_record_call) as calls:
        reply = move(api, account_id, "withdrawals", 5_000, sub)

    assert (reply.status, reply.code) == (409, "insufficient_funds")
    assert reply.header("Content-Type") == "application/problem+json"
    assert (reply.json["availableCents"], reply.json["requestedCents"]) == (4_999, 5_000)
    assert calls.calls == ["TransactWriteItems"]
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, snapshot.version, len(snapshot.entries)) == (4_999, 1, 1)


def test_someone_elses_ledger_answers_like_a_missing_one(api, raw_client, uid):
    account_id = open_ledger(api, raw_client, f"owner-{uid}", deposit=1_000)
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
    # An admin may read any account, not its ledger (contract section 2; docs/api.md).
    admin = api.get(f"/accounts/{account_id}/ledger", sub=f"admin-{uid}", groups=["admin"])
    assert (admin.status, admin.code) == (404, "ledger_not_found")


# --- amounts --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw_body",
    [
        b'{"amountCents": 0}',
        b'{"amountCents": -1}',
        b'{"amountCents": 1.5}',
        b'{"amountCents": "100"}',
        b'{"amountCents": true}',
        b'{"amountCents": null}',
        b'{"amountCents": 1e400}',
        b'{"amountCents": 123456789012345678901234567890123456789}',
        b'{"amountCents": 100000000001}',
        b"{}",
        b'{"amountCents": 100, "extra": 1}',
    ],
)
@pytest.mark.parametrize("route", ["deposits", "withdrawals", "holds"])
def test_invalid_amounts_are_422_and_write_nothing(api, raw_client, uid, route, raw_body):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=1_000)

    reply = api.post(f"/accounts/{account_id}/ledger/{route}", sub=sub, raw_body=raw_body, idempotency_key=new_key())

    assert reply.status == 422, reply.json
    assert reply.header("Content-Type") == "application/problem+json"
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, snapshot.version, len(snapshot.entries), snapshot.holds) == (1_000, 1, 1, [])


def test_withdrawing_exactly_the_balance_leaves_zero(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=100_000_000_000)

    reply = move(api, account_id, "withdrawals", 100_000_000_000, sub)

    assert (reply.status, reply.json["availableCentsAfter"]) == (201, 0)
    assert balance_of(assert_ledger_invariants(raw_client, account_id)) == (0, 0, 0)
    assert move(api, account_id, "withdrawals", 1, sub).json["availableCents"] == 0


def test_money_routes_need_an_idempotency_key(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub)

    reply = api.post(f"/accounts/{account_id}/ledger/deposits", {"amountCents": 5}, sub=sub)

    assert (reply.status, reply.code) == (400, "idempotency_key_required")
    assert read_ledger(raw_client, account_id).entries == []


# --- statement ------------------------------------------------------------------------------


def test_statement_pages_walk_every_entry_once_newest_first(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub)
    amounts = [100, 200, 300, 400, 500, 600, 700]
    created = [move(api, account_id, "deposits", a, sub).json["entryId"] for a in amounts]

    pages, cursor = [], None
    while True:
        query = "?limit=3" + (f"&cursor={cursor}" if cursor else "")
        reply = api.get(f"/accounts/{account_id}/ledger{query}", sub=sub)
        assert reply.status == 200
        pages.append(reply.json)
        cursor = reply.json["nextCursor"]
        if cursor is None:
            break
        assert len(pages) < 10

    seen = [e["entryId"] for page in pages for e in page["entries"]]
    assert seen == list(reversed(created))
    assert [e["availableCentsAfter"] for page in pages for e in page["entries"]] == [
        2800,
        2100,
        1500,
        1000,
        600,
        300,
        100,
    ]
    first = pages[0]
    assert {k: first[k] for k in ("clearedCents", "holdCents", "availableCents", "version")} == {
        "clearedCents": 2800,
        "holdCents": 0,
        "availableCents": 2800,
        "version": 7,
    }
    assert [len(p["entries"]) for p in pages][:3] == [3, 3, 1]
    assert not {"PK", "SK"} & set(first["entries"][0])


def _cursor(document) -> str:
    return base64.urlsafe_b64encode(json.dumps(document).encode()).rstrip(b"=").decode()


def test_malformed_or_foreign_cursors_are_refused(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=5)
    other_id = open_ledger(api, raw_client, sub, deposit=6)
    move(api, other_id, "deposits", 7, sub)
    foreign = api.get(f"/accounts/{other_id}/ledger?limit=1", sub=sub).json["nextCursor"]
    assert foreign

    cursors = [
        "not-base64-%%%",
        "AAAA",
        _cursor([1, 2]),
        _cursor({"PK": f"ACCT#{account_id}", "SK": "BALANCE"}),
        _cursor({"PK": f"ACCT#{account_id}", "SK": "TXN#x"}),
        _cursor({"PK": f"ACCT#{account_id}", "SK": 5}),
        _cursor({"PK": f"ACCT#{account_id}", "SK": "TXN#01HZZZZZZZZZZZZZZZZZZZZZZZ", "x": 1}),
        foreign,
        "A" * 1025,
    ]
    for cursor in cursors:
        reply = api.get(f"/accounts/{account_id}/ledger?cursor={cursor}", sub=sub)
        assert (reply.status, reply.code) == (422, "validation_failed"), (cursor, reply.json)
        assert reply.json["errors"][0]["field"] == "cursor"
    good = _cursor({"PK": f"ACCT#{account_id}", "SK": "TXN#7ZZZZZZZZZZZZZZZZZZZZZZZZZ"})
    assert [
        e["amountCents"] for e in api.get(f"/accounts/{account_id}/ledger?cursor={good}", sub=sub).json["entries"]
    ] == [5]


def test_statement_fills_available_after_from_the_pending_map(api, raw_client, uid):
    """An entry whose movement was not settled yet (a crash after commit) shows the exact value."""
    sub = f"owner-{uid}"
    account_id = open_ledger(api, raw_client, sub, deposit=900)
    entry = read_ledger(raw_client, account_id).entries[0]
    table = os.environ["TABLE_NAME"]
    raw_client.update_item(
        TableName=table,
        Key={"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": f"TXN#{entry['entryId']}"}},
        UpdateExpression="REMOVE #a",
        ExpressionAttributeNames={"#a": "availableCentsAfter"},
    )
    raw_client.update_item(
        TableName=table,
        Key={"PK": {"S": f"ACCT#{account_id}"}, "SK": {"S": "BALANCE"}},
        UpdateExpression="SET #p.#e = :v",
        ExpressionAttributeNames={"#p": "pending", "#e": entry["entryId"]},
        ExpressionAttributeValues={":v": {"N": "900"}},
    )

    reply = api.get(f"/accounts/{account_id}/ledger", sub=sub)

    assert [e["availableCentsAfter"] for e in reply.json["entries"]] == [900]
    assert "pending" not in reply.json


def test_statement_of_a_never_opened_ledger_is_404(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = seed_account(raw_client, sub)

    reply = api.get(f"/accounts/{account_id}/ledger", sub=sub)

    assert (reply.status, reply.code) == (404, "ledger_not_found")


# --- transfers ------------------------------------------------------------------------------


def transfer(api, sub: str, from_id: str, to_id: str, amount: int):
    body = {"fromAccountId": from_id, "toAccountId": to_id, "amountCents": amount}
    return api.post("/transfers", body, sub=sub, idempotency_key=new_key())


def test_transfer_moves_money_between_owners_in_one_step(api, raw_client, uid):
    alice, bob = f"alice-{uid}", f"bob-{uid}"
    source = open_ledger(api, raw_client, alice, deposit=1_000)
    target = open_ledger(api, raw_client, bob, deposit=50)

    reply = transfer(api, alice, source, target, 400)

    assert reply.status == 201
    body = reply.json
    assert {k: body[k] for k in ("type", "amountCents", "availableCentsAfter", "fromAccountId", "toAccountId")} == {
        "type": "transfer_out",
        "amountCents": 400,
        "availableCentsAfter": 600,
        "fromAccountId": source,
        "toAccountId": target,
    }
    sent, received = assert_ledger_invariants(raw_client, source), assert_ledger_invariants(raw_client, target)
    assert (sent.cleared, received.cleared) == (600, 450)
    incoming = received.entries_of("transfer_in")
    assert [(e["counterpartyAccountId"], e["transferId"], e["availableCentsAfter"]) for e in incoming] == [
        (source, body["transferId"], 450)
    ]
    assert sent.entries_of("transfer_out")[0]["counterpartyAccountId"] == target


def test_transfer_refusals_name_their_side_and_change_nothing(api, raw_client, uid):
    alice, bob = f"alice-{uid}", f"bob-{uid}"
    source = open_ledger(api, raw_client, alice, deposit=1_000)
    target = open_ledger(api, raw_client, bob, deposit=50)
    unknown = str(uuid.uuid4())
    before = {a: read_ledger(raw_client, a) for a in (source, target)}

    to_self = transfer(api, alice, source, source, 10)
    to_unknown = transfer(api, alice, source, unknown, 10)
    too_much = transfer(api, alice, source, target, 1_001)
    not_yours = transfer(api, bob, source, target, 10)
    from_unopened = transfer(api, alice, seed_account(raw_client, alice), target, 10)

    assert (to_self.status, to_self.code) == (422, "validation_failed")
    assert (to_unknown.status, to_unknown.code) == (404, "ledger_not_found")
    assert to_unknown.json["errors"][0]["field"] == "toAccountId"
    assert (too_much.status, too_much.code) == (409, "insufficient_funds")
    assert too_much.json["errors"][0]["field"] == "fromAccountId"
    assert (too_much.json["availableCents"], too_much.json["requestedCents"]) == (1_000, 1_001)
    assert (not_yours.status, not_yours.code, not_yours.json["errors"][0]["field"]) == (
        404,
        "ledger_not_found",
        "fromAccountId",
    )
    assert (from_unopened.status, from_unopened.json["errors"][0]["field"]) == (404, "fromAccountId")
    for account_id, earlier in before.items():
        now = assert_ledger_invariants(raw_client, account_id)
        assert (now.cleared, now.version, len(now.entries)) == (earlier.cleared, earlier.version, len(earlier.entries))
    assert read_ledger(raw_client, unknown).balance is None
