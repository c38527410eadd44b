"""Names, construct ids and tunables of the ddbguard stack, in one place.

Nothing here imports the runtime code: the key names are repeated on purpose and a test checks
that they still equal `functions/layer/python/ddbguard/schema.py`.
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import aws_logs as logs

REPO_ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS_DIR = REPO_ROOT / "functions"
LAYER_DIR = FUNCTIONS_DIR / "layer"

STACK_ID = "DdbguardStack"
SERVICE_NAME = "ddbguard"
METRICS_NAMESPACE = "ddbguard"
LOG_LEVEL = "INFO"

# Table key schema (contract section 4) and the TTL attribute Powertools idempotency records expire through.
PARTITION_KEY = "PK"
SORT_KEY = "SK"
TTL_ATTRIBUTE = "expiration"

# Lambda sizing: every handler does a handful of DynamoDB calls, so 256 MB / 10 s leaves ample headroom.
FUNCTION_MEMORY_MB = 256
FUNCTION_TIMEOUT_SECONDS = 10
# The lock audit scans the whole table, so it gets more time than a request handler.
AUDIT_MEMORY_MB = 512
AUDIT_TIMEOUT_SECONDS = 300
AUDIT_HANDLER = "audit.audit_locks.handler"
# 03:17 UTC daily: off the hour so it does not pile onto other scheduled jobs in the account.
AUDIT_SCHEDULE_HOUR = "3"
AUDIT_SCHEDULE_MINUTE = "17"

# Asset excludes for the `functions/` code asset: the layer ships separately, caches and tests never ship.
CODE_EXCLUDES = ("layer", "__pycache__", "*.pyc", "tests", "test_*.py", ".pytest_cache")
LAYER_EXCLUDES = ("__pycache__", "*.pyc")

# REST API.
API_NAME = "ddbguard"
API_STAGE = "v1"
# Stage-wide defaults; a single caller cannot exhaust the account-level API Gateway quota.
API_THROTTLE_RATE_LIMIT = 50
API_THROTTLE_BURST_LIMIT = 100

# Cognito.
ADMIN_GROUP = "admin"

# DynamoDB actions. TransactWriteItems/TransactGetItems are not IAM actions: a transaction is authorised through
# the item-level actions it contains, so these lists are complete for transactional handlers too.
READ_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:BatchGetItem",
    "dynamodb:ConditionCheckItem",
)
WRITE_ACTIONS = (
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
)
# Operations whose handler never touches the table (functions/health/check_health.py answers from memory):
# their functions get no DynamoDB permission at all.
TABLELESS_OPERATIONS = ("check_health",)
# The lock audit has to walk every lock item, which only a Scan can do.
AUDIT_EXTRA_ACTIONS = ("dynamodb:Scan",)

# Custom metrics the handlers emit through Powertools (EMF), dimension service=ddbguard.
CUSTOM_METRICS = (
    "UniqueViolation",
    "VersionConflict",
    "InsufficientFunds",
    "TransactionRetry",
    "Busy",
    "IdempotentReplay",
    "LockAuditFinding",
    "LockAuditUnrepaired",
)

# Retention of function and API access logs: long enough to investigate an incident, short enough to be cheap.
LOG_RETENTION = logs.RetentionDays.ONE_MONTH
