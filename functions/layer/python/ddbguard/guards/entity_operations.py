"""Create, get, versioned update and versioned delete for any declared entity (`ddbguard.guards.entity`).

Every write is one TransactWriteItems (or one conditional single-item write) whose conditions carry
every rule: the owner check, the expected `version`, the locks' `attribute_not_exists` / `owner`, and
whatever the domain adds (`checks`: named extra actions with their refusal; `condition`: more for the
item's own guard). A refusal is explained from the failed write's cancellation reasons and ALL_OLD
items, read back by slot name, never from a read before it: 404 (absent or not yours answer alike),
412 with the current item, 409 naming every taken unique field, or the domain's own (`explain`).
With an Idempotency-Key every write is a transaction led by the request marker, so a retry answers the
first response and the same key with another request is 422, whatever changed since. Keyed updates,
updates that change a unique value, and deletes of an entity with locks or an owner-index entry read the
item once (with the marker, given a key) to learn what to swap or release and to compose the reply; that
read decides nothing, since the write only succeeds at the version it read. A delete leaves a tombstone
(`ddbguard.guards.versioning`), so an id never names a second item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypedDict, TypeVar, cast

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.errors import (
    AlreadyExists,
    DomainError,
    FieldError,
    InvalidInput,
    InvalidTransition,
    NotFound,
    UniqueViolation,
    VersionConflict,
)
from ddbguard.guards import owner_index, replays, uniqueness, versioning
from ddbguard.guards.entity import Entity, PublicItem
from ddbguard.guards.ownership import is_visible, owned_by
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.guards.uniqueness import RELEASES, ProtectedValue, lock_slot, protected_values
from ddbguard.observability import MetricName, count, logger
from ddbguard.store import reads, writes
from ddbguard.store.attribute_names import CREATED_AT, KIND, UPDATED_AT, VERSION
from ddbguard.store.ids import new_id, now_iso
from ddbguard.store.plan import PlanCancelled, TransactionPlan
from ddbguard.store.shapes import Action, Item

__all__ = [
    "ITEM",
    "NOTHING_TO_CHANGE",
    "OWNER_INDEX_SLOT",
    "Checks",
    "DeleteRules",
    "Explain",
    "Response",
    "Rules",
    "create",
    "delete",
    "get",
    "not_found",
    "read_visible",
    "refusal",
    "update",
]

ITEM = "item"  # the entity's own write, in its plan
OWNER_INDEX_SLOT = "owner index"
NOTHING_TO_CHANGE = FieldError("body", "required", "Send at least one field to change.")

# An extra action of the domain's, by slot name: the action and how to explain its failed guard (ALL_OLD item).
Checks = Mapping[str, tuple[Action, Callable[[Item | None], DomainError]]]
# The domain's reason for a refused write of a visible item (None: the version was stale).
Explain = Callable[[Item], DomainError | None]


class Rules(TypedDict, total=False):
    """What a domain adds to a generic update: more for the item's guard, and its reading of a refusal. A route
    served by the generic operations names the domain module that gives them (`Route.rules`)."""

    condition: ConditionBase
    explain: Explain


class DeleteRules(Rules, total=False):
    """What a domain adds to a generic delete: an update's rules, and named extra actions (`checks`)."""

    checks: Checks


def only_in(
    entity: Entity, field: str, allowed: tuple[str, ...], item_id: str, expected: int, target: object
) -> DeleteRules:
    """A domain's status rule for a generic update or delete: the write's own condition asks that `field` is one of
    `allowed`; a refusal of a visible item at the expected version is 409 invalid_transition from its value to
    `target` (the value sent, or a word such as "DELETED"; None: the value it has), with the item as it was. Typed
    as a delete's rules, which an update's accept too."""
    if not allowed:
        raise ValueError("no allowed value: DynamoDB refuses an empty IN list")

    def explain(item: Item) -> DomainError | None:
        if item.get(VERSION) != expected:
            return None  # stale: 412 with the current item
        current = str(item.get(field))
        requested = current if target is None else str(target)
        return InvalidTransition(current, requested, entity.project(item), subject=f"{entity.title} {item_id}")

    return {"condition": Attr(field).is_in(list(allowed)), "explain": explain}


