"""The Powertools Logger and Metrics, and the tracer, every handler and layer module shares."""

from __future__ import annotations

import os

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit

from ddbguard.tracing import handler_tracer

__all__ = ["NAMESPACE", "SERVICE", "MetricName", "count", "logger", "metrics", "observe_seconds", "tracer"]

SERVICE = "ddbguard"
# Each deployed environment has its own namespace (`ddbguard-prod`), set by the stack; `ddbguard` elsewhere.
NAMESPACE = os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or "ddbguard"

logger = Logger(service=SERVICE)
# Powertools Tracer only when the deployment asks for the X-Ray SDK (ddbguard.tracing).
tracer = handler_tracer(SERVICE)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)


class MetricName:
    """Every metric ddbguard emits; the dashboard and alarms in infra/ use the same names."""

    UNIQUE_VIOLATION = "UniqueViolation"
    VERSION_CONFLICT = "VersionConflict"
    INSUFFICIENT_FUNDS = "InsufficientFunds"
    TRANSACTION_RETRY = "TransactionRetry"
    BUSY = "Busy"
    REPLAY = "IdempotentReplay"
    LOCK_AUDIT_FINDING = "LockAuditFinding"
    LOCK_AUDIT_UNREPAIRED = "LockAuditUnrepaired"
    LOCK_AUDIT_UNCOVERED_SEGMENTS = "LockAuditUncoveredSegments"
    PERMANENT_STORE_ERROR = "PermanentStoreError"
    SETTLEMENT_BEHIND = "SettlementBehind"
    SETTLED_ENTRIES = "SettledEntries"
    OLDEST_UNSETTLED_AGE = "OldestUnsettledAgeSeconds"


def count(name: str, value: int = 1) -> None:
    """Add to a Count metric of this invocation."""
    metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


def observe_seconds(name: str, value: float) -> None:
    """Record one value of a Seconds metric of this invocation (alarms read its Maximum)."""
    metrics.add_metric(name=name, unit=MetricUnit.Seconds, value=value)
