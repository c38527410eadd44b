"""Every attribute name the layer writes or reads, the table's keys included: one place, one spelling.

Each constant is named as it spells (`HOLD_CENTS = "holdCents"`, `PENDING = "pending"`), so a reader of any module
knows the stored name from the constant (tests/unit/test_attribute_names.py holds it so).

Key attributes are fixed (docs/data-model.md); the stack (infra/constants.py) repeats these names and a test
checks they agree. The typed views of stored items (`ddbguard.store.items`) declare these same names as their
fields; tests/unit/test_attribute_names.py holds the two together and finds any attribute name spelled as a raw
string elsewhere in the layer.
"""

from typing import Final

__all__ = [
    "ACCOUNT_ID",
    "AFTER",
    "AMOUNT_CENTS",
    "AVAILABLE_CENTS",
    "AVAILABLE_CENTS_AFTER",
    "CALLER_SUB",
    "CLEARED_CENTS",
    "CLOSING",
    "COUNTERPARTY_ACCOUNT_ID",
    "CREATED_AT",
    "CREATED_BY_REQUEST",
    "DELETED_AT",
    "DELETED_KIND",
    "DISPLAY_NAME",
    "EMAIL",
    "ENTRIES",
    "ENTRY_ID",
    "EXPIRATION",
    "FIELD",
    "FINGERPRINT",
    "HOLD_CENTS",
    "HOLD_ID",
    "ITEMS",
    "KEY_ATTRIBUTES",
    "KIND",
    "ORDER_ID",
    "OWNER",
    "OWNER_SUB",
    "PAID_AT",
    "PENDING",
    "PK",
    "QUANTITY",
    "REFUNDED_AT",
    "REQUEST_DIGEST",
    "REQUEST_FINGERPRINT",
    "RESPONSE",
    "ROUTE",
    "SETTLED_BY_REQUEST",
    "SK",
    "SKU",
    "STATUS",
    "TOTAL_CENTS",
    "TRANSFER_ID",
    "TYPE",
    "UNIT_PRICE_CENTS",
    "UNSETTLED_INDEX",
    "UNSETTLED_SHARD",
    "UNSETTLED_SINCE",
    "UPDATED_AT",
    "USERNAME",
    "VALUE",
    "VERSION",
    "WRITE_TOKEN",
]

PK: Final = "PK"
SK: Final = "SK"
KEY_ATTRIBUTES: Final = (PK, SK)
# Request markers (the idempotency records) expire through this attribute (epoch seconds); money markers carry none.
EXPIRATION: Final = "expiration"

# On every item ddbguard writes.
KIND: Final = "kind"
CREATED_AT: Final = "createdAt"
UPDATED_AT: Final = "updatedAt"
# Versioned items (optimistic locking).
VERSION: Final = "version"
# Items that belong to a caller: the Cognito `sub` of their owner, checked in every write's condition.
OWNER_SUB: Final = "ownerSub"
# Items created by a request with an Idempotency-Key: which request (digest) and what it asked (fingerprint).
CREATED_BY_REQUEST: Final = "createdByRequest"
REQUEST_FINGERPRINT: Final = "requestFingerprint"
# Versioned items: a fresh token per change, so a write re-sent after its answer was lost knows its own result.
WRITE_TOKEN: Final = "writeToken"
# Tombstones (what a deleted versioned item leaves): what the item was, and when it went.
DELETED_KIND: Final = "deletedKind"
DELETED_AT: Final = "deletedAt"
# Lock items: the partition key of the entity that holds the value.
OWNER: Final = "owner"
# Ledger balance and entries.
CLEARED_CENTS: Final = "clearedCents"
HOLD_CENTS: Final = "holdCents"
AVAILABLE_CENTS: Final = "availableCents"
PENDING: Final = "pending"  # entry id -> its exact availableCentsAfter, until settled
AMOUNT_CENTS: Final = "amountCents"
AVAILABLE_CENTS_AFTER: Final = "availableCentsAfter"
# The sparse index of balances that wait for settlement (the sweeper's only read): a balance carries both
# attributes only while `pending` is non-empty. Its shard spreads the index over several partition-key values;
# the sort key is the id of its oldest unsettled entry (ULIDs carry their time), so the index also tells its age.
UNSETTLED_INDEX: Final = "unsettled"
UNSETTLED_SHARD: Final = "unsettledShard"
UNSETTLED_SINCE: Final = "unsettledSince"
# An entry's request marker (the digest), so the settlement can complete the marker too.
REQUEST_DIGEST: Final = "requestDigest"
# Orders and holds.
STATUS: Final = "status"

# Ids: an item's own (`<kind>Id`), and the account an item belongs to or names.
ACCOUNT_ID: Final = "accountId"
ORDER_ID: Final = "orderId"
HOLD_ID: Final = "holdId"
ENTRY_ID: Final = "entryId"
TRANSFER_ID: Final = "transferId"
# Accounts.
EMAIL: Final = "email"
USERNAME: Final = "username"
DISPLAY_NAME: Final = "displayName"
CLOSING: Final = "closing"  # true: closed to incoming transfers (the owner's own movements go on)
# Ledger entries: what moved, and the item on the other side.
TYPE: Final = "type"
COUNTERPARTY_ACCOUNT_ID: Final = "counterpartyAccountId"
# Holds: which request settled it (capture or release).
SETTLED_BY_REQUEST: Final = "settledByRequest"
# Orders: the lines and their total, and when the payment and the refund moved money (kept for good).
ITEMS: Final = "items"
TOTAL_CENTS: Final = "totalCents"
PAID_AT: Final = "paidAt"
REFUNDED_AT: Final = "refundedAt"
SKU: Final = "sku"
QUANTITY: Final = "quantity"
UNIT_PRICE_CENTS: Final = "unitPriceCents"
# Lock items: which field of the owner the value belongs to, and the value (normalised).
FIELD: Final = "field"
VALUE: Final = "value"
# Request markers: who asked what on which route, the first response, and a money movement's entries with
# their settled `availableCentsAfter` values (entry id -> value).
ROUTE: Final = "route"
CALLER_SUB: Final = "callerSub"
FINGERPRINT: Final = "fingerprint"
RESPONSE: Final = "response"
ENTRIES: Final = "entries"
AFTER: Final = "after"