def not_found(entity: Entity, item_id: str) -> NotFound:
    return NotFound(entity.not_found, f"No {entity.kind} {item_id}.")


def _visible(entity: Entity, item: Item | None, caller_sub: str, *, is_admin: bool = False) -> bool:
    """The caller may see the item: it lives (a tombstone is nobody's) and it is theirs, or they are an admin."""
    live = not versioning.is_tombstone(item)
    return live and is_visible(item, caller_sub, is_admin=is_admin, owner_attribute=entity.owner)


def _owner_guard(entity: Entity, owner_sub: str, condition: ConditionBase | None = None) -> ConditionBase:
    """The item is the owner's, and the domain's `condition` holds."""
    guard = owned_by(owner_sub, owner_attribute=entity.owner)
    return guard if condition is None else guard & condition


def refusal(
    entity: Entity, item_id: str, owner_sub: str, expected: int, item: Item | None, explain: Explain | None = None
) -> DomainError:
    """Why a versioned, owner-checked write failed, from its ALL_OLD item."""
    if item is None or not _visible(entity, item, owner_sub):
        return not_found(entity, item_id)  # not yours answers exactly like absent
    domain_reason = explain(item) if explain is not None else None
    if domain_reason is not None:
        return domain_reason
    count(MetricName.VERSION_CONFLICT)
    return VersionConflict(entity.project(item), expected)


Response = TypeVar("Response")


def _commit(plan: TransactionPlan, identity: RequestIdentity | None, response: Response) -> Response:
    """Commit `plan` with the request's marker; the (first) response.

    A release whose lock another owner holds (a broken table; the lock audit reports it) fails its
    guard; that lock is not ours to delete, so the rest is sent again without it rather than refusing
    the owner's change for ever.
    """
    try:
        return replays.commit_once(plan, identity, response)[1]
    except PlanCancelled as cancelled:
        if not cancelled.failed(RELEASES) or cancelled.failed_elsewhere(RELEASES):
            raise
        skipped = cancelled.failed_members(RELEASES)
        logger.warning("lock held by another owner left in place", extra={"skipped": len(skipped)})
        return replays.commit_once(plan.without(RELEASES, skipped), identity, response)[1]


def _refuse_checks(cancelled: PlanCancelled, checks: Checks) -> None:
    for name, (_, refuse) in checks.items():
        if cancelled.failed(name):
            raise refuse(cancelled.item(name)) from None


def _unique_violation(cancelled: PlanCancelled, reserved: list[ProtectedValue]) -> None:
    taken = uniqueness.taken_fields(cancelled, reserved)
    if taken:
        count(MetricName.UNIQUE_VIOLATION)
        raise UniqueViolation(taken) from None


# --- create -----------------------------------------------------------------------------------


def create(
    entity: Entity,
    owner_sub: str,
    values: Mapping[str, object],
    *,
    item_id: str | None = None,
    identity: RequestIdentity | None = None,
    checks: Checks | None = None,
) -> PublicItem:
    """Put the item (version 0 if versioned), its locks, its owner-index entry and the request marker, in one
    transaction; returns the public item. `values` None are left out; unique ones are stored normalised.

    With an Idempotency-Key and no client-chosen id, the id derives from the request, so a retry whose first
    attempt committed finds its own item.
    """
    checks = checks or {}
    unique = entity.normalised(values)
    if item_id is None:
        item_id = identity.derived_id(entity.kind) if identity else new_id()
    now = now_iso()
    item: Item = {
        **entity.key(item_id, owner_sub),
        KIND: entity.kind,
        entity.id_field: item_id,
        entity.owner: owner_sub,
        **{name: value for name, value in values.items() if value is not None},
        **unique,
        CREATED_AT: now,
        UPDATED_AT: now,
        **replays.request_stamp(identity),
    }
    plan = TransactionPlan()
    for name, (action, _) in checks.items():
        plan = plan.add(name, action)
    if entity.versioned:
        plan, item = plan.add(ITEM, versioning.create_action(item)), versioning.as_created(item)
    else:
        plan = plan.add(ITEM, writes.put(item, versioning.absent()))
    reserved = protected_values(entity, unique)
    for value in reserved:
        plan = plan.add(
            lock_slot(value.field), *uniqueness.reserve_unique_values(entity.partition(item_id, owner_sub), [value])
        )
    if entity.owner_index:
        plan = plan.add(
            OWNER_INDEX_SLOT,
            owner_index.put_action(owner_sub, now, item_id, prefix=entity.prefix, id_field=entity.id_field),
        )
    try:
        _, reply = replays.commit_once(plan, identity, entity.project(item))
    except PlanCancelled as cancelled:
        _refuse_checks(cancelled, checks)
        if cancelled.failed(ITEM):
            if versioning.is_tombstone(cancelled.item(ITEM)):
                raise AlreadyExists(f"{entity.title} {item_id} was deleted; an id is never given again.") from None
            raise AlreadyExists(f"{entity.title} {item_id} already exists.") from None
        _unique_violation(cancelled, reserved)
        raise
    return reply


