"""What a function may do to the table for an entity's create, get, update and delete: DynamoDB actions, each with
the partition-key patterns it reaches (IAM `StringLike` syntax, for `dynamodb:LeadingKeys`).

One derivation for every user of the generic operations (`ddbguard.guards.entity_operations`): the product's route
table grants it to each route's function, and `ddbguard_cdk` grants it to a team's own function. The patterns follow
the keys `ddbguard.store.keys` builds; the product's tests check every pattern against them and every grant against
the calls the suite makes (tests/test_table_access.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ddbguard.guards.entity import Entity
from ddbguard.store.keys import OWNER_INDEX_PREFIX, REQUEST_PREFIX

__all__ = ["INDEX_PREFIX", "OWNER_INDEX", "REQUEST_MARKERS", "TableAccess", "crud_access", "merged_access"]

# Action (`PutItem`) -> the partition-key patterns it may name (`TEAM#*`), or `index/<name>` for a secondary index.
TableAccess = Mapping[str, tuple[str, ...]]

REQUEST_MARKERS = f"{REQUEST_PREFIX}*"  # the request markers (idempotency records) of keyed writes
OWNER_INDEX = f"{OWNER_INDEX_PREFIX}*"  # one item per owned item under its owner, for entities with `owner_index`
INDEX_PREFIX = "index/"  # not a partition: a secondary index of the table, by name


def crud_access(entity: Entity, method: str) -> dict[str, tuple[str, ...]]:
    """The access of `entity`'s generic operation for `method` (POST create, GET, PATCH update, DELETE), with or
    without an Idempotency-Key."""
    items, locks = entity.partition_pattern, entity.lock_patterns
    index = (OWNER_INDEX,) if entity.owner_index else ()
    if method == "POST":  # a create: the item, its locks, its index entry and the marker in one transaction
        return {"PutItem": (items, *locks, *index, REQUEST_MARKERS)}
    if method == "GET":
        return {"GetItem": (items,)}
    if method == "PATCH":
        # Unkeyed: one UpdateItem. Keyed: the item and the marker read together, then the update and the marker in
        # one transaction. A unique update reads the item, then swaps the locks in that transaction.
        access = {"BatchGetItem": (items, REQUEST_MARKERS), "UpdateItem": (items,), "PutItem": (REQUEST_MARKERS,)}
        if locks:
            access = {**access, "GetItem": (items,), "PutItem": (*locks, REQUEST_MARKERS), "DeleteItem": locks}
        return access
    if method == "DELETE":
        # The item becomes its tombstone (a Put). With locks or an index entry, read first (with the marker, given
        # a key), and delete those in the same transaction (the item itself is overwritten, never deleted).
        if locks or index:
            read = {"GetItem": (items,), "BatchGetItem": (items, REQUEST_MARKERS)}
            return {**read, "PutItem": (items, REQUEST_MARKERS), "DeleteItem": (*locks, *index)}
        return {"PutItem": (items, REQUEST_MARKERS)}
    raise ValueError(f"no generic {method} operation")


def merged_access(accesses: Iterable[TableAccess]) -> dict[str, tuple[str, ...]]:
    """One access holding every action and pattern of `accesses` (for a function serving several routes)."""
    merged: dict[str, tuple[str, ...]] = {}
    for access in accesses:
        for action, patterns in access.items():
            merged[action] = tuple(dict.fromkeys((*merged.get(action, ()), *patterns)))
    return merged
