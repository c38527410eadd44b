"""The table's partition-key patterns, in IAM `StringLike` syntax: what a route's or a job's access names.

The stack puts them in each function's `dynamodb:LeadingKeys` condition. ddbguard/store/keys.py builds every key;
tests/integration/test_route_declarations.py checks each pattern against the keys it builds.
"""

from __future__ import annotations

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.domain.entities.orders import ORDER

ACCOUNTS = ACCOUNT.partition_pattern  # account profile, ledger balance, entries and holds share the partition
EMAIL_LOCKS = ACCOUNT.lock_pattern("email")
USERNAME_LOCKS = ACCOUNT.lock_pattern("username")
ORDERS = ORDER.partition_pattern
REQUEST_MARKERS = "REQ#*"
OWNER_INDEX = "OWNERS#*"  # one item per account under its owner (GET /accounts)
AUDIT_CHECKPOINTS = "AUDIT#*"  # the lock audit's checkpoints (ddbguard/store/audit_checkpoints.py)
INDEX_PREFIX = "index/"  # not a partition: a secondary index of the table, by name
