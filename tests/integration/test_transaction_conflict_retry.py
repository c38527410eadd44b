"""A cancellation that is not ConditionalCheckFailed is "the store was busy", never "taken".

DynamoDB Local never answers TransactionConflict or throttles, so those answers are injected on
ddbguard's own client for the first N TransactWriteItems calls; later calls reach DynamoDB Local.
"""

from __future__ import annotations

from ddbguard.store.transient import TRANSACTION_ATTEMPTS as MAX_ATTEMPTS
from tests.support.faults import throttling, transaction_conflicts
from tests.support.table_reads import lock_owner


def test_conflicts_within_the_retry_budget_end_in_201(api, ddb_client, raw_client, uid):
    body = {"email": f"Conflict@{uid}.io", "username": f"conflict_{uid}"}
    with transaction_conflicts(ddb_client, times=MAX_ATTEMPTS - 1) as injection:
        reply = api.post("/accounts", body)
    assert reply.status == 201, reply.json
    assert injection.injected == MAX_ATTEMPTS - 1
    assert injection.passed == 1
    owner = f"ACCT#{reply.json['accountId']}"
    assert lock_owner(raw_client, "EMAIL", f"conflict@{uid}.io") == owner
    assert lock_owner(raw_client, "HANDLE", f"conflict_{uid}") == owner


def test_conflicts_beyond_the_budget_are_503_busy_and_nothing_is_written(api, ddb_client, raw_client, uid):
    body = {"email": f"busy@{uid}.io", "username": f"busy_{uid}"}
    with transaction_conflicts(ddb_client, times=MAX_ATTEMPTS * 2) as injection:
        reply = api.post("/accounts", body)
    assert reply.status == 503
    assert reply.code == "busy"
    assert reply.header("Retry-After") == "1"
    assert reply.header("Content-Type") == "application/problem+json"
    assert injection.injected == MAX_ATTEMPTS  # bounded: it gave up, it did not spin
    assert injection.passed == 0
    assert lock_owner(raw_client, "EMAIL", f"busy@{uid}.io") is None
    assert lock_owner(raw_client, "HANDLE", f"busy_{uid}") is None
    # The values were never taken: the same sign-up succeeds once the store calms down.
    assert api.post("/accounts", body).status == 201


def test_conflicts_during_an_email_change_are_retried_not_reported_as_taken(api, ddb_client, raw_client, uid):
    account = api.post("/accounts", {"email": f"before@{uid}.io", "username": f"mover_{uid}"}).json
    with transaction_conflicts(ddb_client, times=2) as injection:
        reply = api.patch(f"/accounts/{account['accountId']}", {"email": f"after@{uid}.io"}, if_match=0)
    assert reply.status == 200, reply.json
    assert reply.json["version"] == 1
    assert injection.injected == 2
    assert lock_owner(raw_client, "EMAIL", f"after@{uid}.io") == f"ACCT#{account['accountId']}"
    assert lock_owner(raw_client, "EMAIL", f"before@{uid}.io") is None


def test_conflicts_during_a_delete_are_retried(api, ddb_client, raw_client, uid):
    account = api.post("/accounts", {"email": f"leaving@{uid}.io", "username": f"leaving_{uid}"}).json
    with transaction_conflicts(ddb_client, times=3):
        reply = api.delete(f"/accounts/{account['accountId']}", if_match=0)
    assert reply.status == 204
    assert lock_owner(raw_client, "EMAIL", f"leaving@{uid}.io") is None


def test_throttled_transaction_is_retried(api, ddb_client, raw_client, uid):
    with throttling(ddb_client, "TransactWriteItems", times=2) as injection:
        reply = api.post("/accounts", {"email": f"throttled@{uid}.io", "username": f"throttled_{uid}"})
    assert reply.status == 201
    assert injection.injected == 2
    assert lock_owner(raw_client, "EMAIL", f"throttled@{uid}.io") == f"ACCT#{reply.json['accountId']}"


def test_read_throttled_past_botocore_retries_is_503_busy(api, ddb_client, uid):
    account = api.post("/accounts", {"email": f"reader@{uid}.io", "username": f"reader_{uid}"}).json
    with throttling(ddb_client, "GetItem", times=4):  # botocore: max_attempts=3 retries, 4 tries in all
        reply = api.get(f"/accounts/{account['accountId']}")
    assert reply.status == 503
    assert reply.code == "busy"
    assert reply.header("Retry-After") == "1"
    assert api.get(f"/accounts/{account['accountId']}").status == 200
