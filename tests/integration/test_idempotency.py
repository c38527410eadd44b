"""Idempotency-Key semantics (docs/api.md), on the real handlers and DynamoDB Local."""

from __future__ import annotations

import contextlib
import importlib
import time
from concurrent.futures import ThreadPoolExecutor

import routes
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.store import keys
from local.scenarios import balance
from tests.support.call_counter import counting_calls
from tests.support.faults import SimulatedCrash, crash_after_write
from tests.support.ledger_seed import open_funded_ledger, seed_account
from tests.support.settlement import settle_all
from tests.support.table_reads import raw_item


def _deposit(api, account_id, amount, key, sub="alice", headers=None):
    return api.post(
        f"/accounts/{account_id}/ledger/deposits",
        {"amountCents": amount},
        sub=sub,
        idempotency_key=key,
        headers=headers,
    )


def _withdraw(api, account_id, amount, key, sub="alice"):
    return api.post(f"/accounts/{account_id}/ledger/withdrawals", {"amountCents": amount}, sub=sub, idempotency_key=key)


def _marker_key(operation: str, key: str, caller: str = "alice") -> dict:
    """The request marker's key: the write's own idempotency record (caller + route + key)."""
    identity = RequestIdentity(caller=caller, route=routes.by_operation(operation).key, key=key, fingerprint="")
    return dict(keys.request_marker_key(identity.digest))


def _marker(raw_client, operation: str, key: str, caller: str = "alice") -> dict | None:
    return raw_item(raw_client, _marker_key(operation, key, caller))


def test_same_key_same_body_returns_first_response_and_writes_nothing(api, raw_client, ddb_client, uid):
    account = open_funded_ledger(api, raw_client, "alice", 1000)
    first = _deposit(api, account, 250, f"k-{uid}")
    assert first.status == 201 and first.header("Idempotent-Replayed") is None
    # Before the stream's settlement: the marker plus the value still in `pending`.
    with counting_calls(ddb_client) as unsettled:
        early = _deposit(api, account, 250, f"k-{uid}")
    assert (early.status, early.json) == (first.status, first.json)
    assert early.header("Idempotent-Replayed") == "true"
    assert unsettled.calls == ["TransactWriteItems", "GetItem"]
    settle_all()
    # Settled: the refused write's ALL_OLD marker is the whole first response.
    with counting_calls(ddb_client) as calls:
        again = _deposit(api, account, 250, f"k-{uid}")
    assert (again.status, again.json) == (first.status, first.json)
    assert calls.calls == ["TransactWriteItems"]  # cancelled at the marker: it wrote nothing
    assert balance(api, "alice", account)["clearedCents"] == 1250


def test_same_key_other_body_is_422(api, raw_client, uid):
    account = open_funded_ledger(api, raw_client, "alice", 1000)
    assert _deposit(api, account, 250, f"k-{uid}").status == 201
    reused = _deposit(api, account, 300, f"k-{uid}")
    assert reused.status == 422 and reused.code == "idempotency_key_reused"
    assert balance(api, "alice", account)["clearedCents"] == 1250


def test_same_key_on_another_path_is_422(api, raw_client, uid):
    first, second = open_funded_ledger(api, raw_client, "alice"), open_funded_ledger(api, raw_client, "alice")
    assert _deposit(api, first, 100, f"k-{uid}").status == 201
    reply = _deposit(api, second, 100, f"k-{uid}")
    assert reply.status == 422 and reply.code == "idempotency_key_reused"
    assert balance(api, "alice", second)["clearedCents"] == 0


def test_missing_key_on_money_route_is_400_and_writes_nothing(api, raw_client):
    account = open_funded_ledger(api, raw_client, "alice", 500)
    reply = api.post(f"/accounts/{account}/ledger/withdrawals", {"amountCents": 100})
    assert reply.status == 400 and reply.code == "idempotency_key_required"
    assert balance(api, "alice", account)["clearedCents"] == 500


