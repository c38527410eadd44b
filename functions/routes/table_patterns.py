"""The table's partition-key patterns, in IAM `StringLike` syntax: what a route's or a job's access names.

The stack puts them in each function's `dynamodb:LeadingKeys` condition. ddbguard/store/keys.py builds every key;
tests/integration/test_route_declarations.py checks each pattern against the keys it builds.
"""

from __future__ import annotations

from ddbguard.domain.entities.accounts import ACCOUNT
from ddbguard.domain.entities.orders import ORDER
from ddbguard.guards.entity_access import INDEX_PREFIX, OWNER_INDEX, REQUEST_MARKERS
from ddbguard_jobs.access import AUDIT_CHECKPOINTS

ACCOUNTS = ACCOUNT.partition_pattern  # account profile, ledger balance, entries and holds share the partition
EMAIL_LOCKS = ACCOUNT.lock_pattern("email")
USERNAME_LOCKS = ACCOUNT.lock_pattern("username")
ORDERS = ORDER.partition_pattern

# Patterns the library defines (ddbguard/guards/entity_access.py, ddbguard_jobs/access.py), named here for the routes.
__all__ = [
    "ACCOUNTS",
    "AUDIT_CHECKPOINTS",
    "EMAIL_LOCKS",
    "INDEX_PREFIX",
    "ORDERS",
    "OWNER_INDEX",
    "REQUEST_MARKERS",
    "USERNAME_LOCKS",
]
