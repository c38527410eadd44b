"""Versioned items (optimistic locking): create at version 0, change and delete only at the expected version.

Every guarded write returns the item as it was when the guard failed (ALL_OLD), so a stale
writer learns the current state from the failed write itself.

A delete leaves a tombstone (`kind: "tombstone"`, no owner, no values) rather than nothing, so the id can never
name a second item: a create's `attribute_not_exists` fails on it, and every owner-checked read or write finds no
owner there, as for an absent item.

Every change writes a fresh `writeToken`. A single-item write whose answer was lost is sent again by botocore;
its guard then fails on the item its first attempt wrote, and the token in that ALL_OLD item tells the caller
the write is its own, committed (a transaction needs none: botocore re-sends it with the same
ClientRequestToken, which DynamoDB answers without applying it twice).
"""

from __future__ import annotations

from collections.abc import Mapping

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.store import writes
from ddbguard.store.attribute_names import DELETED_AT, DELETED_KIND, KIND, PK, SK, VERSION, WRITE_TOKEN
from ddbguard.store.ids import new_id, now_iso
from ddbguard.store.shapes import Action, Item, Key

__all__ = [
    "FIRST_VERSION",
    "TOMBSTONE",
    "absent",
    "as_created",
    "at_version",
    "create_action",
    "delete_action",
    "delete_item",
    "is_tombstone",
    "tombstone",
    "update_action",
    "update_item",
]

FIRST_VERSION = 0
TOMBSTONE = "tombstone"  # the `kind` of what a deleted item leaves


def absent() -> ConditionBase:
    return Attr(PK).not_exists()


def at_version(expected: int, condition: ConditionBase | None = None) -> ConditionBase:
    """The item exists and is at `expected` (a missing item fails too), and `condition` holds."""
    guard: ConditionBase = Attr(PK).exists() & Attr(VERSION).eq(expected)
    return guard if condition is None else guard & condition


def as_created(item: Mapping[str, object]) -> dict[str, object]:
    """The item as a versioned create writes it."""
    return {**item, VERSION: FIRST_VERSION}


def create_action(item: Mapping[str, object]) -> Action:
    """Put a new item at version 0; never overwrites."""
    return writes.put(as_created(item), absent())


def update_action(
    key: Key,
    expected: int,
    *,
    set_values: Mapping[str, object] | None = None,
    remove: tuple[str, ...] = (),
    condition: ConditionBase | None = None,
) -> Action:
    """Update at the expected version and bump it by one, in the same expression."""
    return writes.update(
        key,
        set_values={**(set_values or {}), WRITE_TOKEN: new_id()},
        increments={VERSION: 1},
        remove=remove,
        condition=at_version(expected, condition),
    )


def is_tombstone(item: Mapping[str, object] | None) -> bool:
    return item is not None and item.get(KIND) == TOMBSTONE


def tombstone(key: Key, deleted_kind: str, token: str) -> dict[str, object]:
    """What a deleted item leaves: its key, what it was and when it went; no owner, no values."""
    return {
        PK: key[PK],
        SK: key[SK],
        KIND: TOMBSTONE,
        DELETED_KIND: deleted_kind,
        DELETED_AT: now_iso(),
        WRITE_TOKEN: token,
    }


def delete_action(key: Key, expected: int, deleted_kind: str, condition: ConditionBase | None = None) -> Action:
    """Replace the item at the expected version with its tombstone."""
    return writes.put(tombstone(key, deleted_kind, new_id()), at_version(expected, condition))


def update_item(
    key: Key,
    expected: int,
    *,
    set_values: Mapping[str, object] | None = None,
    remove: tuple[str, ...] = (),
    condition: ConditionBase | None = None,
) -> Item:
    """Single-item versioned update; returns the new item, raises ConditionFailed with the old one (unless that
    is the item this very write made, its answer lost: then it is the new item)."""
    token = new_id()
    try:
        return writes.conditional_update(
            key,
            set_values={**(set_values or {}), WRITE_TOKEN: token},
            increments={VERSION: 1},
            remove=remove,
            condition=at_version(expected, condition),
        )
    except writes.ConditionFailed as failed:
        if failed.item is not None and failed.item.get(WRITE_TOKEN) == token:
            return failed.item
        raise


def delete_item(key: Key, expected: int, deleted_kind: str, condition: ConditionBase | None = None) -> None:
    """Single-item versioned delete (the item becomes its tombstone); raises ConditionFailed with the old item,
    unless that is the tombstone this very write left, its answer lost."""
    token = new_id()
    try:
        writes.conditional_put(tombstone(key, deleted_kind, token), at_version(expected, condition))
    except writes.ConditionFailed as failed:
        if not (is_tombstone(failed.item) and failed.item is not None and failed.item.get(WRITE_TOKEN) == token):
            raise
