"""A deeply nested body is the client's mistake, never a 500: 400 `body_too_deep`, nothing written."""

from __future__ import annotations

import json

import pytest

from tests.support.ledger_invariants import assert_ledger_invariants
from tests.support.ledger_seed import open_funded_ledger
from tests.support.table_reads import lock_owner


def deep(field: str, levels: int, rest: dict) -> bytes:
    """`{field: [[[...]]], **rest}` with `levels` levels of nesting in all."""
    inner = "[" * (levels - 1) + "]" * (levels - 1)
    return ('{"' + field + '": ' + inner + ", " + json.dumps(rest)[1:]).encode()


@pytest.mark.parametrize("levels", [980, 10_000])
def test_a_deep_deposit_is_400_and_moves_nothing(api, raw_client, uid, levels):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=700)
    reply = api.post(
        f"/accounts/{account_id}/ledger/deposits",
        raw_body=deep("note", levels, {"amountCents": 5}),
        sub=sub,
        idempotency_key=f"deep-{uid}",
    )
    assert (reply.status, reply.code) == (400, "body_too_deep"), reply.json
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert snapshot.balance["availableCents"] == 700
    assert len(snapshot.entries) == 1


@pytest.mark.parametrize("levels", [980, 10_000])
def test_a_deep_sign_up_is_400_and_takes_nothing(api, raw_client, uid, levels):
    email = f"deep{levels}@{uid}.io"
    reply = api.post("/accounts", raw_body=deep("displayName", levels, {"email": email, "username": f"deep_{uid}"}))
    assert (reply.status, reply.code) == (400, "body_too_deep"), reply.json
    assert lock_owner(raw_client, "EMAIL", email) is None
