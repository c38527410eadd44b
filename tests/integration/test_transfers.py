"""Transfers through the real handlers on DynamoDB Local: both sides in one transaction, refusals name their side."""

from __future__ import annotations

import uuid

from tests.support.ledger_invariants import assert_ledger_invariants, read_ledger
from tests.support.ledger_requests import new_key
from tests.support.ledger_seed import open_funded_ledger, seed_account


def transfer(api, sub: str, from_id: str, to_id: str, amount: int):
    body = {"fromAccountId": from_id, "toAccountId": to_id, "amountCents": amount}
    return api.post("/transfers", body, sub=sub, idempotency_key=new_key())


def test_transfer_moves_money_between_owners_in_one_step(api, raw_client, uid):
    alice, bob = f"alice-{uid}", f"bob-{uid}"
    source = open_funded_ledger(api, raw_client, alice, deposit=1_000)
    target = open_funded_ledger(api, raw_client, bob, deposit=50)

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
    source = open_funded_ledger(api, raw_client, alice, deposit=1_000)
    target = open_funded_ledger(api, raw_client, bob, deposit=50)
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
