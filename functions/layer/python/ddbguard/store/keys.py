"""Key builders and parsers: one function per item kind; nothing else in ddbguard spells or takes apart a key.

The public item formats are fixed (docs/data-model.md); the rest use their own prefixes.
"""

from __future__ import annotations

import hashlib
import re

from ddbguard.store.readings import readings
from ddbguard.store.shapes import Key

__all__ = [
    "ACCOUNT_PREFIX",
    "ACCOUNT_SORT",
    "ENTRY_PREFIX",
    "HOLD_PREFIX",
    "LOCK_PREFIX",
    "LOCK_SORT",
    "ORDER_PREFIX",
    "ORDER_SORT",
    "OWNER_INDEX_PREFIX",
    "REQUEST_PREFIX",
    "UNSETTLED_SHARDS",
    "account_id_of",
    "account_key",
    "account_partition",
    "balance_key",
    "entity_key",
    "entity_partition",
    "entry_id_of",
    "entry_key",
    "hold_key",
    "is_lock_key",
    "is_owner_index_sort",
    "lock_key_of_partition",
    "lock_keys",
    "lock_partition",
    "lock_partition_pattern",
    "lock_parts",
    "order_key",
    "owner_index_key",
    "owner_index_partition",
    "owner_tag",
    "request_marker_key",
    "unsettled_shard",
    "unsettled_shards",
]

ACCOUNT_PREFIX = "ACCT#"
ORDER_PREFIX = "ORDER#"
ENTRY_PREFIX = "TXN#"
HOLD_PREFIX = "HOLD#"
LOCK_PREFIX = "UNIQ#"
REQUEST_PREFIX = "REQ#"
OWNER_INDEX_PREFIX = "OWNERS#"
LOCK_SORT = "LOCK"
ACCOUNT_SORT = "PROFILE"
ORDER_SORT = "ORDER"


def _key(partition: str, sort: str) -> Key:
    return Key(PK=partition, SK=sort)


def owner_tag(scope: str, owner_sub: str) -> str:
    """The owner's part of an owner-scoped key: a fixed-length digest of the owner within `scope` (the item
    kind), so no `sub` shape can reach or break a key, and one owner's tags differ across kinds."""
    return hashlib.sha256(f"{scope}-owner\x1f{owner_sub}".encode()).hexdigest()[:32]


def entity_partition(prefix: str, item_id: str, owner_scope: str | None = None, owner_sub: str | None = None) -> str:
    """`<prefix><id>`, or for ids scoped to their owner `<prefix><owner tag>#<id>`."""
    if owner_scope is None:
        return f"{prefix}{item_id}"
    if owner_sub is None:
        raise ValueError("an owner-scoped key needs its owner")
    return f"{prefix}{owner_tag(owner_scope, owner_sub)}#{item_id}"


def entity_key(partition: str, sort: str) -> Key:
    return _key(partition, sort)


def account_partition(account_id: str) -> str:
    return entity_partition(ACCOUNT_PREFIX, account_id)


def account_key(account_id: str) -> Key:
    return _key(account_partition(account_id), ACCOUNT_SORT)


def lock_partition_pattern(kind: str) -> str:
    """The IAM `dynamodb:LeadingKeys` pattern of one lock kind's items."""
    return f"{LOCK_PREFIX}{kind}#*"


def lock_parts(partition: str) -> tuple[str, str]:
    """(kind, value) of a lock's partition key `UNIQ#<KIND>#<value>`; the value may contain '#'."""
    kind, _, value = partition.removeprefix(LOCK_PREFIX).partition("#")
    return kind, value


def is_lock_key(partition: str, sort: object) -> bool:
    return partition.startswith(LOCK_PREFIX) and sort == LOCK_SORT


