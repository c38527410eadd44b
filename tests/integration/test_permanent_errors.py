"""Permanent versus transient: a cancellation reason no retry can change is never answered "busy".

Only throttling, TransactionConflict and connection errors are retried. A ValidationError (the
item would pass 400 KB) or any other reason that is not a failed condition is permanent: one
attempt, 500 `internal_error`, a log line and a metric. The reasons are injected on ddbguard's
own client (tests/support/faults.py); DynamoDB Local stays real underneath.
"""

from __future__ import annotations

import pytest

from ddbguard.store import transient
from tests.support.faults import transaction_conflicts
from tests.support.ledger_invariants import assert_ledger_invariants
from tests.support.ledger_requests import move
from tests.support.ledger_seed import open_funded_ledger
from tests.support.table_reads import lock_owner


@pytest.fixture
def permanent_errors(monkeypatch) -> list[list[str]]:
    """The reasons of every permanent error the store reported (its metric and log go with it)."""
    seen: list[list[str]] = []
    original = transient.permanent

    def recording(operation: str, reasons: list[str]) -> transient.PermanentStoreError:
        seen.append(reasons)
        return original(operation, reasons)

    monkeypatch.setattr(transient, "permanent", recording)
    return seen


@pytest.mark.parametrize("reason", ["ValidationError", "ItemCollectionSizeLimitExceeded"])
def test_a_permanent_cancellation_on_a_deposit_is_500_after_one_attempt(
    api, ddb_client, raw_client, uid, reason, permanent_errors
):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=500)
    with transaction_conflicts(ddb_client, times=10, reason=reason) as injection:
        reply = api.post(
            f"/accounts/{account_id}/ledger/deposits", {"amountCents": 100}, sub=sub, idempotency_key=f"k-{uid}"
        )
    assert (reply.status, reply.code) == (500, "internal_error")
    assert reply.header("Retry-After") is None
    assert injection.injected == 1  # no retry: none could ever succeed
    assert permanent_errors == [[reason]]
    assert assert_ledger_invariants(raw_client, account_id).balance["availableCents"] == 500


def test_a_permanent_cancellation_on_a_sign_up_is_500_not_busy(api, ddb_client, raw_client, uid, permanent_errors):
    body = {"email": f"big@{uid}.io", "username": f"big_{uid}"}
    with transaction_conflicts(ddb_client, times=10, reason="ValidationError") as injection:
        reply = api.post("/accounts", body)
    assert (reply.status, reply.code) == (500, "internal_error")
    assert injection.injected == 1
    assert permanent_errors == [["ValidationError"]]
    assert lock_owner(raw_client, "EMAIL", f"big@{uid}.io") is None


def test_throttling_as_a_cancellation_reason_is_still_retried(api, ddb_client, raw_client, uid, permanent_errors):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub)
    with transaction_conflicts(ddb_client, times=2, reason="ThrottlingError") as injection:
        reply = move(api, account_id, "deposits", 100, sub)
    assert reply.status == 201, reply.json
    assert injection.injected == 2
    assert permanent_errors == []
    assert assert_ledger_invariants(raw_client, account_id).balance["availableCents"] == 100
