"""The table's key schema and TTL attribute (fixed by the contract; the stack uses the same)."""

PARTITION_KEY = "PK"
SORT_KEY = "SK"
KEY_ATTRIBUTES = (PARTITION_KEY, SORT_KEY)
# Powertools idempotency records expire through this attribute (epoch seconds).
TTL_ATTRIBUTE = "expiration"
