"""Idempotency-Key semantics (contract section 2), on the real handlers and DynamoDB Local."""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import routes
from ddbguard.store.codec import from_item
from local.scenarios import balance, create_account, open_funded_ledger
from tests.support.call_counter import counting_calls
from tests.support.faults import SimulatedCrash, blocked_writes, crash_after_write


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


def _record_key(operation: str, key: str, caller: str = "alice") -> dict:
    """The Powertools record's key, computed as Powertools does (md5 of the JSON of our key string)."""
    route = routes.by_operation(operation).key
    digest = hashlib.md5(json.dumps(f"{caller}\x1f{route}\x1f{key}", sort_keys=True).encode()).hexdigest()
    return {"PK": {"S": f"IDEMPOTENCY#{operation}"}, "SK": {"S": f"{operation}#{digest}"}}


def _record(raw_client, operation: str, key: str, caller: str = "alice") -> dict | None:
    item = raw_client.get_item(TableName="ddbguard-test", Key=_record_key(operation, key, caller), ConsistentRead=True)
    return from_item(item.get("Item"))


def _expire_record(raw_client, operation: str, key: str) -> None:
    """Simulate expiry: the Powertools record is gone; only the request marker remembers."""
    raw_client.delete_item(TableName="ddbguard-test", Key=_record_key(operation, key))
    assert _record(raw_client, operation, key) is None


def test_same_key_same_body_returns_first_response_and_writes_nothing(api, ddb_client, uid):
    account = open_funded_ledger(api, "alice", 1000)
    first = _deposit(api, account, 250, f"k-{uid}")
    assert first.status == 201
    with counting_calls(ddb_client) as calls:
        again = _deposit(api, account, 250, f"k-{uid}")
    assert (again.status, again.json) == (first.status, first.json)
    assert calls.count("TransactWriteItems") == 0 and calls.count("UpdateItem") == 0
    assert balance(api, "alice", account)["clearedCents"] == 1250


def test_same_key_other_body_is_422(api, uid):
    account = open_funded_ledger(api, "alice", 1000)
    assert _deposit(api, account, 250, f"k-{uid}").status == 201
    reused = _deposit(api, account, 300, f"k-{uid}")
    assert reused.status == 422 and reused.code == "idempotency_key_reused"
    assert balance(api, "alice", account)["clearedCents"] == 1250


def test_same_key_on_another_path_is_422(api, uid):
    first, second = open_funded_ledger(api, "alice"), open_funded_ledger(api, "alice")
    assert _deposit(api, first, 100, f"k-{uid}").status == 201
    reply = _deposit(api, second, 100, f"k-{uid}")
    assert reply.status == 422 and reply.code == "idempotency_key_reused"
    assert balance(api, "alice", second)["clearedCents"] == 0


def test_missing_key_on_money_route_is_400_and_writes_nothing(api):
    account = open_funded_ledger(api, "alice", 500)
    reply = api.post(f"/accounts/{account}/ledger/withdrawals", {"amountCents": 100})
    assert reply.status == 400 and reply.code == "idempotency_key_required"
    assert balance(api, "alice", account)["clearedCents"] == 500


def test_header_name_is_case_insensitive(api, uid):
    account = open_funded_ledger(api, "alice", 0)
    headers = {"iDeMpOtEnCy-KeY": f"k-{uid}"}
    first = api.post(f"/accounts/{account}/ledger/deposits", {"amountCents": 70}, headers=headers)
    again = api.post(
        f"/accounts/{account}/ledger/deposits", {"amountCents": 70}, headers={"IDEMPOTENCY-KEY": f"k-{uid}"}
    )
    assert first.status == 201 and (again.status, again.json) == (first.status, first.json)
    assert balance(api, "alice", account)["clearedCents"] == 70


def test_duplicated_or_malformed_key_is_400(api, uid):
    account = open_funded_ledger(api, "alice", 0)
    path = f"/accounts/{account}/ledger/deposits"
    twice = api.post(path, {"amountCents": 1}, headers=[("Idempotency-Key", "a"), ("Idempotency-Key", "b")])
    joined = api.post(path, {"amountCents": 1}, headers={"Idempotency-Key": "a, b"})
    too_long = api.post(path, {"amountCents": 1}, headers={"Idempotency-Key": "x" * 256})
    non_ascii = api.post(path, {"amountCents": 1}, headers={"Idempotency-Key": "clé"})
    for reply in (twice, joined, too_long, non_ascii):
        assert reply.status == 400 and reply.code == "invalid_idempotency_key", reply.json
    assert balance(api, "alice", account)["clearedCents"] == 0


def test_another_callers_identical_key_is_independent(api, uid):
    alice_account = open_funded_ledger(api, "alice", 0)
    bob_account = open_funded_ledger(api, "bob", 0)
    a = _deposit(api, alice_account, 40, f"shared-{uid}", sub="alice")
    b = _deposit(api, bob_account, 40, f"shared-{uid}", sub="bob")
    assert a.status == b.status == 201 and a.json["entryId"] != b.json["entryId"]
    assert balance(api, "bob", bob_account)["clearedCents"] == 40


def test_repeat_while_first_in_flight_is_409(api, ddb_client, uid):
    account = open_funded_ledger(api, "alice", 0)
    release = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool, blocked_writes(ddb_client, release) as entered:
        first = pool.submit(_deposit, api, account, 90, f"k-{uid}")
        assert entered.wait(10)
        second = _deposit(api, account, 90, f"k-{uid}")
        release.set()
        first_reply = first.result(timeout=30)
    assert second.status == 409 and second.code == "request_in_progress"
    assert first_reply.status == 201
    assert balance(api, "alice", account)["clearedCents"] == 90


