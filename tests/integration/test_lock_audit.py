"""The lock audit on a table of its own: finds orphan and missing locks, repairs them safely, then is clean.

Each test gets a fresh table in the session's DynamoDB Local, so "the audit is clean" means
exactly what it says and the shared table's other tests are never audited or repaired.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from ddbguard.domain import accounts, lock_audit
from ddbguard.domain.lock_audit import LOCK_HELD_BY_OTHER, MISSING_LOCK, ORPHAN_LOCK, Finding
from ddbguard.store import keys
from local.lambda_context import LambdaContext
from local.paths import ROOT
from tests.support.audit_calls import file_under_the_audit_function
from tests.support.private_table import private_table
from tests.support.table_reads import lock_owner, lock_pk


@pytest.fixture(autouse=True)
def _audit_calls_count_against_the_audit_function(monkeypatch):
    """The audit's DynamoDB calls are filed under the audit Lambda's grant (tests/test_table_access.py); the
    seeding through the layer is not."""
    file_under_the_audit_function(monkeypatch)


@pytest.fixture
def audit_table(dynamodb_local, raw_client, monkeypatch, uid):
    yield from private_table(raw_client, monkeypatch, f"ddbguard-audit-{uid}")


def _key(pk: str, sk: str) -> dict:
    return {"PK": {"S": pk}, "SK": {"S": sk}}


def put_raw(raw_client, table: str, item: dict) -> None:
    raw_client.put_item(TableName=table, Item={k: {"S": v} for k, v in item.items()})


def _seed_broken_table(raw_client, table: str, uid: str) -> dict:
    """Two healthy accounts, then: a lock whose owner is gone, a lock left behind by an old value,
    and an account whose email lock vanished."""
    ada = accounts.create_account("alice", email=f"ada@{uid}.io", username=f"ada_{uid}")
    bob = accounts.create_account("bob", email=f"bob@{uid}.io", username=f"bob_{uid}")
    # Locks as the service writes them, with the value they were taken for (its key is how the value reads).
    ghost, former = f"ghost@{uid}.io", f"former_{uid}"
    put_raw(
        raw_client, table, {"PK": lock_pk("EMAIL", ghost), "SK": "LOCK", "owner": f"ACCT#ghost-{uid}", "value": ghost}
    )
    former_owner = f"ACCT#{ada['accountId']}"
    put_raw(raw_client, table, {"PK": lock_pk("HANDLE", former), "SK": "LOCK", "owner": former_owner, "value": former})
    raw_client.delete_item(TableName=table, Key=_key(lock_pk("EMAIL", f"bob@{uid}.io"), "LOCK"))
    return {"ada": ada, "bob": bob}


def _problems(report) -> set[tuple[str, str | None, str | None]]:
    return {(f.problem, f.field, f.value) for f in report.findings}


def test_audit_finds_both_repair_fixes_both_and_a_second_audit_is_clean(audit_table, raw_client, uid):
    seeded = _seed_broken_table(raw_client, audit_table, uid)
    bob_owner = f"ACCT#{seeded['bob']['accountId']}"

    found = lock_audit.audit_locks()
    assert _problems(found) == {
        (ORPHAN_LOCK, "email", f"ghost@{uid}.io"),
        (ORPHAN_LOCK, "username", f"former_{uid}"),
        (MISSING_LOCK, "email", f"bob@{uid}.io"),
    }
    assert not any(f.repaired for f in found.findings)
    assert found.locks_scanned == 5
    assert found.accounts_scanned == 2
    # Reporting changes nothing.
    assert lock_owner(raw_client, "EMAIL", table=audit_table, value=f"ghost@{uid}.io") == f"ACCT#ghost-{uid}"
    assert lock_owner(raw_client, "EMAIL", table=audit_table, value=f"bob@{uid}.io") is None

    repaired = lock_audit.audit_locks(repair=True)
    assert _problems(repaired) == _problems(found)
    assert all(f.repaired for f in repaired.findings)
    assert repaired.clean
    assert lock_owner(raw_client, "EMAIL", table=audit_table, value=f"ghost@{uid}.io") is None
    assert lock_owner(raw_client, "HANDLE", table=audit_table, value=f"former_{uid}") is None
    assert lock_owner(raw_client, "EMAIL", table=audit_table, value=f"bob@{uid}.io") == bob_owner
    # Healthy locks were left alone.
    assert (
        lock_owner(raw_client, "EMAIL", table=audit_table, value=f"ada@{uid}.io")
        == f"ACCT#{seeded['ada']['accountId']}"
    )

    again = lock_audit.audit_locks()
    assert again.findings == []
    assert again.clean
    assert again.locks_scanned == 4


def test_a_lock_held_by_an_item_of_another_kind_is_an_orphan_that_says_so(audit_table, raw_client, uid):
    order_owner = f"ORDER#{uid}"  # a partition of another entity: an order cannot hold an account's email
    put_raw(
        raw_client,
        audit_table,
        {"PK": lock_pk("EMAIL", f"odd@{uid}.io"), "SK": "LOCK", "owner": order_owner, "value": f"odd@{uid}.io"},
    )
    (finding,) = lock_audit.audit_locks(repair=True).findings
    assert (finding.problem, finding.field, finding.value) == (ORPHAN_LOCK, "email", f"odd@{uid}.io")
    assert finding.detail == f"owner {order_owner!r} is no account item: only account items hold email locks"
    assert finding.repaired
    assert lock_owner(raw_client, "EMAIL", table=audit_table, value=f"odd@{uid}.io") is None


def test_a_vanished_username_lock_is_put_back(audit_table, raw_client, uid):
    cy = accounts.create_account("carol", email=f"cy@{uid}.io", username=f"cy_{uid}")
    raw_client.delete_item(TableName=audit_table, Key=_key(lock_pk("HANDLE", f"cy_{uid}"), "LOCK"))

    repaired = lock_audit.audit_locks(repair=True)

    assert _problems(repaired) == {(MISSING_LOCK, "username", f"cy_{uid}")}
    assert repaired.clean
    assert lock_owner(raw_client, "HANDLE", table=audit_table, value=f"cy_{uid}") == f"ACCT#{cy['accountId']}"


def test_two_accounts_claiming_one_value_are_reported_and_left_to_a_person(audit_table, raw_client, uid):
    ada = accounts.create_account("alice", email=f"shared@{uid}.io", username=f"ada_{uid}")
    eve = accounts.create_account("eve", email=f"eve@{uid}.io", username=f"eve_{uid}")
    # Bypass the service: eve's email is overwritten with ada's.
    raw_client.update_item(
        TableName=audit_table,
        Key=_key(f"ACCT#{eve['accountId']}", "PROFILE"),
        UpdateExpression="SET #e = :e",
        ExpressionAttributeNames={"#e": "email"},
        ExpressionAttributeValues={":e": {"S": f"shared@{uid}.io"}},
    )
    report = lock_audit.audit_locks(repair=True)
    assert _problems(report) == {
        (ORPHAN_LOCK, "email", f"eve@{uid}.io"),  # eve's old lock: repaired
        (LOCK_HELD_BY_OTHER, "email", f"shared@{uid}.io"),  # a person decides
    }
    held = next(f for f in report.findings if f.problem == LOCK_HELD_BY_OTHER)
    assert (held.entity, held.owner_id) == ("account", eve["accountId"])
    assert not held.repaired
    assert [f.problem for f in report.unrepaired] == [LOCK_HELD_BY_OTHER]
    assert lock_owner(raw_client, "EMAIL", table=audit_table, value=f"shared@{uid}.io") == f"ACCT#{ada['accountId']}"
    assert lock_owner(raw_client, "EMAIL", table=audit_table, value=f"eve@{uid}.io") is None


def test_a_repair_never_deletes_a_lock_that_became_valid(audit_table, raw_client, uid):
    # A finding judged from a scan that raced a sign-up: by repair time the owner exists and
    # holds the value, so the conditional repair refuses and the lock stays.
    account = accounts.create_account("alice", email=f"raced@{uid}.io", username=f"raced_{uid}")
    stale = Finding(
        problem=ORPHAN_LOCK,
        lock=lock_pk("EMAIL", f"raced@{uid}.io"),
        owner_id=account["accountId"],
        field="email",
        value=f"raced@{uid}.io",
        detail="owner missing",
    )
    assert lock_audit._repair(stale) is False
    assert lock_owner(raw_client, "EMAIL", table=audit_table, value=f"raced@{uid}.io") == f"ACCT#{account['accountId']}"
    assert lock_audit.audit_locks().findings == []


# The scheduled handler (fan-out over Scan segments, continuations) is tested in test_audit_scan.py.


def _cli(dynamodb_local, table: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DYNAMODB_PORT": str(urlsplit(dynamodb_local.endpoint).port), "TABLE_NAME": table}
    return subprocess.run(
        [sys.executable, "-m", "local.audit_locks", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_exit_code_says_whether_anything_is_left_broken(dynamodb_local, audit_table, raw_client, uid):
    _seed_broken_table(raw_client, audit_table, uid)
    report_only = _cli(dynamodb_local, audit_table)
    assert report_only.returncode == 1, report_only.stderr
    assert "orphan_lock" in report_only.stdout
    assert f"ghost@{uid}.io" in report_only.stdout
    assert "missing_lock" in report_only.stdout
    assert lock_owner(raw_client, "EMAIL", table=audit_table, value=f"ghost@{uid}.io") is not None

    repaired = _cli(dynamodb_local, audit_table, "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "3 repaired, 0 unrepaired" in repaired.stdout

    clean = _cli(dynamodb_local, audit_table)
    assert clean.returncode == 0
    assert "0 findings" in clean.stdout


def test_scheduled_handler_logs_findings_without_their_values(audit_table, raw_client, uid):
    import io
    import logging

    from audit.audit_locks import handler
    from ddbguard.observability import logger

    _seed_broken_table(raw_client, audit_table, uid)
    buffer = io.StringIO()
    capture = logging.StreamHandler(buffer)
    capture.setFormatter(logger.registered_formatter)
    service_log = logging.getLogger(logger.name)
    service_log.addHandler(capture)
    try:
        # One segment covering the whole table (the scheduled event fans out to these: test_audit_scan.py).
        handler({"segment": 0, "totalSegments": 1}, LambdaContext(function_name="ddbguard-audit-locks"))
    finally:
        service_log.removeHandler(capture)

    findings = [json.loads(line) for line in buffer.getvalue().splitlines() if "lock audit finding" in line]
    assert len(findings) == 3
    text = buffer.getvalue()
    for value in (f"ghost@{uid}.io", f"former_{uid}", f"bob@{uid}.io"):
        assert value not in text
    assert all(f["valueTag"].startswith("hmac-sha256:") for f in findings)
    assert all(f["lock"].startswith(("UNIQ#EMAIL#hmac-sha256:", "UNIQ#HANDLE#hmac-sha256:")) for f in findings)


# --- values that read several ways hold a lock per reading ------------------------------------

GREEK_NU = "\u03bd"  # reads as v, and as N in capitals: two locks


def _partitions(kind: str, value: str) -> list[str]:
    return [key["PK"] for key in keys.lock_keys(kind, value)]


def test_a_value_that_reads_two_ways_holds_both_locks_and_the_audit_agrees(audit_table, raw_client, uid):
    email = f"{GREEK_NU}a{uid}@x.io"
    account = accounts.create_account("alice", email=email, username=f"nu_{uid}")
    locks = _partitions("EMAIL", account["email"])
    assert len(locks) == 2
    for lock in locks:
        assert raw_client.get_item(TableName=audit_table, Key=_key(lock, "LOCK"))["Item"]["owner"]["S"].endswith(
            account["accountId"]
        )
    assert lock_audit.audit_locks().findings == []


def test_one_missing_reading_lock_is_found_and_put_back(audit_table, raw_client, uid):
    account = accounts.create_account("alice", email=f"{GREEK_NU}b{uid}@x.io", username=f"nub_{uid}")
    gone = _partitions("EMAIL", account["email"])[1]
    raw_client.delete_item(TableName=audit_table, Key=_key(gone, "LOCK"))
    repaired = lock_audit.audit_locks(repair=True)
    assert [(f.problem, f.lock) for f in repaired.findings] == [(MISSING_LOCK, gone)]
    assert repaired.clean
    assert lock_audit.audit_locks().findings == []


def test_the_audit_moves_a_lock_of_an_earlier_rule_to_every_reading_in_one_run(audit_table, raw_client, uid):
    """Before a value could read several ways, `<nu>c…` had one lock keyed by the value itself; the audit's repair
    deletes it and puts both current locks, in one transaction, and the next run finds nothing."""
    account = accounts.create_account("alice", email=f"{GREEK_NU}c{uid}@x.io", username=f"nuc_{uid}")
    current = _partitions("EMAIL", account["email"])
    lock = raw_client.get_item(TableName=audit_table, Key=_key(current[0], "LOCK"))["Item"]
    for partition in current:
        raw_client.delete_item(TableName=audit_table, Key=_key(partition, "LOCK"))
    earlier = keys.lock_partition("EMAIL", account["email"])
    raw_client.put_item(TableName=audit_table, Item={**lock, "PK": {"S": earlier}})
    repaired = lock_audit.audit_locks(repair=True)
    assert lock_audit.STALE_LOCK_KEY in {f.problem for f in repaired.findings}
    assert repaired.clean, repaired.findings
    assert lock_audit.audit_locks().findings == []
    assert raw_client.get_item(TableName=audit_table, Key=_key(earlier, "LOCK")).get("Item") is None
    assert lock_owner(raw_client, "EMAIL", account["email"], table=audit_table) == f"ACCT#{account['accountId']}"


def test_a_change_swaps_only_the_locks_that_differ_and_a_delete_frees_them_all(api, audit_table, raw_client, uid):
    created = api.post("/accounts", {"email": f"{GREEK_NU}d{uid}@x.io", "username": f"nud_{uid}"})
    assert created.status == 201, created.json
    before = set(_partitions("EMAIL", created.json["email"]))
    changed = api.patch(f"/accounts/{created.json['accountId']}", {"email": f"vd{uid}@x.io"}, if_match=0)
    assert changed.status == 200, changed.json
    after = set(_partitions("EMAIL", changed.json["email"]))
    assert after < before  # `v…` is one of the readings of `<nu>…`: its lock stays, the other goes
    assert lock_audit.audit_locks().findings == []
    assert api.delete(f"/accounts/{created.json['accountId']}", if_match=1).status == 204
    for partition in before:
        assert raw_client.get_item(TableName=audit_table, Key=_key(partition, "LOCK")).get("Item") is None
