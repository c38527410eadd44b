"""The lock audit at scale: parallel Scan segments, each resumable from its checkpoint, driven as the deployed Step
Functions state machine drives the segment worker (local.audit_run: same worker, same retry and loop rules).

No function invokes another, so a segment of any length is a loop of the state machine, never a recursion chain:
a chain far past the 16 invocations at which Lambda's recursive-loop detection would stop one completes. A step
that fails is retried from its checkpoint; a segment whose steps keep failing is reported as not covered, and the
next run covers it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ddbguard.domain import accounts, audit_scan, lock_audit
from ddbguard.domain.lock_audit import MISSING_LOCK, ORPHAN_LOCK
from ddbguard.errors import Busy
from local import audit_run
from local.invocation import running
from tests.integration.test_lock_audit import _problems, _seed_broken_table, audit_table  # noqa: F401 - fixture

EXPECTED_PROBLEMS = {ORPHAN_LOCK: 2, MISSING_LOCK: 1}


def _by_problem(run: audit_run.RunReport) -> dict[str, int]:
    found: dict[str, int] = {}
    for segment in run.segments:
        for result in segment.results:
            for problem, n in (result.get("byProblem") or {}).items():
                found[problem] = found.get(problem, 0) + n
    return found


def _small_pages(monkeypatch: pytest.MonkeyPatch, fail_on: set[int] | None = None) -> list[int]:
    """Scan pages of one item; the calls numbered in `fail_on` (from 1) raise Busy, as a throttled Scan would."""
    calls: list[int] = []
    scan = audit_scan.scan_segment_page

    def one_item_pages(*args: Any, **kwargs: Any) -> Any:
        calls.append(len(calls) + 1)
        if fail_on and calls[-1] in fail_on:
            raise Busy("throttled (injected)")
        return scan(*args, **{**kwargs, "page_size": 1})

    monkeypatch.setattr(audit_scan, "scan_segment_page", one_item_pages)
    return calls


def test_a_run_fans_out_repairs_and_reports_the_whole_table_covered(audit_table, raw_client, uid):  # noqa: F811
    _seed_broken_table(raw_client, audit_table, uid)
    run = audit_run.run_audit(3)
    assert [segment.steps for segment in run.segments] == [1, 1, 1]  # time was ample: one step per segment
    assert run.total("findings") == run.total("repaired") == 3 and run.total("unrepaired") == 0
    assert _by_problem(run) == EXPECTED_PROBLEMS
    assert run.summary == {"segments": 3, "uncoveredSegments": [], "wholeTableCovered": True}
    assert lock_audit.audit_locks().clean


def test_a_segment_of_more_than_16_steps_completes_and_misses_nothing(audit_table, raw_client, uid, monkeypatch):  # noqa: F811
    _seed_broken_table(raw_client, audit_table, uid)
    for index in range(8):  # 24 more audited items: 8 accounts and their 16 locks
        accounts.create_account("carol", email=f"c{index}@{uid}.io", username=f"c{index}_{uid}")
    _small_pages(monkeypatch)
    run = audit_run.run_audit(1, max_pages=1)  # one page of one item per step
    (segment,) = run.segments
    assert segment.steps > 16 and segment.done, segment.steps
    assert run.summary["wholeTableCovered"] is True
    assert run.total("accountsScanned") == 10 and run.total("findings") == 3
    assert lock_audit.audit_locks().clean


def test_a_failed_step_is_retried_from_its_checkpoint(audit_table, raw_client, uid, monkeypatch):  # noqa: F811
    _seed_broken_table(raw_client, audit_table, uid)
    sequential = lock_audit.audit_locks()
    calls = _small_pages(monkeypatch, fail_on={3, 4})  # the third step fails twice, then goes through
    run = audit_run.run_audit(1, max_pages=1)
    (segment,) = run.segments
    assert segment.failed_attempts == 2 and segment.done and len(calls) == segment.steps + 2
    # Resumed from the checkpoint: every item audited once, nothing skipped, nothing twice (plus bob's email lock,
    # re-created by the repair, when a later page of the run reaches it).
    assert run.total("locksScanned") in (sequential.locks_scanned, sequential.locks_scanned + 1)
    assert run.total("accountsScanned") == sequential.accounts_scanned
    assert run.summary["wholeTableCovered"] is True


def test_a_segment_failing_midway_is_reported_uncovered_and_the_next_run_covers_it(
    audit_table,  # noqa: F811
    raw_client,
    uid,
    monkeypatch,
):
    _seed_broken_table(raw_client, audit_table, uid)
    # The third step of the segment fails on every attempt: the segment ends after two pages.
    full_pages = audit_scan.scan_segment_page
    calls = _small_pages(monkeypatch, fail_on=set(range(3, 3 + audit_run.STEP_ATTEMPTS)))
    first = audit_run.run_audit(1, max_pages=1)
    assert first.summary == {"segments": 1, "uncoveredSegments": [0], "wholeTableCovered": False}
    seen_first = first.total("locksScanned") + first.total("accountsScanned")
    assert first.segments[0].steps == 2 and seen_first <= 2  # two pages of one item read, then the failure

    monkeypatch.setattr(audit_scan, "scan_segment_page", full_pages)  # the fault is gone
    calls.clear()
    remaining = lock_audit.audit_locks()  # what the table holds now (report only; the first run repaired some)
    second = audit_run.run_audit(1)
    assert second.summary["wholeTableCovered"] is True
    # The next run reads the whole table again: the part the failed segment never reached included.
    assert second.total("locksScanned") == remaining.locks_scanned
    assert second.total("accountsScanned") == remaining.accounts_scanned
    assert remaining.locks_scanned + remaining.accounts_scanned > seen_first
    assert lock_audit.audit_locks().clean


def test_the_worker_invokes_nothing(audit_table, raw_client, uid, monkeypatch):  # noqa: F811
    """No Lambda client anywhere in the worker: its loop is the state machine's, so no recursion chain exists."""
    import audit.audit_locks as worker
    import ddbguard_jobs.audit_locks as library_worker

    for module in (worker, library_worker):
        source = Path(module.__file__).read_text(encoding="utf-8")
        assert "boto3" not in source and "invoke(" not in source
    _seed_broken_table(raw_client, audit_table, uid)
    with running("audit_locks"):
        step = worker.handler({"segment": 0, "totalSegments": 1, "checkpoint": None}, _context())
    assert step["done"] is True and step["checkpoint"] is None and step["findings"] == 3


def _context() -> Any:
    from local.lambda_context import LambdaContext

    return LambdaContext(function_name="ddbguard-audit-locks", timeout_s=300)


@pytest.mark.parametrize("segments", [1, 2, 5])
def test_parallel_segments_find_exactly_what_the_sequential_audit_finds(audit_table, raw_client, uid, segments):  # noqa: F811
    _seed_broken_table(raw_client, audit_table, uid)
    sequential = lock_audit.audit_locks()
    with running("audit_locks"):
        parallel = audit_scan.audit_in_parallel(segments, page_size=2)
    assert _problems(parallel) == _problems(sequential)
    assert parallel.locks_scanned == sequential.locks_scanned
    assert parallel.accounts_scanned == sequential.accounts_scanned


def test_a_continuation_survives_json_and_rejects_a_segment_outside_the_run(audit_table) -> None:  # noqa: F811
    import json

    where = audit_scan.Continuation(2, 4, {"PK": {"S": "ACCT#x"}, "SK": {"S": "PROFILE"}})
    assert audit_scan.Continuation.from_event(json.loads(json.dumps(where.to_event()))) == where
    with pytest.raises(ValueError):
        audit_scan.Continuation.from_event({"segment": 4, "totalSegments": 4})
