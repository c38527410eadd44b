"""Ownership: an item is read and changed only by its owner, and "not yours" answers exactly like "absent".

The owner check is part of every write's condition (`owned_by`); after a refused write, or after
a read, `visible_or_refuse` turns an item that is absent or someone else's into the same NotFound,
so a caller can never learn that another caller's resource exists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.errors import NotFound
from ddbguard.store.attribute_names import OWNER_SUB, PK

__all__ = ["Owned", "is_visible", "owned_by", "visible_or_refuse"]


def owned_by(owner_sub: str, *, owner_attribute: str = OWNER_SUB) -> ConditionBase:
    """Condition: the item exists and belongs to `owner_sub` (an entity may keep its owner in another attribute)."""
    return Attr(PK).exists() & Attr(owner_attribute).eq(owner_sub)


def is_visible(
    item: Mapping[str, object] | None, caller_sub: str, *, is_admin: bool = False, owner_attribute: str = OWNER_SUB
) -> bool:
    """The caller may see the item: it exists and is theirs, or the caller is an admin."""
    return item is not None and (is_admin or item.get(owner_attribute) == caller_sub)


Owned = TypeVar("Owned", bound=Mapping[str, object])


def visible_or_refuse(
    item: Owned | None, caller_sub: str, refusal: Callable[[], NotFound], *, is_admin: bool = False
) -> Owned:
    """The item if the caller may see it; otherwise `refusal()`, the same for absent and not yours."""
    if item is None or not is_visible(item, caller_sub, is_admin=is_admin):
        raise refusal()
    return item
