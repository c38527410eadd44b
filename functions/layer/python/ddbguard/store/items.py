"""What the table stores, one typed view per item kind (docs/data-model.md). Types only: nothing runs at import.

Field names are the attribute names of `ddbguard.store.attribute_names` (a TypedDict's fields cannot be named by
constants, so tests/unit/test_attribute_names.py checks every field here is one of them). Code builds and reads
these items through the schema's constants, which mypy accepts as TypedDict keys. Items of generic entities
(`ddbguard.guards.entity`) have fields only their declaration knows: they stay `Item` (`ddbguard.store.shapes`).
"""

# No `from __future__ import annotations`: `NotRequired` must be seen at runtime, so the views know their
# optional keys (`__optional_keys__`), which the projections and the schema check read.
from typing import NotRequired, TypedDict

__all__ = [
    "BalanceItem",
    "Entry",
    "EntryDetails",
    "EntryItem",
    "HoldItem",
    "LockItem",
    "OrderItem",
    "OrderLine",
    "RequestMarker",
    "RequestStamp",
    "StoredItem",
    "TombstoneItem",
    "WriteStamp",
]


class StoredItem(TypedDict):
    """Every item ddbguard writes: its key and its kind."""

    PK: str
    SK: str
    kind: str


class RequestStamp(TypedDict, total=False):
    """On an item created by a request with an Idempotency-Key: which request, and what it asked."""

    createdByRequest: str
    requestFingerprint: str


class WriteStamp(TypedDict, total=False):
    """On a versioned item changed at least once: the token of the write that changed it last."""

    writeToken: str


class TombstoneItem(StoredItem, WriteStamp):
    """What a deleted account or order leaves at its key (`kind: "tombstone"`): no owner and no values, so its id
    is never given again and nothing owner-checked finds it."""

    deletedKind: str
    deletedAt: str


class LockItem(StoredItem):
    """`UNIQ#<KIND>#<value>` / `LOCK`: `owner` is the partition key of the item holding the value. No
    timestamps: a retried transaction must render the same request."""

    owner: str
    field: str
    value: str


class BalanceItem(StoredItem, RequestStamp):
    """`ACCT#<accountId>` / `BALANCE`. `pending` maps each unsettled entry id to its exact
    `availableCentsAfter`; the two unsettled-index attributes exist only while it is non-empty."""

    accountId: str
    ownerSub: str
    clearedCents: int
    holdCents: int
    availableCents: int
    pending: dict[str, int]
    version: int
    createdAt: str
    updatedAt: str
    unsettledShard: NotRequired[str]
    unsettledSince: NotRequired[str]


class EntryDetails(TypedDict, total=False):
    """What names an entry's cause, by its type: a hold, an order payment, or a transfer's other side."""

    holdId: str
    orderId: str
    transferId: str
    counterpartyAccountId: str


class Entry(EntryDetails):
    """A ledger entry's values, as a movement writes them and its request marker keeps them.
    `availableCentsAfter` is absent until settled (then the balance's `pending` holds it)."""

    entryId: str
    accountId: str
    type: str
    amountCents: int
    createdAt: str
    availableCentsAfter: NotRequired[int | None]


class EntryItem(Entry):
    """`ACCT#<accountId>` / `TXN#<entryId>`: the entry with its key and the digest of the request that made it."""

    PK: str
    SK: str
    requestDigest: str


class HoldItem(StoredItem, RequestStamp):
    """`ACCT#<accountId>` / `HOLD#<holdId>`; `status` is OPEN, CAPTURED or RELEASED."""

    holdId: str
    accountId: str
    ownerSub: str
    amountCents: int
    status: str
    createdAt: str
    updatedAt: str
    settledByRequest: NotRequired[str]


class OrderLine(TypedDict):
    sku: str
    quantity: int
    unitPriceCents: int


class OrderItem(StoredItem, RequestStamp, WriteStamp):
    """`ORDER#<owner tag>#<orderId>` / `ORDER`. `paidAt`, `refundedAt`: when its money moved, kept for good."""

    orderId: str
    ownerSub: str
    accountId: str
    status: str
    items: list[OrderLine]
    totalCents: int
    version: int
    createdAt: str
    updatedAt: str
    paidAt: NotRequired[str]
    refundedAt: NotRequired[str]


class RequestMarker(StoredItem):
    """`REQ#<digest>` / `MARKER`: a keyed write's idempotency record. A money movement's marker keeps its
    entries and, once settled, their values (`after`: entry id -> availableCentsAfter), and never expires."""

    route: str
    callerSub: str
    fingerprint: str
    response: object
    createdAt: str
    expiration: NotRequired[int]
    entries: NotRequired[list[Entry]]
    after: NotRequired[dict[str, int]]
