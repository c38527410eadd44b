"""guards/replays.py against DynamoDB Local: a request marker in the write's own transaction makes a retry answer
the first response and apply nothing twice, even without the idempotency record and under racing twins.

tests/unit/test_replays.py tests the marker's pieces alone.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from ddbguard.domain import holds
from ddbguard.errors import IdempotencyKeyReused
from ddbguard.guards.request_identity import RequestIdentity
from local.scenarios import balance
from tests.integration.test_idempotency import _deposit
from tests.support.faults import blocked_writes, dropped_responses
from tests.support.ledger_invariants import assert_ledger_invariants
from tests.support.ledger_requests import move, new_key
from tests.support.ledger_seed import open_funded_ledger


def test_a_twin_sent_while_the_first_is_in_flight_gets_the_same_answer_and_no_second_effect(
    api, raw_client, ddb_client, uid
):
    """No separate INPROGRESS record: whichever twin's write lands first wins, the other replays it."""
    account = open_funded_ledger(api, raw_client, "alice", 0)
    release = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool, blocked_writes(ddb_client, release, holding=1) as entered:
        first = pool.submit(_deposit, api, account, 90, f"k-{uid}")
        assert entered.wait(10)
        second = _deposit(api, account, 90, f"k-{uid}")
        release.set()
        first_reply = first.result(timeout=120)
    assert (first_reply.status, first_reply.json) == (second.status, second.json) == (201, first_reply.json)
    assert sorted(r.header("Idempotent-Replayed") or "" for r in (first_reply, second)) == ["", "true"]
    assert balance(api, "alice", account)["clearedCents"] == 90


def test_twenty_identical_requests_at_once_make_one_effect_and_identical_answers(api, raw_client, uid):
    account = open_funded_ledger(api, raw_client, "alice", 0)
    with ThreadPoolExecutor(max_workers=20) as pool:
        replies = list(pool.map(lambda _: _deposit(api, account, 33, f"k20-{uid}"), range(20)))
    assert {(r.status, json.dumps(r.json, sort_keys=True)) for r in replies} == {
        (201, json.dumps(replies[0].json, sort_keys=True))
    }
    assert sum(r.header("Idempotent-Replayed") is None for r in replies) == 1
    state = balance(api, "alice", account)
    assert state["clearedCents"] == 33 and len(state["entries"]) == 1


def test_the_request_marker_replays_even_without_the_idempotency_record(api, raw_client, uid):
    """The write itself is idempotent: calling the layer twice with one identity writes one entry."""
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=1_000)
    route = "POST /accounts/{accountId}/ledger/holds"
    identity = RequestIdentity(caller=sub, route=route, key=new_key(), fingerprint="fingerprint-a")

    first = holds.place_hold(account_id, sub, 400, identity)
    again = holds.place_hold(account_id, sub, 400, identity)

    assert again == first
    with pytest.raises(IdempotencyKeyReused):
        holds.place_hold(
            account_id,
            sub,
            400,
            RequestIdentity(caller=sub, route=route, key=identity.key, fingerprint="fingerprint-b"),
        )
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (len(snapshot.holds), len(snapshot.entries_of("hold")), snapshot.held) == (1, 1, 400)


def test_a_repeated_request_moves_money_once(api, raw_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=1_000)
    key = new_key()

    first = move(api, account_id, "withdrawals", 300, sub, key=key)
    again = move(api, account_id, "withdrawals", 300, sub, key=key)
    reused = move(api, account_id, "withdrawals", 301, sub, key=key)

    assert (first.status, again.status) == (201, 201) and again.json == first.json
    assert (reused.status, reused.code) == (422, "idempotency_key_reused")
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, len(snapshot.entries_of("withdrawal"))) == (700, 1)


def test_a_lost_transaction_response_does_not_move_money_twice(api, raw_client, ddb_client, uid):
    sub = f"owner-{uid}"
    account_id = open_funded_ledger(api, raw_client, sub, deposit=1_000)

    with dropped_responses(ddb_client, times=1) as dropped:
        reply = move(api, account_id, "withdrawals", 250, sub)

    assert (dropped.injected, reply.status, reply.json["availableCentsAfter"]) == (1, 201, 750)
    snapshot = assert_ledger_invariants(raw_client, account_id)
    assert (snapshot.cleared, len(snapshot.entries_of("withdrawal"))) == (750, 1)
