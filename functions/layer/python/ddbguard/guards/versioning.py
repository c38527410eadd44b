"""Versioned items (optimistic locking): create at version 0, change and delete only at the expected version.

Every guarded write returns the item as it was when the guard failed (ALL_OLD), so a stale
writer learns the current state from the failed write itself.
"""

from __future__ import annotations

from collections.abc import Mapping

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.store import writes
from ddbguard.store.schema import PARTITION_KEY, VERSION
from ddbguard.store.shapes import Action, Item, Key

FIRST_VERSION = 0


def absent() -> ConditionBase:
    return Attr(PARTITION_KEY).not_exists()


def at_version(expected: int, condition: ConditionBase | None = None) -> ConditionBase:
    """The item exists and is at `expected` (a missing item fails too), and `condition` holds."""
    guard: ConditionBase = Attr(PARTITION_KEY).exists() & Attr(VERSION).eq(expected)
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
        key, set_values=set_values, increments={VERSION: 1}, remove=remove, condition=at_version(expected, condition)
    )


def delete_action(key: Key, expected: int, condition: ConditionBase | None = None) -> Action:
    return writes.delete(key, at_version(expected, condition))


def update_item(
    key: Key,
    expected: int,
    *,
    set_values: Mapping[str, object] | None = None,
    remove: tuple[str, ...] = (),
    condition: ConditionBase | None = None,
) -> Item:
    """Single-item versioned update; returns the new item, raises ConditionFailed with the old one."""
    return writes.conditional_update(
        key, set_values=set_values, increments={VERSION: 1}, remove=remove, condition=at_version(expected, condition)
    )


def delete_item(key: Key, expected: int, condition: ConditionBase | None = None) -> None:
    writes.conditional_delete(key, at_version(expected, condition))
