"""The lock audit at scale: parallel Scan segments, each resumable, and the scheduled handler that fans a run out
and passes continuations on by invoking itself (here a local stand-in for Lambda's asynchronous invoke).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest

from ddbguard.domain import audit_scan, lock_audit
from ddbguard.domain.lock_audit import MISSING_LOCK, ORPHAN_LOCK
from local.invocation import running
from local.lambda_context import LambdaContext
from tests.integration.test_lock_audit import _problems, _seed_broken_table, audit_table  # noqa: F401 - fixture

EXPECTED_PROBLEMS = {ORPHAN_LOCK: 2, MISSING_LOCK: 1}


def _run_handler_chain(monkeypatch: pytest.MonkeyPatch, *, timeout_s: float, reserve_s: float) -> list[dict]:
    """Run the scheduled event, then every invocation it (and its successors) asked for, as Lambda would."""
    import audit.audit_locks as function

    queued: deque[dict[str, Any]] = deque()
    monkeypatch.setattr(function, "_invoke_self", lambda _context, event: queued.append(event))
    monkeypatch.setattr(function, "RESERVE_SECONDS", reserve_s)
    monkeypatch.setenv("AUDIT_SEGMENTS", "3")
    context = LambdaContext(function_name="ddbguard-audit-locks", timeout_s=timeout_s)
    with running("audit_locks"):
        started = function.handler({"source": "aws.events"}, context)
        assert started == {"segments": 3}
        summaries = []
        while queued:
            summaries.append(function.handler(queued.popleft(), LambdaContext("ddbguard-audit-locks", timeout_s)))
    return summaries


def test_scheduled_handler_fans_out_repairs_and_reports_counts(audit_table, raw_client, uid, monkeypatch):  # noqa: F811
    _seed_broken_table(raw_client, audit_table, uid)
    summaries = _run_handler_chain(monkeypatch, timeout_s=300, reserve_s=30)
    assert sorted(s["segment"] for s in summaries) == [0, 1, 2]  # one invocation per segment: time was ample
    assert sum(s["findings"] for s in summaries) == 3
    assert sum(s["repaired"] for s in summaries) == 3
    assert sum(s["unrepaired"] for s in summaries) == 0
    by_problem: dict[str, int] = {}
    for summary in summaries:
        for problem, n in summary["byProblem"].items():
            by_problem[problem] = by_problem.get(problem, 0) + n
    assert by_problem == EXPECTED_PROBLEMS
    assert lock_audit.audit_locks().clean


def test_a_segment_short_of_time_continues_in_a_new_invocation_and_misses_nothing(
    audit_table,  # noqa: F811
    raw_client,
    uid,
    monkeypatch,
):
    _seed_broken_table(raw_client, audit_table, uid)
    monkeypatch.setattr(audit_scan, "scan_segment_page", _small_pages(audit_scan.scan_segment_page))
    # Every invocation is always short of time: each audits one page, then hands the rest on.
    summaries = _run_handler_chain(monkeypatch, timeout_s=10, reserve_s=60)
    assert any(s["continued"] for s in summaries)
    assert all(s["pages"] == 1 for s in summaries)
    # ada's, bob's username, ghost, former; plus bob's re-created email lock when a later page of the run reaches it
    assert sum(s["locksScanned"] for s in summaries) in (4 + 1, 4 + 2)
    assert sum(s["accountsScanned"] for s in summaries) == 2
    assert sum(s["findings"] for s in summaries) == 3
    assert lock_audit.audit_locks().clean


def _small_pages(scan: Any) -> Any:
    def one_item_pages(*args: Any, **kwargs: Any) -> Any:
        return scan(*args, **{**kwargs, "page_size": 1})

    return one_item_pages


@pytest.mark.parametrize("segments", [1, 2, 5])
def test_parallel_segments_find_exactly_what_the_sequential_audit_finds(audit_table, raw_client, uid, segments):  # noqa: F811
    _seed_broken_table(raw_client, audit_table, uid)
    sequential = lock_audit.audit_locks()
    with running("audit_locks"):
        parallel = audit_scan.audit_in_parallel(segments, page_size=2)
    assert _problems(parallel) == _problems(sequential)
    assert parallel.locks_scanned == sequential.locks_scanned
    assert parallel.accounts_scanned == sequential.accounts_scanned


def test_a_continuation_survives_json_and_rejects_a_segment_outside_the_run() -> None:
    import json

    where = audit_scan.Continuation(2, 4, {"PK": {"S": "ACCT#x"}, "SK": {"S": "PROFILE"}})
    assert audit_scan.Continuation.from_event(json.loads(json.dumps(where.as_event()))) == where
    with pytest.raises(ValueError):
        audit_scan.Continuation.from_event({"segment": 4, "totalSegments": 4})
