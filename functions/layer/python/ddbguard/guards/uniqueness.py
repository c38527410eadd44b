"""Uniqueness beyond the primary key: one lock item per protected value, written in the owner's transaction.

DynamoDB only enforces uniqueness of a key, so each protected value becomes the key of a lock
item (`UNIQ#<KIND>#<normalised value>`, SK `LOCK`) that records its `owner` (the owning entity's
partition key, e.g. `ACCT#<id>`). Reserving puts the lock with `attribute_not_exists`; releasing
deletes it only while it is still the owner's. The actions go into the same TransactWriteItems as
the owner's own write, so the engine's key collision is the constraint and no read before the
write decides anything. Which values were taken is read from the cancellation reasons by the
lock's slot in the transaction plan: every taken field is reported, not only the first.

Not account-specific: any declared entity (`ddbguard.guards.entity`) uses the same functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from boto3.dynamodb.conditions import Attr

from ddbguard.guards.entity import Entity
from ddbguard.store import keys, writes
from ddbguard.store.attribute_names import FIELD, KIND, OWNER, PK, VALUE
from ddbguard.store.items import LockItem
from ddbguard.store.plan import PlanCancelled
from ddbguard.store.shapes import Action, Key

RELEASES = "lock releases"  # the plan slot of the locks a change gives up


class ProtectedValue(NamedTuple):
    """A value that must be unique: the request field it came from, its lock kind, its normalised form."""

    field: str
    kind: str
    value: str

    @property
    def key(self) -> Key:
        return keys.lock_key(self.kind, self.value)


def lock_slot(field: str) -> str:
    """The plan slot of the lock a write reserves for `field`."""
    return f"lock:{field}"


def protected_values(entity: Entity, values: Mapping[str, object]) -> list[ProtectedValue]:
    """The entity's unique values found in `values` (a body or a stored item), in declaration order."""
    return [
        ProtectedValue(unique.field, unique.lock_kind, value)
        for unique in entity.unique
        if isinstance(value := values.get(unique.field), str)
    ]


def lock_item(owner: str, protected: ProtectedValue) -> LockItem:
    """The lock as stored. No timestamps: a retried transaction must render the same request."""
    return {
        **protected.key,
        KIND: "lock",
        OWNER: owner,
        FIELD: protected.field,
        VALUE: protected.value,
    }


def reserve_unique_values(owner: str, values: Sequence[ProtectedValue]) -> list[Action]:
    """Put one lock per value, each only if nobody holds it (actions in the order of `values`)."""
    return [writes.put(lock_item(owner, value), Attr(PK).not_exists()) for value in values]


def release_unique_values(owner: str, values: Sequence[ProtectedValue]) -> list[Action]:
    """Delete one lock per value, each only while `owner` holds it.

    A lock that is already gone does not block the owner's write (a release has nothing to do);
    a lock held by someone else is never deleted: that action's guard fails.
    """
    still_ours = Attr(PK).not_exists() | Attr(OWNER).eq(owner)
    return [writes.delete(value.key, still_ours) for value in values]


def swap_unique_value(owner: str, old: ProtectedValue, new: ProtectedValue) -> tuple[list[Action], list[Action]]:
    """(reserve actions, release actions) that move `owner` from `old` to `new`.

    The same normalised value is no change: no action at all (DynamoDB rejects two operations on
    one item in a transaction, and the lock is already the owner's).
    """
    if old.key == new.key:
        return [], []
    return reserve_unique_values(owner, [new]), release_unique_values(owner, [old])


def taken_fields(cancelled: PlanCancelled, reserved: Sequence[ProtectedValue]) -> list[str]:
    """Every field whose lock put (slot `lock_slot(field)`) failed: held by another owner."""
    return [value.field for value in reserved if cancelled.failed(lock_slot(value.field))]