def test_header_name_is_case_insensitive(api, raw_client, uid):
    account = open_funded_ledger(api, raw_client, "alice", 0)
    headers = {"iDeMpOtEnCy-KeY": f"k-{uid}"}
    first = api.post(f"/accounts/{account}/ledger/deposits", {"amountCents": 70}, headers=headers)
    again = api.post(
        f"/accounts/{account}/ledger/deposits", {"amountCents": 70}, headers={"IDEMPOTENCY-KEY": f"k-{uid}"}
    )
    assert first.status == 201 and (again.status, again.json) == (first.status, first.json)
    assert balance(api, "alice", account)["clearedCents"] == 70


def test_duplicated_or_malformed_key_is_400(api, raw_client, uid):
    account = open_funded_ledger(api, raw_client, "alice", 0)
    path = f"/accounts/{account}/ledger/deposits"
    twice = api.post(path, {"amountCents": 1}, headers=[("Idempotency-Key", "a"), ("Idempotency-Key", "b")])
    joined = api.post(path, {"amountCents": 1}, headers={"Idempotency-Key": "a, b"})
    too_long = api.post(path, {"amountCents": 1}, headers={"Idempotency-Key": "x" * 256})
    non_ascii = api.post(path, {"amountCents": 1}, headers={"Idempotency-Key": "clé"})
    for reply in (twice, joined, too_long, non_ascii):
        assert reply.status == 400 and reply.code == "invalid_idempotency_key", reply.json
    assert balance(api, "alice", account)["clearedCents"] == 0


def test_another_callers_identical_key_is_independent(api, raw_client, uid):
    alice_account = open_funded_ledger(api, raw_client, "alice", 0)
    bob_account = open_funded_ledger(api, raw_client, "bob", 0)
    a = _deposit(api, alice_account, 40, f"shared-{uid}", sub="alice")
    b = _deposit(api, bob_account, 40, f"shared-{uid}", sub="bob")
    assert a.status == b.status == 201 and a.json["entryId"] != b.json["entryId"]
    assert balance(api, "bob", bob_account)["clearedCents"] == 40


def test_a_first_request_is_never_told_it_is_its_own_duplicate(api, raw_client, uid):
    account = open_funded_ledger(api, raw_client, "alice", 10_000)
    settle_all()  # 64 movements with the settlement off: as many as a ledger lets wait (limits.MAX_PENDING_ENTRIES)
    with ThreadPoolExecutor(max_workers=16) as pool:
        replies = list(pool.map(lambda i: _withdraw(api, account, 1, f"solo-{uid}-{i}"), range(64)))
    assert [r.status for r in replies] == [201] * 64
    assert all(r.header("Idempotent-Replayed") is None for r in replies)


def test_business_refusals_are_not_cached_a_retry_decides_afresh(api, raw_client, uid):
    """A refusal wrote nothing, its marker included: after the cause is fixed the same key succeeds, once."""
    account = open_funded_ledger(api, raw_client, "alice", 100)
    refused = _withdraw(api, account, 500, f"w-{uid}")
    assert refused.status == 409 and refused.code == "insufficient_funds"
    assert _marker(raw_client, "withdraw", f"w-{uid}") is None
    assert _deposit(api, account, 1000, f"d-{uid}").status == 201
    again = _withdraw(api, account, 500, f"w-{uid}")
    assert again.status == 201 and again.header("Idempotent-Replayed") is None
    once_more = _withdraw(api, account, 500, f"w-{uid}")
    assert (once_more.status, once_more.json) == (201, again.json)
    assert balance(api, "alice", account)["clearedCents"] == 600


