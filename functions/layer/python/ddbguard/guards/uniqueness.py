"""Uniqueness beyond the primary key: one lock item per protected value, written in the owner's transaction.

DynamoDB only enforces uniqueness of a key, so each protected value becomes the key of lock items
(`UNIQ#<KIND>#<reading>`, SK `LOCK`), one per way a person may read the value (`ddbguard.store.readings`:
most values read one way; Greek nu reads as v, and as N in capitals), each recording its `owner` (the owning
entity's partition key, e.g. `ACCT#<id>`). Reserving puts every lock with `attribute_not_exists`; releasing
deletes each only while it is still the owner's. The actions go into the same TransactWriteItems as
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

__all__ = [
    "RELEASES",
    "ProtectedValue",
    "lock_item",
    "lock_slot",
    "protected_values",
    "release_locks",
    "release_unique_values",
    "reserve_locks",
    "reserve_unique_values",
    "swap_unique_value",
    "taken_fields",
]

RELEASES = "lock releases"  # the plan slot of the locks a change gives up


class ProtectedValue(NamedTuple):
    """A value that must be unique: the request field it came from, its lock kind, its normalised form."""

    field: str
    kind: str
    value: str

    @property
    def keys(self) -> tuple[Key, ...]:
        """Its locks' keys, one per reading, sorted."""
        return keys.lock_keys(self.kind, self.value)


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


def lock_item(owner: str, protected: ProtectedValue, key: Key) -> LockItem:
    """One of the value's locks as stored. No timestamps: a retried transaction must render the same request."""
    return {
        **key,
        KIND: "lock",
        OWNER: owner,
        FIELD: protected.field,
        VALUE: protected.value,
    }


def reserve_locks(owner: str, protected: ProtectedValue, lock_keys: Sequence[Key]) -> list[Action]:
    """Put the value's locks at `lock_keys`, each only if nobody holds it."""
    return [writes.put(lock_item(owner, protected, key), Attr(PK).not_exists()) for key in lock_keys]


def reserve_unique_values(owner: str, values: Sequence[ProtectedValue]) -> list[Action]:
    """Put every lock of every value, each only if nobody holds it (in the order of `values`, then of keys)."""
    return [action for value in values for action in reserve_locks(owner, value, value.keys)]


def release_locks(owner: str, lock_keys: Sequence[Key]) -> list[Action]:
    """Delete the locks at `lock_keys`, each only while `owner` holds it.

    A lock that is already gone does not block the owner's write (a release has nothing to do);
    a lock held by someone else is never deleted: that action's guard fails.
    """
    still_ours = Attr(PK).not_exists() | Attr(OWNER).eq(owner)
    return [writes.delete(key, still_ours) for key in lock_keys]


def release_unique_values(owner: str, values: Sequence[ProtectedValue]) -> list[Action]:
    """Delete every lock of every value, each only while `owner` holds it."""
    return release_locks(owner, [key for value in values for key in value.keys])


def swap_unique_value(owner: str, old: ProtectedValue, new: ProtectedValue) -> tuple[list[Action], list[Action]]:
    """(reserve actions, release actions) that move `owner` from `old` to `new`: the new value's locks it does not
    hold yet are put, the old value's locks the new value does not need are deleted.

    A lock both values need is left as it is (DynamoDB rejects two operations on one item in a transaction, and
    the lock is already the owner's): the same normalised value, or a look-alike of it, moves nothing.
    """
    old_keys, new_keys = old.keys, new.keys
    taken = [key for key in new_keys if key not in old_keys]
    given_up = [key for key in old_keys if key not in new_keys]
    return reserve_locks(owner, new, taken), release_locks(owner, given_up)


def taken_fields(cancelled: PlanCancelled, reserved: Sequence[ProtectedValue]) -> list[str]:
    """Every field one of whose lock puts (slot `lock_slot(field)`) failed: held by another owner."""
    return [value.field for value in reserved if cancelled.failed(lock_slot(value.field))]
