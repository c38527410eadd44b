"""The shapes that cross the storage boundary, as types (the wire format stays boto3's)."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["Action", "Item", "Key"]

# A stored item of no particular kind, in Python values (what `codec.from_item` returns): attribute name -> value.
# Each kind's typed view is in `ddbguard.store.items`; `reads.as_kind` sees an item as its kind.
Item = dict[str, Any]


class Key(TypedDict):
    """A primary key: both attributes are strings (docs/data-model.md)."""

    PK: str
    SK: str


class Action(TypedDict, total=False):
    """One TransactWriteItems action: exactly one of the four keys is present."""

    Put: dict[str, Any]
    Update: dict[str, Any]
    Delete: dict[str, Any]
    ConditionCheck: dict[str, Any]
