"""Lock audit segment worker, run by the audit's Step Functions state machine (`ddbguard_cdk.LockAuditRun`; not an
API route).

A run is a Distributed Map over Scan segments. Each segment is a loop in its own child execution: this function
audits pages from the segment's checkpoint until the segment is done or its time runs short, and returns the next
checkpoint; the state machine invokes it again from there (ddbguard.domain.audit_scan). So no invocation outlives
its timeout whatever the table's size, no function invokes another (nothing for Lambda's recursive-loop detection to
stop), and a failed invocation is retried by the state machine from the last checkpoint, not from the segment's
start. A checkpoint is a random token naming the Scan's key, which the worker keeps in the table
(ddbguard.store.audit_checkpoints): that key may be a lock's, holding an email or a username, and nothing personal
goes into the execution's history. A segment that still fails ends as not covered; the run's last step
(`{"segments": [...]}`) emits `LockAuditUncoveredSegments`, which alarms when a run did not cover the whole table.

Each finding is logged with its value and lock key as keyed hashes (ddbguard.domain.pseudonyms), never the email or
username itself; nothing the audit returns reaches the trace. `LockAuditFinding` and `LockAuditUnrepaired` counts
go to CloudWatch from every invocation, so an alarm can fire when a finding could not be repaired (two accounts
claiming one value).

Which entities it audits: `handler_for(entities)` (the product's functions/audit/audit_locks.py passes its route
table's), or `handler`: the entities of the modules named in `DDBGUARD_ENTITY_MODULES` (comma-separated, from the
function's own code: a team's entity declarations; ddbguard_jobs.entity_modules), or every declared one without it.
"""

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ddbguard.domain import audit_scan
from ddbguard.domain.audit_scan import Continuation
from ddbguard.domain.pseudonyms import Pseudonyms
from ddbguard.guards.entity import Entity
from ddbguard.observability import MetricName, count, logger, metrics, tracer
from ddbguard_jobs.entity_modules import ENTITY_MODULES_VARIABLE, entities_in, module_names

__all__ = ["ENTITY_MODULES_VARIABLE", "handler", "handler_for"]
Handler = Callable[[Mapping[str, Any], Any], Mapping[str, Any]]

# Leave this much of the invocation's time for the last page and the metrics.
RESERVE_SECONDS = 30.0


def _audit(event: Mapping[str, Any], context: Any, entities: Sequence[Entity]) -> Mapping[str, Any]:
    where = Continuation.from_event(event)
    max_pages = event.get("maxPages")
    result = audit_scan.audit_segment(
        where,
        repair=True,
        seconds_left=lambda: context.get_remaining_time_in_millis() / 1000,
        reserve_s=RESERVE_SECONDS,
        max_pages=int(max_pages) if max_pages else None,
        entities=entities,
    )
    pseudonyms = Pseudonyms()
    for finding in result.report.findings:
        logger.warning("lock audit finding", extra=pseudonyms.finding(finding))
    count(MetricName.LOCK_AUDIT_FINDING, len(result.report.findings))
    count(MetricName.LOCK_AUDIT_UNREPAIRED, len(result.report.unrepaired))
    summary = {**result.report.summary(), "pages": result.pages, "continued": result.next is not None}
    logger.info("lock audit step done", extra={**summary, "segment": where.segment})
    done = Continuation(where.segment, where.total_segments)  # no checkpoint: nothing left to resume
    checkpoint = (result.next or done).to_event()
    # What the state machine passes to the segment's next step (or ends the loop on): the checkpoint, and whether
    # the segment is done; the counts are for the execution history.
    return {**checkpoint, **({"maxPages": max_pages} if max_pages else {}), "done": result.next is None, **summary}


def _report(segments: list[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The run's coverage: a segment not done (its steps kept failing) leaves part of the table unaudited."""
    uncovered = sorted(int(s["segment"]) for s in segments if not s.get("done"))
    count(MetricName.LOCK_AUDIT_UNCOVERED_SEGMENTS, len(uncovered))
    summary = {"segments": len(segments), "uncoveredSegments": uncovered, "wholeTableCovered": not uncovered}
    (logger.warning if uncovered else logger.info)("lock audit run done", extra=summary)
    return summary


def handler_for(entities: Sequence[Entity]) -> Handler:
    """The worker's Lambda handler, auditing `entities` (those with unique fields)."""

    @logger.inject_lambda_context(clear_state=True)
    @tracer.capture_lambda_handler(capture_response=False, capture_error=False)
    def handler(event: Mapping[str, Any], context: Any) -> Mapping[str, Any]:
        try:
            if "segments" in (event or {}):
                return _report(list(event["segments"]))
            return _audit(event, context, entities)
        finally:
            if metrics.metric_set:
                metrics.flush_metrics()

    return handler


# A team's stack (ddbguard_cdk.GuardedTable) names its entity modules in the function's environment; without them,
# every declared entity (ddbguard.domain.lock_audit).
handler = handler_for(entities_in(module_names(os.environ.get(ENTITY_MODULES_VARIABLE, ""))))
