"""Versioned items (optimistic locking): create at version 0, change and delete only at the expected version.

Every guarded write returns the item as it was when the guard failed (ALL_OLD), so a stale
writer learns the current state from the failed write itself.
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.store import writes
from ddbguard.store.schema import PARTITION_KEY

VERSION = "version"


def absent() -> ConditionBase:
    return Attr(PARTITION_KEY).not_exists()


def at_version(expected: int) -> ConditionBase:
    """The item exists and is at `expected` (a missing item fails too)."""
    return Attr(PARTITION_KEY).exists() & Attr(VERSION).eq(expected)


def create_action(item: dict[str, Any]) -> dict:
    """Put a new item at version 0; never overwrites."""
    return writes.put({**item, VERSION: 0}, absent())


def update_action(
    key: dict[str, str],
    expected: int,
    *,
    set_values: dict[str, Any] | None = None,
    remove: tuple[str, ...] = (),
    condition: ConditionBase | None = None,
) -> dict:
    """Update at the expected version and bump it by one, in the same expression."""
    guard = at_version(expected) if condition is None else at_version(expected) & condition
    return writes.update(key, set_values=set_values, increments={VERSION: 1}, remove=remove, condition=guard)


def delete_action(key: dict[str, str], expected: int, condition: ConditionBase | None = None) -> dict:
    guard = at_version(expected) if condition is None else at_version(expected) & condition
    return writes.delete(key, guard)


def update_item(
    key: dict[str, str],
    expected: int,
    *,
    set_values: dict[str, Any] | None = None,
    remove: tuple[str, ...] = (),
    condition: ConditionBase | None = None,
) -> dict[str, Any]:
    """Single-item versioned update; returns the new item, raises ConditionFailed with the old one."""
    guard = at_version(expected) if condition is None else at_version(expected) & condition
    return writes.conditional_update(
        key, set_values=set_values, increments={VERSION: 1}, remove=remove, condition=guard
    )


def delete_item(key: dict[str, str], expected: int, condition: ConditionBase | None = None) -> None:
    guard = at_version(expected) if condition is None else at_version(expected) & condition
    writes.conditional_delete(key, guard)
