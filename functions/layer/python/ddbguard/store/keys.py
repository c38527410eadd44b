"""Key builders: one function per item kind; nothing else in ddbguard spells a key.

The public item formats are fixed (docs/data-model.md); the rest use their own prefixes.
"""

from __future__ import annotations

import hashlib

from ddbguard.store.shapes import Key

ACCOUNT_PREFIX = "ACCT#"
ORDER_PREFIX = "ORDER#"
ENTRY_PREFIX = "TXN#"
HOLD_PREFIX = "HOLD#"
LOCK_PREFIX = "UNIQ#"
REQUEST_PREFIX = "REQ#"
OWNER_INDEX_PREFIX = "OWNERS#"
LOCK_SORT = "LOCK"


def _key(partition: str, sort: str) -> Key:
    return Key(PK=partition, SK=sort)


def account_partition(account_id: str) -> str:
    return f"{ACCOUNT_PREFIX}{account_id}"


def account_key(account_id: str) -> Key:
    return _key(account_partition(account_id), "PROFILE")


def lock_key(kind: str, normalised_value: str) -> Key:
    """kind is EMAIL or HANDLE; the value is already normalised."""
    return _key(f"{LOCK_PREFIX}{kind}#{normalised_value}", LOCK_SORT)


def balance_key(account_id: str) -> Key:
    return _key(account_partition(account_id), "BALANCE")


def entry_key(account_id: str, entry_id: str) -> Key:
    return _key(account_partition(account_id), f"{ENTRY_PREFIX}{entry_id}")


def hold_key(account_id: str, hold_id: str) -> Key:
    return _key(account_partition(account_id), f"{HOLD_PREFIX}{hold_id}")


def order_owner_tag(owner_sub: str) -> str:
    """The owner's part of an order key: a fixed-length digest, so no `sub` shape can reach or break a key."""
    return hashlib.sha256(f"order-owner\x1f{owner_sub}".encode()).hexdigest()[:32]


def order_key(owner_sub: str, order_id: str) -> Key:
    """`ORDER#<owner tag>#<orderId>`: order ids are per owner, so another caller's id is as free to you as an
    unused one (docs/decisions.md, "Order ids are per owner")."""
    return _key(f"{ORDER_PREFIX}{order_owner_tag(owner_sub)}#{order_id}", "ORDER")


def request_marker_key(request_digest: str) -> Key:
    """The request marker of every keyed write (its idempotency record and replay guard); the digest comes from
    caller + route + idempotency key."""
    return _key(f"{REQUEST_PREFIX}{request_digest}", "MARKER")


def owner_index_partition(owner_sub: str) -> str:
    return f"{OWNER_INDEX_PREFIX}{owner_sub}"


def owner_index_key(owner_sub: str, created_at: str, account_id: str) -> Key:
    """One account in its owner's list: sorts by creation time (ISO 8601 UTC), then id."""
    return _key(owner_index_partition(owner_sub), f"{ACCOUNT_PREFIX}{created_at}#{account_id}")
