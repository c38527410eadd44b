"""Key builders: one function per item kind; nothing else in ddbguard spells a key.

Formats are fixed by the contract (section 4); the rest use their own prefixes.
"""

from __future__ import annotations

from ddbguard.store.shapes import Key

ACCOUNT_PREFIX = "ACCT#"
ORDER_PREFIX = "ORDER#"
ENTRY_PREFIX = "TXN#"
HOLD_PREFIX = "HOLD#"
LOCK_PREFIX = "UNIQ#"
REQUEST_PREFIX = "REQ#"
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


def order_key(order_id: str) -> Key:
    return _key(f"{ORDER_PREFIX}{order_id}", "ORDER")


def request_marker_key(request_digest: str) -> Key:
    """A money movement's replay guard; the digest comes from caller + route + idempotency key."""
    return _key(f"{REQUEST_PREFIX}{request_digest}", "MARKER")