def test_money_markers_never_expire_so_a_late_retry_cannot_withdraw_twice(api, raw_client, uid):
    account = open_funded_ledger(api, raw_client, "alice", 1000)
    first = _withdraw(api, account, 300, f"w-{uid}")
    assert first.status == 201
    marker = _marker(raw_client, "withdraw", f"w-{uid}")
    assert marker is not None and "expiration" not in marker
    again = _withdraw(api, account, 300, f"w-{uid}")
    assert again.status == 201 and again.json == first.json
    state = balance(api, "alice", account)
    assert state["clearedCents"] == 700
    assert [e["type"] for e in state["entries"]].count("withdrawal") == 1


def test_a_late_retry_with_another_body_is_422(api, raw_client, uid):
    account = open_funded_ledger(api, raw_client, "alice", 1000)
    assert _withdraw(api, account, 300, f"w-{uid}").status == 201
    reused = _withdraw(api, account, 400, f"w-{uid}")
    assert reused.status == 422 and reused.code == "idempotency_key_reused"
    assert balance(api, "alice", account)["clearedCents"] == 700


def test_crash_right_after_the_write_never_applies_twice(api, ddb_client, raw_client, uid):
    """The process dies after the transaction committed, before it could answer: the retry replays."""
    account = open_funded_ledger(api, raw_client, "alice", 1000)
    with crash_after_write(ddb_client) as crashed, contextlib.suppress(SimulatedCrash):
        _withdraw(api, account, 250, f"w-{uid}")
    assert crashed.injected == 1
    assert _marker(raw_client, "withdraw", f"w-{uid}") is not None
    retried = _withdraw(api, account, 250, f"w-{uid}")
    assert retried.status == 201 and retried.json["amountCents"] == 250
    assert retried.header("Idempotent-Replayed") == "true"
    state = balance(api, "alice", account)
    assert state["clearedCents"] == 750
    assert [e["type"] for e in state["entries"]].count("withdrawal") == 1


def test_each_function_has_its_own_persistence_layer(api, raw_client, uid):
    """Pitfall: a persistence layer shared by two functions keeps the first one's config."""
    deposit = importlib.import_module("ledger.deposit").endpoint.idempotency
    withdraw = importlib.import_module("ledger.withdraw").endpoint.idempotency
    assert deposit is not None and withdraw is not None
    assert deposit.persistence is not withdraw.persistence
    assert (deposit.persistence.operation, withdraw.persistence.operation) == ("deposit", "withdraw")
    # Same caller, same key, two routes: two independent requests, both applied.
    account = open_funded_ledger(api, raw_client, "alice", 0)
    assert _deposit(api, account, 500, f"k-{uid}").status == 201
    assert _withdraw(api, account, 200, f"k-{uid}").status == 201
    assert balance(api, "alice", account)["clearedCents"] == 300


def test_create_account_with_key_replays_the_first_201(api, uid):
    body = {"email": f"{uid}@replay.example", "username": f"r{uid}"}
    first = api.post("/accounts", body, idempotency_key=f"acct-{uid}")
    again = api.post("/accounts", body, idempotency_key=f"acct-{uid}")
    assert first.status == 201 and (again.status, again.json) == (first.status, first.json)
    assert first.header("Location") == again.header("Location")
    assert again.header("Idempotent-Replayed") == "true"


def test_get_routes_do_not_record_keys(api, raw_client, uid):
    account = seed_account(raw_client, "alice")
    reply = api.get(f"/accounts/{account}", headers={"Idempotency-Key": f"g-{uid}"})
    assert reply.status == 200
    assert _marker(raw_client, "get_account", f"g-{uid}") is None


def test_markers_of_other_writes_expire_with_the_key_through_the_table_ttl(api, raw_client, uid):
    body = {"email": f"{uid}@ttl.example", "username": f"t{uid}"}
    assert api.post("/accounts", body, idempotency_key=f"ttl-{uid}").status == 201
    marker = _marker(raw_client, "create_account", f"ttl-{uid}")
    assert marker is not None and marker["response"]["email"] == body["email"]
    assert (
        isinstance(marker["expiration"], int)
        and time.time() + 23 * 3600 < marker["expiration"] < time.time() + 25 * 3600
    )
