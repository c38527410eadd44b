"""The ledger through the real handlers on DynamoDB Local: open, deposit, withdraw, amounts, keys.

Guards live in the write; refusals are explained from ALL_OLD. Holds, statements and transfers
have their own suites (test_holds, test_statements, test_transfers).
"""

from __future__ import annotations

import uuid

import pytest

from ddbguard.domain import ledger as ledger_domain
from ddbguard.errors import AlreadyExists
from ddbguard.guards.request_identity import RequestIdentity
from tests.support.faults import transaction_conflicts
from tests.support.ledger_invariants import assert_ledger_invariants, balance_of, read_ledger
from tests.support.ledger_requests import move, new_key, settle
from tests.support.ledger_seed import open_funded_ledger, seed_account

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
    account_id = open_funded_ledger(api, raw_client, sub, deposit=700)

    reply = api.post(f"/accounts/{account_id}/ledger", sub=sub)

    assert (reply.status, reply.code) == (409, "already_exists")
    assert read_ledger(raw_client, account_id).cleared == 700


def test_open_ledger_retry_after_a_lost_idempotency_record_answers_the_first_balance(raw_client, uid):
    sub = f"owner-{uid}"
    account_id = seed_account(raw_client, sub)
    identity = RequestIdentity(caller=sub, route="POST /accounts/{accountId}/ledger", key=new_key(), fingerprint="fp")

    first = ledger_domain.open_ledger(account_id, sub, identity)
    again = ledger_domain.open_ledger(account_id, sub, identity)

    assert again == first
    other = RequestIdentity(caller=sub, route=identity.route, key=new_key(), fingerprint="fp")
    with pytest.raises(AlreadyExists):
        ledger_domain.open_ledger(account_id, sub, other)


# --- money in, money out -----------------------------------------------------------------------


def test_deposit_withdraw_hold_capture_release_keep_every_balance_right(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub)

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


def test_transient_conflicts_are_retried_not_refused(api, raw_client, ddb_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=1_000)

    with transaction_conflicts(ddb_client, times=2) as conflicts:
        retried = move(api, account_id, "withdrawals", 100, sub)
    with transaction_conflicts(ddb_client, times=100):
        busy = move(api, account_id, "withdrawals", 100, sub)

    assert (retried.status, conflicts.injected) == (201, 2)
    assert (busy.status, busy.code) == (503, "busy") and busy.header("Retry-After")
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, len(snapshot.entries_of("withdrawal"))) == (900, 1)


# --- refusals cost one call -----------------------------------------------------------------


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
    account_id = open_funded_ledger(api, raw_client, sub, deposit=1_000)

    reply = api.post(f"/accounts/{account_id}/ledger/{route}", sub=sub, raw_body=raw_body, idempotency_key=new_key())

    assert reply.status == 422, reply.json
    assert reply.header("Content-Type") == "application/problem+json"
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, snapshot.version, len(snapshot.entries), snapshot.holds) == (1_000, 1, 1, [])


def test_money_routes_need_an_idempotency_key(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub)

    reply = api.post(f"/accounts/{account_id}/ledger/deposits", {"amountCents": 5}, sub=sub)

    assert (reply.status, reply.code) == (400, "idempotency_key_required")
    assert read_ledger(raw_client, account_id).entries == []
