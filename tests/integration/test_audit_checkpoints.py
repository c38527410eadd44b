"""The lock audit's checkpoints are opaque: nothing the state machine carries from step to step, nor anything a step
returns, holds an email, a username or a lock's key (ddbguard.store.audit_checkpoints), however the Scan's pages
fall. A Scan resumes from the key of the last item it read, and with pages of one item every lock of the table is
such a key at some step: those keys stay in the table, the execution's history gets random tokens.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ddbguard.domain import accounts, audit_scan
from ddbguard.store import audit_checkpoints
from local import audit_run
from local.invocation import running
from tests.integration.test_audit_scan import _context, _small_pages
from tests.integration.test_lock_audit import audit_table  # noqa: F401 - fixture


def _checkpoints(raw_client: Any, table: str) -> list[dict[str, Any]]:
    """Every checkpoint item in the table, as stored."""
    items = raw_client.scan(
        TableName=table,
        FilterExpression="begins_with(#pk, :prefix)",
        ExpressionAttributeNames={"#pk": "PK"},
        ExpressionAttributeValues={":prefix": {"S": audit_checkpoints.CHECKPOINT_PREFIX}},
    )["Items"]
    return items


def test_no_input_or_output_of_a_run_holds_an_email_a_username_or_a_lock(audit_table, raw_client, uid, monkeypatch):  # noqa: F811
    people = [(f"Ada.{index}.{uid}@Example.IO", f"ada_{index}_{uid}") for index in range(4)]
    for email, username in people:
        accounts.create_account(f"owner-{uid}", email=email, username=username)
    personal = {value for email, username in people for value in (email, email.lower(), username, username.lower())}
    _small_pages(monkeypatch)  # one item per page, one page per step: every item ends some step

    run = audit_run.run_audit(2, max_pages=1)

    assert run.summary["wholeTableCovered"] is True
    history = json.dumps(run.history())
    assert run.total("accountsScanned") >= len(people) and len(run.history()) > 2 * len(people) * 3
    for value in personal:
        assert value not in history, value
    assert "UNIQ#" not in history and "startKey" not in history
    tokens = [step["checkpoint"] for step in run.history() if step.get("checkpoint")]
    assert tokens and all(len(token) == 32 and int(token, 16) >= 0 for token in tokens)
    # The danger was there: some steps did end on a lock, whose key only the table kept.
    kept = [item[audit_checkpoints.START_KEY]["M"]["PK"]["S"] for item in _checkpoints(raw_client, audit_table)]
    assert any(key.startswith("UNIQ#") for key in kept)
    saved = _checkpoints(raw_client, audit_table)
    assert set(tokens) <= {item["PK"]["S"].removeprefix(audit_checkpoints.CHECKPOINT_PREFIX) for item in saved}


def test_a_checkpoint_expires_a_week_after_it_was_saved_and_reads_back_as_saved(audit_table, raw_client) -> None:  # noqa: F811
    key = {"PK": {"S": "UNIQ#EMAIL#someone@example.io"}, "SK": {"S": "LOCK"}}
    token = audit_checkpoints.save(key, now_s=1_000_000)
    assert audit_checkpoints.load(token) == key
    (item,) = [each for each in _checkpoints(raw_client, audit_table) if each["PK"]["S"].endswith(token)]
    assert int(item["expiration"]["N"]) == 1_000_000 + 7 * 86_400
    assert audit_checkpoints.save(key) != token  # a token names one checkpoint


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({}, "start a run with the stack's AuditRunInput"),
        ({"segment": 0, "totalSegments": 1, "checkpoint": "UNIQ#EMAIL#a@b.io"}, "not a token"),
        ({"segment": 0, "totalSegments": 1, "checkpoint": "0" * 32}, "no checkpoint"),
    ],
    ids=["empty", "a key, not a token", "unknown token"],
)
def test_the_worker_refuses_what_is_not_a_step_of_a_run_and_says_what_to_do(audit_table, event, message) -> None:  # noqa: F811
    import audit.audit_locks as worker

    with running("audit_locks"), pytest.raises(ValueError, match=message):
        worker.handler(event, _context())


def test_a_step_retried_with_the_same_token_resumes_from_the_same_key(audit_table, uid) -> None:  # noqa: F811
    accounts.create_account(f"owner-{uid}", email=f"r@{uid}.io", username=f"r_{uid}")
    where = audit_scan.Continuation(0, 1, {"PK": {"S": f"UNIQ#HANDLE#r_{uid}"}, "SK": {"S": "LOCK"}})
    event = json.loads(json.dumps(where.to_event()))
    assert audit_scan.Continuation.from_event(event) == audit_scan.Continuation.from_event(event) == where