# --- read -------------------------------------------------------------------------------------


def read_visible(entity: Entity, item_id: str, caller_sub: str, *, is_admin: bool = False) -> Item:
    """The stored item if the caller may see it (admins: any); otherwise NotFound, as if absent."""
    item = reads.get_item(entity.key(item_id, caller_sub))
    if item is None or not _visible(entity, item, caller_sub, is_admin=is_admin):
        raise not_found(entity, item_id)
    return item


def get(entity: Entity, item_id: str, caller_sub: str, *, is_admin: bool = False) -> PublicItem:
    """The public item, one GetItem."""
    return entity.project(read_visible(entity, item_id, caller_sub, is_admin=is_admin))


# --- update -----------------------------------------------------------------------------------


def update(
    entity: Entity,
    item_id: str,
    owner_sub: str,
    expected: int,
    values: Mapping[str, object],
    *,
    identity: RequestIdentity | None = None,
    condition: ConditionBase | None = None,
    explain: Explain | None = None,
) -> PublicItem:
    """Change the item at the expected version; a changed unique value swaps exactly its lock in the same
    transaction (new lock put only if free, old one deleted only while still ours). `values` None are not sent.

    Without an Idempotency-Key, a change of no unique value (or of unique values whose normalised form is
    unchanged) is one versioned UpdateItem. With a key, or with a unique value to swap, it is one transaction
    (with the key: led by the request marker, so the key answers the same way whatever changed since), after one
    read of the item (and the marker) that tells the locks to swap and composes the reply, since a transaction
    returns no item. Returns the public item as written. Nothing to change is 422: a write that only bumps the
    version would tell every other client its copy went stale for no reason.
    """
    if all(value is None for value in values.values()):
        raise InvalidInput("Send at least one field to change.", [NOTHING_TO_CHANGE])
    unique = entity.normalised(values)
    set_values: dict[str, object] = {
        **{name: value for name, value in values.items() if value is not None},
        **unique,
        UPDATED_AT: now_iso(),
    }
    guard = _owner_guard(entity, owner_sub, condition)
    if identity is None and not unique:
        # Nothing unique changes and no marker to write: no read before the write.
        return _update_in_place(entity, item_id, owner_sub, expected, set_values, guard, explain)
    key = entity.key(item_id, owner_sub)
    if identity is None:
        current = reads.get_item(key)
    else:  # with its marker, in the same call: a retry of a change that went through answers from it
        current, marker = replays.read_with_marker(key, identity, dict)
        if marker is not None:
            return cast(PublicItem, replays.first_response(marker, identity))
    if current is None or not _visible(entity, current, owner_sub):
        raise not_found(entity, item_id)
    reserves, releases = _lock_swaps(entity, entity.partition(item_id, owner_sub), current, unique)
    if identity is None and not reserves and not releases:
        return _update_in_place(entity, item_id, owner_sub, expected, set_values, guard, explain)
    updated = entity.project({**current, **set_values, VERSION: expected + 1})
    plan = TransactionPlan().add(ITEM, versioning.update_action(key, expected, set_values=set_values, condition=guard))
    for value, actions in reserves:
        plan = plan.add(lock_slot(value.field), *actions)
    plan = plan.add(RELEASES, *releases)
    try:
        return _commit(plan, identity, updated)
    except PlanCancelled as cancelled:
        if cancelled.failed(ITEM):
            raise refusal(entity, item_id, owner_sub, expected, cancelled.item(ITEM), explain) from None
        _unique_violation(cancelled, [value for value, _ in reserves])
        raise


