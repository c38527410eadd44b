"""The Powertools Logger and Metrics, and the tracer, every handler and layer module shares."""

from __future__ import annotations

import threading

from aws_lambda_powertools.logging import Logger
from aws_lambda_powertools.metrics import Metrics, MetricUnit

from ddbguard.tracing import handler_tracer

SERVICE = "ddbguard"
NAMESPACE = "ddbguard"

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


# Powertools Metrics keeps one process-wide metric set. In Lambda one invocation runs at a
# time; the local server runs handlers on threads, so adding and flushing share this lock.
metrics_lock = threading.Lock()


def count(name: str, value: int = 1) -> None:
    """Add to a Count metric of this invocation."""
    with metrics_lock:
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
