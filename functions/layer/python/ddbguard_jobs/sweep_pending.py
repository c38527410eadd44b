"""Scheduled sweeper (EventBridge; not an API route): settle every balance whose `pending` values grew old.

The stream's settlement can stall, fall behind or drop a batch to its on-failure queue; this settles those
balances anyway (`ddbguard.domain.settlement_sweep`). It emits the age of the oldest unsettled value it found
(`OldestUnsettledAgeSeconds`, alarmed) on every run, also when that is 0, and how many entries it settled.
"""

from collections.abc import Mapping
from typing import Any

from ddbguard.domain import settlement_sweep
from ddbguard.observability import MetricName, count, logger, metrics, observe_seconds, tracer

__all__ = ["handler"]


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: Mapping[str, Any], context: Any) -> Mapping[str, Any]:
    try:
        min_age_s = float((event or {}).get("minAgeSeconds", settlement_sweep.DEFAULT_MIN_AGE_S))
        report = settlement_sweep.sweep(min_age_s)
        observe_seconds(MetricName.OLDEST_UNSETTLED_AGE, report.oldest_age_s)
        count(MetricName.SETTLED_ENTRIES, report.entries_settled)
        summary = report.summary()
        logger.info("sweep done", extra=summary)
        if report.failed:  # a failed invocation: the function's error alarm sees it, the schedule retries
            raise RuntimeError(f"{len(report.failed)} balances stayed busy; the next sweep retries them")
        return summary
    finally:
        if metrics.metric_set:
            metrics.flush_metrics()
