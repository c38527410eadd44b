"""Scheduled lock audit (EventBridge, daily; not an API route): find and safely repair broken uniqueness locks.

The schedule's event starts a run: this function invokes itself asynchronously once per Scan segment
(`AUDIT_SEGMENTS`). Each segment invocation audits pages until its time runs short, then invokes itself with the
continuation (ddbguard.domain.audit_scan), so no invocation outlives its timeout whatever the table's size.

Each finding is logged with its value and lock key as keyed hashes (ddbguard.pseudonyms), never the email or
username itself; nothing the audit returns reaches the trace. `LockAuditFinding` and `LockAuditUnrepaired` counts
go to CloudWatch from every invocation, so an alarm can fire when a finding could not be repaired (two accounts
claiming one value).
"""

import json
import os
from typing import Any

import boto3

import routes
from ddbguard.domain import audit_scan
from ddbguard.domain.pseudonyms import Pseudonyms
from ddbguard.observability import MetricName, count, logger, metrics, tracer

DEFAULT_SEGMENTS = 4
# Leave this much of the invocation's time for the last page, the metrics and the next invocation.
RESERVE_SECONDS = 30.0


def _invoke_self(context: Any, event: dict[str, Any]) -> None:
    """Asynchronously: the caller does not wait, and Lambda retries a throttled or failed start by itself."""
    boto3.client("lambda").invoke(
        FunctionName=context.invoked_function_arn, InvocationType="Event", Payload=json.dumps(event).encode()
    )


def _start_run(context: Any) -> dict[str, Any]:
    segments = int(os.environ.get("AUDIT_SEGMENTS") or DEFAULT_SEGMENTS)
    for segment in range(segments):
        _invoke_self(context, audit_scan.Continuation(segment, segments).as_event())
    logger.info("lock audit started", extra={"segments": segments})
    return {"segments": segments}


def _audit(where: audit_scan.Continuation, context: Any) -> dict[str, Any]:
    result = audit_scan.audit_segment(
        where,
        repair=True,
        seconds_left=lambda: context.get_remaining_time_in_millis() / 1000,
        reserve_s=RESERVE_SECONDS,
        entities=routes.ENTITIES,
    )
    pseudonyms = Pseudonyms()
    for finding in result.report.findings:
        logger.warning("lock audit finding", extra=pseudonyms.finding(finding))
    count(MetricName.LOCK_AUDIT_FINDING, len(result.report.findings))
    count(MetricName.LOCK_AUDIT_UNREPAIRED, len(result.report.unrepaired))
    if result.next is not None:
        _invoke_self(context, result.next.as_event())
    summary = {
        **result.report.summary(),
        "segment": where.segment,
        "totalSegments": where.total_segments,
        "pages": result.pages,
        "continued": result.next is not None,
    }
    logger.info("lock audit segment done", extra=summary)
    return summary


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        if "segment" not in (event or {}):
            return _start_run(context)
        return _audit(audit_scan.Continuation.from_event(event), context)
    finally:
        if metrics.metric_set:
            metrics.flush_metrics()