def _lock_swaps(
    entity: Entity, owner: str, current: Item, unique: Mapping[str, str]
) -> tuple[list[tuple[ProtectedValue, list[Action]]], list[Action]]:
    """(the locks to reserve, by value; the locks to release) that move the item from its current unique values
    to `unique`. A value whose key is unchanged moves nothing."""
    stored = {value.field: value for value in protected_values(entity, current)}
    reserves: list[tuple[ProtectedValue, list[Action]]] = []
    releases: list[Action] = []
    for new in protected_values(entity, unique):
        old = stored.get(new.field)
        if old is None:  # a broken item without this value: only a new lock to take
            reserve, release = uniqueness.reserve_unique_values(owner, [new]), list[Action]()
        else:
            reserve, release = uniqueness.swap_unique_value(owner, old, new)
        if reserve:
            reserves.append((new, reserve))
        releases += release
    return reserves, releases


def _update_in_place(
    entity: Entity,
    item_id: str,
    owner_sub: str,
    expected: int,
    set_values: dict[str, object],
    guard: ConditionBase,
    explain: Explain | None,
) -> PublicItem:
    """One versioned UpdateItem, answering the item as written."""
    try:
        written = versioning.update_item(
            entity.key(item_id, owner_sub), expected, set_values=set_values, condition=guard
        )
    except writes.ConditionFailed as failed:
        raise refusal(entity, item_id, owner_sub, expected, failed.item, explain) from None
    return entity.project(written)


# --- delete -----------------------------------------------------------------------------------


def delete(
    entity: Entity,
    item_id: str,
    owner_sub: str,
    expected: int,
    *,
    identity: RequestIdentity | None = None,
    condition: ConditionBase | None = None,
    explain: Explain | None = None,
    checks: Checks | None = None,
) -> None:
    """Replace the item at the expected version with its tombstone, and release its locks and owner-index
    entry, in one transaction.

    An entity with neither is deleted without reading it first: one PutItem of the tombstone, or with an
    Idempotency-Key one transaction with the request marker (a retry answers 204 again, not 404).
    """
    checks = checks or {}
    key = entity.key(item_id, owner_sub)
    guard = _owner_guard(entity, owner_sub, condition)
    plan = TransactionPlan().add(ITEM, versioning.delete_action(key, expected, entity.kind, condition=guard))
    for name, (action, _) in checks.items():
        plan = plan.add(name, action)
    if entity.unique or entity.owner_index:
        if identity is None:
            item = reads.get_item(key)
        else:  # with its marker, in the same call: a retry of a delete that went through answers 204 from it
            item, marker = replays.read_with_marker(key, identity, dict)
            if marker is not None:
                replays.first_response(marker, identity)
                return
        if item is None or not _visible(entity, item, owner_sub):
            raise not_found(entity, item_id)
        if entity.owner_index:
            index_entry = owner_index.delete_action(owner_sub, str(item.get(CREATED_AT)), item_id, prefix=entity.prefix)
            plan = plan.add(OWNER_INDEX_SLOT, index_entry)
        owner = entity.partition(item_id, owner_sub)
        plan = plan.add(RELEASES, *uniqueness.release_unique_values(owner, protected_values(entity, item)))
    elif identity is None and not checks:
        try:
            versioning.delete_item(key, expected, entity.kind, condition=guard)
        except writes.ConditionFailed as failed:
            raise refusal(entity, item_id, owner_sub, expected, failed.item, explain) from None
        return
    try:
        _commit(plan, identity, None)
    except PlanCancelled as cancelled:
        if cancelled.failed(ITEM):
            raise refusal(entity, item_id, owner_sub, expected, cancelled.item(ITEM), explain) from None
        _refuse_checks(cancelled, checks)
        raise