def test_business_refusals_are_cached_like_successes(api, uid):
    account = open_funded_ledger(api, "alice", 100)
    refused = _withdraw(api, account, 500, f"w-{uid}")
    assert refused.status == 409 and refused.code == "insufficient_funds"
    assert _deposit(api, account, 1000, f"d-{uid}").status == 201
    again = _withdraw(api, account, 500, f"w-{uid}")
    assert (again.status, again.json) == (refused.status, refused.json)
    assert balance(api, "alice", account)["clearedCents"] == 1100


def test_replay_after_idempotency_record_expired_does_not_withdraw_twice(api, raw_client, uid):
    account = open_funded_ledger(api, "alice", 1000)
    first = _withdraw(api, account, 300, f"w-{uid}")
    assert first.status == 201
    _expire_record(raw_client, "withdraw", f"w-{uid}")
    again = _withdraw(api, account, 300, f"w-{uid}")
    assert again.status == 201 and again.json == first.json
    state = balance(api, "alice", account)
    assert state["clearedCents"] == 700
    assert [e["type"] for e in state["entries"]].count("withdrawal") == 1


def test_replay_after_record_expired_with_other_body_is_422(api, raw_client, uid):
    account = open_funded_ledger(api, "alice", 1000)
    assert _withdraw(api, account, 300, f"w-{uid}").status == 201
    _expire_record(raw_client, "withdraw", f"w-{uid}")
    reused = _withdraw(api, account, 400, f"w-{uid}")
    assert reused.status == 422 and reused.code == "idempotency_key_reused"
    assert balance(api, "alice", account)["clearedCents"] == 700


def test_crash_between_write_and_record_save_never_applies_twice(api, ddb_client, raw_client, uid, monkeypatch):
    """Pitfall: in-progress records must expire with the invocation (lambda context registered)."""
    import local.server as server
    from local.lambda_context import LambdaContext

    account = open_funded_ledger(api, "alice", 1000)
    monkeypatch.setattr(server, "LambdaContext", lambda function_name: LambdaContext(function_name, timeout_s=1.0))
    with crash_after_write(ddb_client) as crashed, contextlib.suppress(SimulatedCrash):
        _withdraw(api, account, 250, f"w-{uid}")
    assert crashed.injected == 1
    record = _record(raw_client, "withdraw", f"w-{uid}")
    assert record is not None and record["status"] == "INPROGRESS"
    # The in-progress record expires with the invocation's remaining time, not after an hour.
    assert record["in_progress_expiration"] <= int(time.time() * 1000) + 1500
    in_flight = _withdraw(api, account, 250, f"w-{uid}")
    assert in_flight.status == 409 and in_flight.code == "request_in_progress"
    time.sleep(1.2)
    retried = _withdraw(api, account, 250, f"w-{uid}")
    assert retried.status == 201 and retried.json["amountCents"] == 250
    state = balance(api, "alice", account)
    assert state["clearedCents"] == 750
    assert [e["type"] for e in state["entries"]].count("withdrawal") == 1


def test_each_function_has_its_own_persistence_layer(api, uid):
    """Pitfall: a persistence layer shared by two functions keeps the first one's config."""
    deposit = importlib.import_module("ledger.deposit").endpoint.idempotency
    withdraw = importlib.import_module("ledger.withdraw").endpoint.idempotency
    assert deposit is not None and withdraw is not None
    assert deposit.persistence is not withdraw.persistence
    assert deposit.persistence.static_pk_value == "IDEMPOTENCY#deposit"
    assert withdraw.persistence.static_pk_value == "IDEMPOTENCY#withdraw"
    # Same caller, same key, two routes: two independent requests, both applied.
    account = open_funded_ledger(api, "alice", 0)
    assert _deposit(api, account, 500, f"k-{uid}").status == 201
    assert _withdraw(api, account, 200, f"k-{uid}").status == 201
    assert balance(api, "alice", account)["clearedCents"] == 300


def test_create_account_with_key_replays_the_first_201(api, uid):
    body = {"email": f"{uid}@replay.example", "username": f"r{uid}"}
    first = api.post("/accounts", body, idempotency_key=f"acct-{uid}")
    again = api.post("/accounts", body, idempotency_key=f"acct-{uid}")
    assert first.status == 201 and (again.status, again.json) == (first.status, first.json)
    assert first.header("Location") == again.header("Location")


def test_get_routes_do_not_record_keys(api, raw_client, uid):
    account = create_account(api, "alice")
    reply = api.get(f"/accounts/{account}", headers={"Idempotency-Key": f"g-{uid}"})
    assert reply.status == 200
    items = raw_client.query(
        TableName="ddbguard-test",
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": "IDEMPOTENCY#get_account"}},
    )["Items"]
    assert items == []


def test_idempotency_records_use_the_table_ttl_attribute(api, raw_client, uid):
    account = open_funded_ledger(api, "alice", 0)
    assert _deposit(api, account, 5, f"ttl-{uid}").status == 201
    record = _record(raw_client, "deposit", f"ttl-{uid}")
    assert record is not None and record["status"] == "COMPLETED"
    assert (
        isinstance(record["expiration"], int)
        and time.time() + 23 * 3600 < record["expiration"] < time.time() + 25 * 3600
    )
