"""Holds through the real handlers on DynamoDB Local: placed against available money, settled once."""

from __future__ import annotations

import uuid

from tests.support.ledger_invariants import assert_ledger_invariants, balance_of
from tests.support.ledger_requests import move, settle
from tests.support.ledger_seed import open_funded_ledger


def test_a_hold_settles_once(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=5_000)
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
    account_id = open_funded_ledger(api, raw_client, sub, deposit=5_000)
    hold_id = move(api, account_id, "holds", 2_000, sub).json["holdId"]
    other_account = open_funded_ledger(api, raw_client, sub)

    unknown = settle(api, account_id, str(uuid.uuid4()), "capture", sub)
    foreign_caller = settle(api, account_id, hold_id, "capture", f"intruder-{uid}")
    wrong_account = settle(api, other_account, hold_id, "release", sub)

    assert [(r.status, r.code) for r in (unknown, foreign_caller, wrong_account)] == [(404, "hold_not_found")] * 3
    assert balance_of(assert_ledger_invariants(raw_client, account_id)) == (5_000, 2_000, 3_000)


def test_a_hold_needs_the_funds(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=100)

    reply = move(api, account_id, "holds", 101, sub)

    assert (reply.status, reply.code) == (409, "insufficient_funds")
    assert (reply.json["availableCents"], reply.json["requestedCents"]) == (100, 101)
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.holds, len(snapshot.entries)) == ([], 1)
