"""Names, construct ids and tunables of the ddbguard stack, in one place.

Nothing here imports the runtime code: the key names are repeated on purpose and a test checks
that they still equal `functions/layer/python/ddbguard/store/attribute_names.py`.
"""

from __future__ import annotations

from pathlib import Path

from ddbguard_cdk.grants import LEADING_KEYS as LEADING_KEYS
from ddbguard_cdk.grants import LEADING_KEYS_ACTIONS as LEADING_KEYS_ACTIONS
from ddbguard_cdk.grants import LEADING_KEYS_OPERATOR as LEADING_KEYS_OPERATOR
from ddbguard_cdk.grants import XRAY_ACTIONS as XRAY_ACTIONS

REPO_ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS_DIR = REPO_ROOT / "functions"
LAYER_DIR = FUNCTIONS_DIR / "layer"

STACK_ID = "DdbguardStack"
SERVICE_NAME = "ddbguard"
METRICS_NAMESPACE = "ddbguard"
LOG_LEVEL = "INFO"

# Table key schema (docs/data-model.md) and the TTL attribute request markers (idempotency records) expire through.
PK = "PK"
SK = "SK"
EXPIRATION = "expiration"
# The sparse index of balances waiting for settlement (the sweeper's only read), as the layer's schema names it.
UNSETTLED_INDEX = "unsettled"
UNSETTLED_SHARD = "unsettledShard"
UNSETTLED_SINCE = "unsettledSince"

# Lambda sizing: every handler does a handful of DynamoDB calls, so 256 MB / 10 s leaves ample headroom.
FUNCTION_MEMORY_MB = 256
FUNCTION_TIMEOUT_SECONDS = 10
# The lock audit scans the table in segments, each continued by a new invocation before this timeout runs out.
AUDIT_MEMORY_MB = 512
AUDIT_TIMEOUT_SECONDS = 300
AUDIT_HANDLER = "audit.audit_locks.handler"
# Scan segments of one audit run when no concurrency is reserved for it (otherwise: as many as reserved).
AUDIT_DEFAULT_SEGMENTS = 4
SETTLEMENT_HANDLER = "streams.settle_entries.handler"
SETTLEMENT_TIMEOUT_SECONDS = 60
SETTLEMENT_BATCH_SIZE = 100
SETTLEMENT_RETRY_ATTEMPTS = 10
# The audit's run starts at 17 past the configured hour (auditHour): off the hour, so it does not pile onto other
# scheduled jobs in the account.
AUDIT_SCHEDULE_MINUTE = "17"

# Asset excludes for the `functions/` code asset: the layer ships separately, caches and tests never ship.
CODE_EXCLUDES = ("layer", "__pycache__", "*.pyc", "tests", "test_*.py", ".pytest_cache")
LAYER_EXCLUDES = ("__pycache__", "*.pyc")

# REST API.
API_NAME = "ddbguard"
API_STAGE = "v1"

# Cognito.
ADMIN_GROUP = "admin"

# DynamoDB grants come from the route table (functions/routes/: each route's `table_access`) and, for the
# background jobs, functions/routes/job_access.py: exactly the actions each function performs, each limited by
# `dynamodb:LeadingKeys` to the partition-key patterns it reaches. These actions name a partition in every request,
# so they can carry that condition; every other action (Scan) cannot, and is granted without it.
# The names and the statements themselves are the construct package's (src/ddbguard_cdk/grants.py).

# cfn-lint's settings (`make synth`, tests/infra/test_cfn_lint.py): regions and every ignored rule with its reason.
CFN_LINT_CONFIG = REPO_ROOT / ".cfnlintrc.yaml"

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
    "LockAuditUncoveredSegments",
    "PermanentStoreError",
    "SettlementBehind",
    "SettledEntries",
    "OldestUnsettledAgeSeconds",
)

# Every DynamoDB data-plane operation the service may call (the runtime code and Powertools idempotency): the
# table's system-error alarm sums `SystemErrors` over each (tests/test_table_access.py checks the recorded calls).
TABLE_OPERATIONS = (
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "BatchWriteItem",
    "TransactWriteItems",
    "TransactGetItems",
)

# Metrics counted from the API access log by metric filters (namespace METRICS_NAMESPACE, no dimension): API
# Gateway itself has no per-status metric. Client errors are what a broken client or an attack looks like; guard
# refusals (409 conflicts, 412 stale versions) are the integrity guards doing their job.
API_REQUESTS_METRIC = "ApiRequests"
API_CLIENT_ERRORS_METRIC = "ApiClientErrors"
API_GUARD_REFUSALS_METRIC = "ApiGuardRefusals"
CLIENT_ERROR_STATUSES = (401, 403, 404, 422, 429)
GUARD_REFUSAL_STATUSES = (409, 412)
