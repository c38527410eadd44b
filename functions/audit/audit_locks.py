"""Scheduled lock audit (EventBridge, daily; not an API route): find and safely repair broken uniqueness locks.

Each finding is logged with its value and lock key as keyed hashes (ddbguard.pseudonyms), never the email or
username itself; nothing the audit returns reaches the trace. `LockAuditFinding` and `LockAuditUnrepaired` counts
go to CloudWatch, so an alarm can fire when a finding could not be repaired (two accounts claiming one value).
"""

from typing import Any

from ddbguard.domain import lock_audit
from ddbguard.domain.pseudonyms import Pseudonyms
from ddbguard.observability import MetricName, count, logger, metrics, tracer


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False, capture_error=False)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        report = lock_audit.audit_locks(repair=True)
        pseudonyms = Pseudonyms()
        for finding in report.findings:
            logger.warning("lock audit finding", extra=pseudonyms.finding(finding))
        count(MetricName.LOCK_AUDIT_FINDING, len(report.findings))
        count(MetricName.LOCK_AUDIT_UNREPAIRED, len(report.unrepaired))
        summary = report.summary()
        logger.info("lock audit done", extra=summary)
        return summary
    finally:
        if metrics.metric_set:
            metrics.flush_metrics()
