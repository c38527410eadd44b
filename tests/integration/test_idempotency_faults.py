"""Exactly-once money movements under faults: every money route x every fault, many trials.

A trial sends a request while a fault is injected, then retries it with the same
Idempotency-Key the way a client would (until it gets a non-retryable answer). The retry must
answer like an undisturbed request, and the store must show the effect exactly once.

Trials per (route, fault): DDBGUARD_FAULT_TRIALS (default below; `make soak` runs 200).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

import local.server as server
import routes
from ddbguard.store import keys
from local.lambda_context import LambdaContext
from tests.support.faults import (
    Injection,
    SimulatedCrash,
    crash_after_write,
    dropped_responses,
    throttling,
    timeouts_before_send,
    transaction_conflicts,
)
from tests.support.ledger_seed import open_funded_ledger
from tests.support.table_reads import raw_item

TRIALS = int(os.environ.get("DDBGUARD_FAULT_TRIALS", "3"))
AMOUNT = 100
CRASHED_INVOCATION_S = 0.3  # the "killed" invocation's timeout: its in-progress record expires then


@contextmanager
def _dropped_reads(client, times: int) -> Iterator[Injection]:
    """Every read of the sequence (the read-back of availableCentsAfter, the hold/order and marker read)
    reaches DynamoDB and its answer is lost, `times` times in a row per operation."""
    with (
        dropped_responses(client, "GetItem", times) as gets,
        dropped_responses(client, "BatchGetItem", times) as batches,
    ):
        combined = Injection(0)
        yield combined
        combined.injected = gets.injected + batches.injected


FAULTS: dict[str, Callable] = {
    # botocore re-sends the same request: it fails at its own request marker and answers from it.
    "response_lost_once": lambda client: dropped_responses(client, times=1),
    # botocore gives up after its 4 tries: 503, outcome unknown; the client's retry meets the
    # request marker.
    "response_lost_every_try": lambda client: dropped_responses(client, times=4),
    "timeout_before_send_every_try": lambda client: timeouts_before_send(client, times=4),
    "transaction_conflict": lambda client: transaction_conflicts(client, times=3),
    "transaction_conflict_exhausted": lambda client: transaction_conflicts(client, times=1000),
    # botocore's standard mode retries throttling itself (with its own backoff).
    "throttled": lambda client: throttling(client, times=1),
    "killed_after_write": lambda client: crash_after_write(client),
    # The new sequence's reads: a lost read-back after the commit is a 503 "retry with the same key", and the
    # retry answers from the request marker; a lost read before the write changes nothing.
    "read_lost_every_try": lambda client: _dropped_reads(client, times=4),
}


@dataclass
class Trial:
    method: str
    path: str
    body: dict | None
    expected_status: int
    sub: str = "alice"


def _snapshot(raw_client, account_ids: list[str]) -> dict:
    """Each balance: its amounts and its version, which grows by one per applied movement."""
    state = {}
    for account_id in account_ids:
        balance = raw_item(raw_client, keys.balance_key(account_id))
        assert balance is not None, account_id
        state[account_id] = {
            "cleared": balance["clearedCents"],
            "hold": balance["holdCents"],
            "available": balance["availableCents"],
            "movements": balance["version"],
        }
    return state


def _entry_count(raw_client, account_id: str) -> int:
    """Ledger entries of the account, every page of the Query."""
    paginator = raw_client.get_paginator("query")
    pages = paginator.paginate(
        TableName="ddbguard-test",
        KeyConditionExpression="PK = :pk AND begins_with(SK, :txn)",
        ExpressionAttributeValues={":pk": {"S": f"ACCT#{account_id}"}, ":txn": {"S": "TXN#"}},
        Select="COUNT",
        ConsistentRead=True,
    )
    return sum(page["Count"] for page in pages)


class Money:
    """Per-route set-up, request and expected effect."""

    def __init__(self, api, raw_client):
        self.api, self.raw = api, raw_client
        self.account = open_funded_ledger(api, raw_client, "alice", 10_000_000)
        self.other = open_funded_ledger(api, raw_client, "bob", 0)

    def _key(self) -> str:
        return f"setup-{uuid.uuid4()}"

    def _hold(self) -> str:
        reply = self.api.post(
            f"/accounts/{self.account}/ledger/holds", {"amountCents": AMOUNT}, idempotency_key=self._key()
        )
        assert reply.status == 201, reply.json
        return reply.json["holdId"]

    def _order(self) -> str:
        items = [{"sku": "SKU-1", "quantity": 1, "unitPriceCents": AMOUNT}]
        reply = self.api.post("/orders", {"accountId": self.account, "items": items})
        assert reply.status == 201, reply.json
        return reply.json["orderId"]

    def trial(self, route: str) -> tuple[Trial, dict]:
        """The request, and the expected change per account: (cleared, hold, available, movements)."""
        a, ledger = self.account, f"/accounts/{self.account}/ledger"
        if route == "deposit":
            return Trial("POST", f"{ledger}/deposits", {"amountCents": AMOUNT}, 201), {a: (AMOUNT, 0, AMOUNT, 1)}
        if route == "withdraw":
            return Trial("POST", f"{ledger}/withdrawals", {"amountCents": AMOUNT}, 201), {a: (-AMOUNT, 0, -AMOUNT, 1)}
        if route == "place_hold":
            return Trial("POST", f"{ledger}/holds", {"amountCents": AMOUNT}, 201), {a: (0, AMOUNT, -AMOUNT, 1)}
        if route == "capture_hold":
            hold = self._hold()
            return Trial("POST", f"{ledger}/holds/{hold}/capture", None, 200), {a: (-AMOUNT, -AMOUNT, 0, 1)}
        if route == "release_hold":
            hold = self._hold()
            return Trial("POST", f"{ledger}/holds/{hold}/release", None, 200), {a: (0, -AMOUNT, AMOUNT, 1)}
        if route == "create_transfer":
            body = {"fromAccountId": a, "toAccountId": self.other, "amountCents": AMOUNT}
            return Trial("POST", "/transfers", body, 201), {
                a: (-AMOUNT, 0, -AMOUNT, 1),
                self.other: (AMOUNT, 0, AMOUNT, 1),
            }
        if route == "pay_order":
            order = self._order()
            return Trial("POST", f"/orders/{order}/pay", None, 200), {a: (-AMOUNT, 0, -AMOUNT, 1)}
        if route == "refund_order":
            order = self._order()
            paid = self.api.post(f"/orders/{order}/pay", idempotency_key=self._key())
            assert paid.status == 200, paid.json
            return Trial("POST", f"/orders/{order}/refund", None, 200), {a: (AMOUNT, 0, AMOUNT, 1)}
        raise AssertionError(route)


MONEY_ROUTES = [route.operation for route in routes.ROUTES if route.moves_money]


def _send(api, trial: Trial, key: str):
    return api.request(trial.method, trial.path, trial.body, sub=trial.sub, idempotency_key=key)


def _retry_until_answered(api, trial: Trial, key: str):
    for _ in range(20):
        reply = _send(api, trial, key)
        if reply.status == 503 or reply.code == "request_in_progress":
            time.sleep(float(reply.header("Retry-After") or 0.1) / 10)
            continue
        return reply
    raise AssertionError("never answered")


@pytest.fixture
def money(api, raw_client):
    """Fresh ledgers per (route, fault): small partitions, and the end-of-test count is exact."""
    return Money(api, raw_client)


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("route", MONEY_ROUTES)
def test_retry_after_fault_applies_exactly_once(api, ddb_client, raw_client, money, monkeypatch, route, fault):
    monkeypatch.setattr(
        server, "LambdaContext", lambda function_name: LambdaContext(function_name, CRASHED_INVOCATION_S)
    )
    for _ in range(TRIALS):
        trial, effect = money.trial(route)
        before = _snapshot(raw_client, list(effect))
        key = f"{route}-{fault}-{uuid.uuid4()}"
        first = None
        with FAULTS[fault](ddb_client) as injected:
            try:
                first = _send(api, trial, key)
            except SimulatedCrash:
                time.sleep(CRASHED_INVOCATION_S + 0.05)
        assert injected.injected >= 1, "the fault was never triggered"
        if first is not None:
            assert first.status in (trial.expected_status, 503), first.json
            if first.status == 503:
                assert first.code == "busy" and first.header("Retry-After")
        retried = _retry_until_answered(api, trial, key)
        assert retried.status == trial.expected_status, retried.json
        if first is not None and first.status == trial.expected_status:
            assert retried.json == first.json
        replayed = _send(api, trial, key)
        assert (replayed.status, replayed.json) == (retried.status, retried.json)
        after = _snapshot(raw_client, list(effect))
        for account_id, (cleared, hold, available, entries) in effect.items():
            delta = {k: after[account_id][k] - before[account_id][k] for k in before[account_id]}
            assert delta == {"cleared": cleared, "hold": hold, "available": available, "movements": entries}, (
                route,
                fault,
                delta,
            )
    # Every applied movement wrote exactly one entry per ledger: nothing applied twice, nothing lost.
    for account_id in (money.account, money.other):
        assert _entry_count(raw_client, account_id) == _snapshot(raw_client, [account_id])[account_id]["movements"]
