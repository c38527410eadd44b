"""Every CDK context key the stack reads, with its default: set per environment in `config/<env>.json`
(infra/environments.py), or for one run with `-c key=value`.

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


ALARM_EMAILS = ContextKey(
    "alarmEmails", "", "Comma-separated email addresses subscribed to both alarm topics (Critical and Warning)."
)
ALARM_TOPIC_ARN = ContextKey(
    "alarmTopicArn", "", "ARN of an existing SNS topic that also receives every Critical alarm (e.g. an on-call topic)."
)
ALARM_WEBHOOK_URL = ContextKey(
    "alarmWebhookUrl", "", "HTTPS endpoint subscribed to the Critical topic (it must confirm the SNS subscription)."
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
    20,
    "A datapoint breaches above this many concurrent executions of one route function (below its throttle's ceiling).",
)
TABLE_THROTTLES = ContextKey(
    "tableThrottleCount",
    0,
    "A datapoint breaches above this many throttled read (or write) events (a Warning: retries absorb them, and the "
    "busy rate pages when clients feel it).",
)
TABLE_SYSTEM_ERRORS = ContextKey(
    "tableSystemErrorCount", 0, "A datapoint breaches above this many DynamoDB system errors."
)
BUSY_RATE_PERCENT = ContextKey(
    "busyRatePercent",
    1,
    "A datapoint breaches when more than this % of the stage's requests answered 503 busy (retries exhausted).",
)
ALARM_MINIMUM_REQUESTS = ContextKey(
    "alarmMinimumRequests",
    20,
    "A rate alarm's datapoint is judged only with at least this many requests in it: a few designed 503s in a "
    "quiet minute do not page.",
)
TRANSACTION_RETRY_COUNT = ContextKey(
    "transactionRetryCount", 50, "A datapoint breaches above this many transient-error retries (conflicts, throttling)."
)
MONITORING_PROFILE = ContextKey(
    "monitoringProfile",
    "full",
    "full: every alarm and the dashboard; lean: stage-wide API alarms, the table, settlement, audit and integrity "
    "alarms only, no dashboard (a fraction of the idle cost).",
)
API_STAGE_RATE_LIMIT = ContextKey(
    "apiStageRateLimit", 100, "Requests per second the whole stage may serve, split across the routes' methods."
)
API_STAGE_BURST_LIMIT = ContextKey(
    "apiStageBurstLimit", 200, "Burst of the whole stage, split across the routes' methods like the rate."
)
API_DOMAIN_NAME = ContextKey(
    "apiDomainName", "", "Custom domain (TLS 1.2) for the API; when set, the execute-api endpoint is disabled."
)
API_CERTIFICATE_ARN = ContextKey(
    "apiCertificateArn", "", "ACM certificate (same region) for apiDomainName; required with it."
)
CORS_ALLOWED_ORIGINS = ContextKey(
    "corsAllowedOrigins", "", "Comma-separated browser origins allowed by CORS (none: CORS off)."
)
OAUTH_CALLBACK_URLS = ContextKey(
    "oauthCallbackUrls",
    "",
    "Comma-separated https callback URLs; when set, the app client gets the authorization-code flow (PKCE), "
    "otherwise every OAuth flow is off.",
)
SES_FROM_EMAIL = ContextKey(
    "sesFromEmail",
    "",
    "Verified SES identity the user pool sends email from (none: Cognito's limited default sender).",
)
# Reserved concurrency: none by default, because Lambda keeps 100 executions unreserved and a new account's quota
# may leave nothing to reserve; `make deploy` checks the account's quota against what config/<env>.json reserves.
SETTLEMENT_RESERVED_CONCURRENCY = ContextKey(
    "settlementReservedConcurrency", 0, "Concurrency reserved for the settlement function (0: none reserved)."
)
AUDIT_RESERVED_CONCURRENCY = ContextKey(
    "auditReservedConcurrency",
    0,
    "Concurrency reserved for the lock audit (0: none reserved); also the number of parallel Scan segments "
    "(4 when none is reserved).",
)
SWEEPER_RESERVED_CONCURRENCY = ContextKey(
    "sweeperReservedConcurrency",
    0,
    "Concurrency reserved for the settlement sweeper (0: none reserved; 1: never two sweeps at once).",
)
POWERTOOLS_PUBLIC_LAYER = ContextKey(
    "powertoolsPublicLayer",
    False,
    "true: use AWS's public Powertools layer (resolved from SSM for the pinned version) and the runtime's boto3 "
    "instead of the dependencies layer built from requirements.txt.",
)
DELETION_PROTECTION = ContextKey(
    "deletionProtection",
    True,
    "Deletion protection on the table and the user pool. `make deploy` sets false for a stack's first deploy only "
    "(a rollback can then delete them) and true again in the same run, once they exist.",
)
# Tracing and SnapStart: docs/decisions/051-tracing-provider-lambda-active-tracing-by-default-the.md and
# docs/decisions/054-snapstart-supported-here-opt-in.md.
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
    "true: SnapStart on the route functions' published versions; the API invokes each one's `live` alias (restored "
    "from a snapshot).",
)
HOTSWAP = ContextKey(
    "hotswap",
    False,
    "true: `make watch ENV=<env>` may hotswap this environment's function code (cdk watch; the stack drifts from "
    "its template until the next deploy): for a development stack, never prod.",
)

# Where a named environment deploys: config/<env>.json names both; the stack is synthesized for them and
# `make deploy` refuses credentials of another account or region (scripts/check_account.py).
ACCOUNT = ContextKey(
    "account",
    "",
    "AWS account id (12 digits) the environment deploys to; required for a named environment, which is "
    "synthesized for it, and `make deploy` refuses credentials of any other account.",
)
REGION = ContextKey(
    "region", "", "Region the environment deploys to; required with account, and `make deploy` refuses any other."
)
# The edge (infra/edge.py): a WAF web ACL on the stage with AWS managed rule groups and per-client rate limits.
WAF_ENABLED = ContextKey(
    "wafEnabled",
    True,
    "true: a WAF web ACL on the stage (AWS managed rules: common, known bad inputs, IP reputation; per-token and "
    "per-IP rate limits; logged); false only where no real traffic arrives.",
)
WAF_TOKEN_RATE_LIMIT = ContextKey(
    "wafTokenRateLimit",
    600,
    "Requests one caller's token (the Authorization header) may send per minute before WAF answers 429.",
)
WAF_IP_RATE_LIMIT = ContextKey(
    "wafIpRateLimit",
    3000,
    "Requests one source IP may send per minute before WAF answers 429 (tokens behind one NAT share it).",
)
# Cognito (infra/auth.py).
COGNITO_THREAT_PROTECTION = ContextKey(
    "cognitoThreatProtection",
    "enforced",
    "Cognito threat protection (Plus feature plan): enforced (risky sign-ins blocked or challenged), audit "
    "(logged only), or off (Essentials plan).",
)
COGNITO_MFA = ContextKey(
    "cognitoMfa",
    "required",
    "required: every user signs in with TOTP, admins included; optional: users choose (no admin is held to it).",
)
# What is kept, and for how long (infra/retention.py).
LOG_RETENTION_DAYS = ContextKey(
    "logRetentionDays",
    30,
    "Days the functions', the API's execution and the audit run's logs are kept (a CloudWatch Logs retention).",
)
ACCESS_LOG_RETENTION_DAYS = ContextKey(
    "accessLogRetentionDays",
    365,
    "Days the API access log and the WAF log are kept; both stay when the stack is deleted.",
)
BACKUP_RETENTION_DAYS = ContextKey(
    "backupRetentionDays",
    35,
    "Days each daily AWS Backup of the table is kept (0: no Backup plan, point-in-time recovery only).",
)
BACKUP_COPY_VAULT_ARN = ContextKey(
    "backupCopyVaultArn",
    "",
    "ARN of a backup vault in another account or region that receives a copy of every daily backup.",
)
TABLE_CUSTOMER_KEY = ContextKey(
    "tableCustomerManagedKey",
    False,
    "true: the table, its backups and the audit's checkpoints are encrypted with a rotating customer-managed KMS "
    "key (its use is logged in CloudTrail) instead of the AWS-owned key.",
)
CONTRIBUTOR_INSIGHTS = ContextKey(
    "contributorInsights",
    False,
    "true: DynamoDB Contributor Insights on the table (its most accessed and throttled keys), billed per event.",
)
# The lock audit's run: in working hours, so a finding that pages reaches someone at work (infra/audit.py).
AUDIT_HOUR = ContextKey(
    "auditHour", 9, "Hour (0-23, in auditTimeZone) the daily lock audit starts, so its pages come in working hours."
)
AUDIT_TIME_ZONE = ContextKey("auditTimeZone", "UTC", "IANA time zone of auditHour (e.g. Europe/Berlin).")

# What `make deploy` adds up against the account's concurrency quota (scripts/check_account.py).
RESERVED_CONCURRENCY_KEYS = (SETTLEMENT_RESERVED_CONCURRENCY, AUDIT_RESERVED_CONCURRENCY, SWEEPER_RESERVED_CONCURRENCY)

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
    BUSY_RATE_PERCENT,
    ALARM_MINIMUM_REQUESTS,
    TRANSACTION_RETRY_COUNT,
    MONITORING_PROFILE,
    API_STAGE_RATE_LIMIT,
    API_STAGE_BURST_LIMIT,
    API_DOMAIN_NAME,
    API_CERTIFICATE_ARN,
    CORS_ALLOWED_ORIGINS,
    OAUTH_CALLBACK_URLS,
    SES_FROM_EMAIL,
    SETTLEMENT_RESERVED_CONCURRENCY,
    AUDIT_RESERVED_CONCURRENCY,
    SWEEPER_RESERVED_CONCURRENCY,
    DELETION_PROTECTION,
    POWERTOOLS_PUBLIC_LAYER,
    TRACING,
    OTEL_LAYER_ARN,
    SNAP_START,
    ACCOUNT,
    REGION,
    WAF_ENABLED,
    WAF_TOKEN_RATE_LIMIT,
    WAF_IP_RATE_LIMIT,
    COGNITO_THREAT_PROTECTION,
    COGNITO_MFA,
    LOG_RETENTION_DAYS,
    ACCESS_LOG_RETENTION_DAYS,
    BACKUP_RETENTION_DAYS,
    BACKUP_COPY_VAULT_ARN,
    TABLE_CUSTOMER_KEY,
    CONTRIBUTOR_INSIGHTS,
    AUDIT_HOUR,
    AUDIT_TIME_ZONE,
    HOTSWAP,
)
BY_NAME = {key.name: key for key in ALL_KEYS}


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


def count(scope: Construct, key: ContextKey) -> int:
    """A whole number that may be 0 (0 turns the feature off)."""
    result = number(scope, key)
    if result != int(result):
        raise ValueError(f"context {key.name}={result!r}: a whole number is required")
    return int(result)


def choice(scope: Construct, key: ContextKey, allowed: tuple[str, ...]) -> str:
    value = text(scope, key)
    if value not in allowed:
        raise ValueError(f"context {key.name}={value!r}: one of {', '.join(allowed)} is required")
    return value


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
