"""Every CDK context key the stack reads, with its default: `cdk deploy -c key=value` or `"context"` in cdk.json.

docs/infra.md ("First deploy") lists the same keys and defaults; a test keeps the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from constructs import Construct


@dataclass(frozen=True)
class ContextKey:
    name: str
    default: Any
    help: str


ALARM_EMAILS = ContextKey("alarmEmails", "", "Comma-separated email addresses subscribed to the alarm topic.")
ALARM_TOPIC_ARN = ContextKey(
    "alarmTopicArn", "", "ARN of an existing SNS topic that also receives every alarm (e.g. an on-call topic)."
)
ALARM_WEBHOOK_URL = ContextKey(
    "alarmWebhookUrl", "", "HTTPS endpoint subscribed to the alarm topic (it must confirm the SNS subscription)."
)
ALARM_PERIOD_MINUTES = ContextKey("alarmPeriodMinutes", 1, "Length of one alarm datapoint, in minutes.")
ALARM_EVALUATION_PERIODS = ContextKey("alarmEvaluationPeriods", 5, "M: datapoints an alarm looks at.")
ALARM_DATAPOINTS = ContextKey("alarmDatapointsToAlarm", 3, "N: breaching datapoints among the last M that alarm.")
API_5XX_RATE_PERCENT = ContextKey(
    "api5xxRatePercent", 1, "A datapoint breaches when a route's 5xx rate exceeds this % of its requests."
)
API_4XX_RATE_PERCENT = ContextKey(
    "api4xxRatePercent", 25, "A datapoint breaches when the stage's 4xx rate exceeds this % of requests."
)
API_LATENCY_P99_MS = ContextKey(
    "apiLatencyP99Ms", 3000, "A datapoint breaches when a route's p99 latency exceeds this many ms."
)
FUNCTION_ERRORS = ContextKey(
    "functionErrorCount", 0, "A datapoint breaches when one function has more errors than this."
)
FUNCTION_THROTTLES = ContextKey(
    "functionThrottleCount", 0, "A datapoint breaches when one function has more throttles than this."
)
FUNCTION_DURATION_P99_PERCENT = ContextKey(
    "functionDurationP99Percent",
    80,
    "A datapoint breaches when a function's p99 duration exceeds this % of its own timeout.",
)
FUNCTION_CONCURRENCY = ContextKey(
    "functionConcurrentExecutions",
    50,
    "A datapoint breaches above this many concurrent executions of one function (the stage allows 50 rps).",
)
TABLE_THROTTLES = ContextKey(
    "tableThrottleCount", 0, "A datapoint breaches above this many throttled read (or write) events."
)
TABLE_SYSTEM_ERRORS = ContextKey(
    "tableSystemErrorCount", 0, "A datapoint breaches above this many DynamoDB system errors."
)
BUSY_COUNT = ContextKey("busyCount", 0, "A datapoint breaches above this many 503 busy answers (retries exhausted).")
TRANSACTION_RETRY_COUNT = ContextKey(
    "transactionRetryCount", 50, "A datapoint breaches above this many transient-error retries (conflicts, throttling)."
)
POWERTOOLS_PUBLIC_LAYER = ContextKey(
    "powertoolsPublicLayer",
    False,
    "true: use AWS's public Powertools layer (resolved from SSM for the pinned version) and the runtime's boto3 "
    "instead of the dependencies layer built from requirements.txt.",
)
# Tracing and SnapStart (docs/decisions.md, "Tracing provider" and "SnapStart").
TRACING = ContextKey(
    "tracing",
    "active",
    "Tracing provider: active (Lambda active tracing alone), xray-sdk (Powertools Tracer on the X-Ray SDK, one "
    "subsegment per DynamoDB call), or otel (ADOT layer: OpenTelemetry SDK, botocore instrumented, needs "
    "otelLayerArn).",
)
OTEL_LAYER_ARN = ContextKey(
    "otelLayerArn", "", "With tracing=otel: ARN of the ADOT Python layer (AWSOpenTelemetryDistroPython) to attach."
)
SNAP_START = ContextKey(
    "snapStart",
    False,
    "true: SnapStart on published versions; the API invokes each function's `live` alias (restored from a snapshot).",
)

ALL_KEYS: tuple[ContextKey, ...] = (
    ALARM_EMAILS,
    ALARM_TOPIC_ARN,
    ALARM_WEBHOOK_URL,
    ALARM_PERIOD_MINUTES,
    ALARM_EVALUATION_PERIODS,
    ALARM_DATAPOINTS,
    API_5XX_RATE_PERCENT,
    API_4XX_RATE_PERCENT,
    API_LATENCY_P99_MS,
    FUNCTION_ERRORS,
    FUNCTION_THROTTLES,
    FUNCTION_DURATION_P99_PERCENT,
    FUNCTION_CONCURRENCY,
    TABLE_THROTTLES,
    TABLE_SYSTEM_ERRORS,
    BUSY_COUNT,
    TRANSACTION_RETRY_COUNT,
    POWERTOOLS_PUBLIC_LAYER,
    TRACING,
    OTEL_LAYER_ARN,
    SNAP_START,
)


def _raw(scope: Construct, key: ContextKey) -> Any:
    value = scope.node.try_get_context(key.name)
    return key.default if value is None or value == "" else value


def number(scope: Construct, key: ContextKey) -> float:
    """A numeric key; `-c` passes strings, cdk.json passes numbers."""
    value = _raw(scope, key)
    try:
        result = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"context {key.name}={value!r}: a number is required") from None
    if result < 0:
        raise ValueError(f"context {key.name}={value!r}: must not be negative")
    return result


def whole_number(scope: Construct, key: ContextKey) -> int:
    result = number(scope, key)
    if result != int(result) or result < 1:
        raise ValueError(f"context {key.name}={result!r}: a whole number of at least 1 is required")
    return int(result)


def text(scope: Construct, key: ContextKey) -> str:
    return str(_raw(scope, key)).strip()


def text_list(scope: Construct, key: ContextKey) -> list[str]:
    """Comma-separated (from `-c`) or a JSON list (from cdk.json)."""
    value = _raw(scope, key)
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(item).strip() for item in items if str(item).strip()]


def flag(scope: Construct, key: ContextKey) -> bool:
    value = _raw(scope, key)
    if isinstance(value, bool):
        return value
    normalized = str(value).strip().lower()
    if normalized in {"true", "1", "yes"}:
        return True
    if normalized in {"false", "0", "no"}:
        return False
    raise ValueError(f"context {key.name}={value!r}: true or false is required")
