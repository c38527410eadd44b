"""The Powertools Logger, Tracer and Metrics every handler and layer module shares."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit

SERVICE = "ddbguard"
NAMESPACE = "ddbguard"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
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