def lock_keys(kind: str, normalised_value: str) -> tuple[Key, ...]:
    """kind names the unique field's lock (EMAIL, HANDLE, ...); the value is already normalised. One lock per way
    a person may read the value (`ddbguard.store.readings`), sorted: look-alike spellings share a key, and a value
    that reads two ways (Greek nu: v, and N in capitals) holds both."""
    return tuple(lock_key_of_partition(lock_partition(kind, reading)) for reading in readings(normalised_value))


def lock_partition(kind: str, keyed_value: str) -> str:
    """`UNIQ#<KIND>#<value>` for a value already in its keyed form (a reading, or a pseudonym's tag)."""
    return f"{LOCK_PREFIX}{kind}#{keyed_value}"


def lock_key_of_partition(partition: str) -> Key:
    return _key(partition, LOCK_SORT)


def balance_key(account_id: str) -> Key:
    return _key(account_partition(account_id), "BALANCE")


# Partition-key values of the unsettled-balances index: enough that no one value takes more than a fraction of the
# index's writes (one per balance that starts or stops waiting), few enough that a sweep's reads stay a handful.
UNSETTLED_SHARDS = 16


def unsettled_shard(account_id: str) -> str:
    """The unsettled-balances index partition a balance falls in, fixed by its account id."""
    return f"{hashlib.sha256(account_id.encode()).digest()[0] % UNSETTLED_SHARDS:02d}"


def unsettled_shards() -> tuple[str, ...]:
    return tuple(f"{shard:02d}" for shard in range(UNSETTLED_SHARDS))


def account_id_of(partition: str) -> str | None:
    """The account id of an `ACCT#<accountId>` partition key, else None."""
    return partition.removeprefix(ACCOUNT_PREFIX) if partition.startswith(ACCOUNT_PREFIX) else None


def entry_key(account_id: str, entry_id: str) -> Key:
    return _key(account_partition(account_id), f"{ENTRY_PREFIX}{entry_id}")


def entry_id_of(sort: str) -> str | None:
    """The entry id of a ledger entry's `TXN#<entryId>` sort key, else None."""
    return sort.removeprefix(ENTRY_PREFIX) if sort.startswith(ENTRY_PREFIX) else None


def hold_key(account_id: str, hold_id: str) -> Key:
    return _key(account_partition(account_id), f"{HOLD_PREFIX}{hold_id}")


def order_key(owner_sub: str, order_id: str) -> Key:
    """`ORDER#<owner tag>#<orderId>`: order ids are per owner, so another caller's id is as free to you as an
    unused one (docs/decisions/028-order-ids-are-per-owner.md)."""
    return _key(entity_partition(ORDER_PREFIX, order_id, "order", owner_sub), ORDER_SORT)


def request_marker_key(request_digest: str) -> Key:
    """The request marker of every keyed write (its idempotency record and replay guard); the digest comes from
    caller + route + idempotency key."""
    return _key(f"{REQUEST_PREFIX}{request_digest}", "MARKER")


def owner_index_partition(owner_sub: str) -> str:
    return f"{OWNER_INDEX_PREFIX}{owner_sub}"


def owner_index_key(owner_sub: str, created_at: str, item_id: str, prefix: str = ACCOUNT_PREFIX) -> Key:
    """One item (an account by default) in its owner's list: sorts by kind, creation time (ISO 8601 UTC), id."""
    return _key(owner_index_partition(owner_sub), f"{prefix}{created_at}#{item_id}")


# An owner-index sort key: `<item prefix><createdAt, ISO 8601 UTC>#<id>`.
_OWNER_INDEX_SORT = re.compile(r"\d{4}-\d{2}-\d{2}T[0-9:.]+Z#[A-Za-z0-9_-]{1,64}")


def is_owner_index_sort(sort: str, prefix: str = ACCOUNT_PREFIX) -> bool:
    """True when `sort` is the sort key of an owner-index entry of the kind whose prefix is `prefix`."""
    return sort.startswith(prefix) and _OWNER_INDEX_SORT.fullmatch(sort.removeprefix(prefix)) is not None
