"""Accounts: email and username unique through lock items written in the account's own transaction.

Every write is one TransactWriteItems (or one conditional write) whose conditions carry every
rule: the owner check (`ownerSub`), the expected `version`, the locks' `attribute_not_exists` /
`owner`, and on delete the ledger being empty. A refusal is explained from the failed write's
cancellation reasons and ALL_OLD items, never from a read before it: 404 (absent or not yours,
told apart from nothing else), 412 with the current account, 409 naming every taken field, 409
`balance_not_zero`. Updates and deletes read the account once to learn which locks to swap or
release; that read decides nothing, since the write only succeeds at the version it read.

Public account JSON: `accountId, email, username, displayName, version, createdAt, updatedAt`.
`displayName` is null when the owner never gave one: the service does not invent a name (the
username is already there for a client that wants a fallback).
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.domain import owner_index
from ddbguard.domain.normalize import clean_display_name, normalised_unique_fields
from ddbguard.domain.projections import public_account
from ddbguard.errors import AlreadyExists, BalanceNotZero, DomainError, NotFound, UniqueViolation, VersionConflict
from ddbguard.guards import replays, uniqueness, versioning
from ddbguard.guards.ownership import is_visible, visible_or_refuse
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.guards.uniqueness import ProtectedValue
from ddbguard.observability import MetricName, count, logger
from ddbguard.store import keys, reads, writes
from ddbguard.store.ids import new_id, now_iso
from ddbguard.store.schema import CLEARED, CREATED_AT, HELD, KIND, OWNER_SUB, PARTITION_KEY, UPDATED_AT, VERSION
from ddbguard.store.shapes import Action, Item
from ddbguard.store.writes import ConditionFailed, TransactionCancelled

# Request field -> lock kind (docs/data-model.md: UNIQ#EMAIL#..., UNIQ#HANDLE#...).
UNIQUE_FIELDS = {"email": "EMAIL", "username": "HANDLE"}


def owner_of(account_id: str) -> str:
    """The `owner` a lock records for this account: the account's partition key."""
    return keys.account_partition(account_id)


def protected_values(values: dict[str, Any]) -> list[ProtectedValue]:
    """The account's unique values (from a body or a stored item), in UNIQUE_FIELDS order."""
    return [
        ProtectedValue(field, kind, values[field])
        for field, kind in UNIQUE_FIELDS.items()
        if isinstance(values.get(field), str)
    ]


def _not_found(account_id: str) -> NotFound:
    return NotFound("account_not_found", f"No account {account_id}.")


def _owned_by(owner_sub: str) -> ConditionBase:
    return Attr(OWNER_SUB).eq(owner_sub)


def _refusal(account_id: str, owner_sub: str, expected: int, item: Item | None) -> DomainError:
    """Why a versioned, owner-checked write of the account failed, from its ALL_OLD item."""
    if item is None or not is_visible(item, owner_sub):
        return _not_found(account_id)  # not yours answers exactly like absent
    count(MetricName.VERSION_CONFLICT)
    return VersionConflict(public_account(item), expected)


def _unique_violation(fields: list[str]) -> UniqueViolation:
    count(MetricName.UNIQUE_VIOLATION)
    return UniqueViolation(fields)


def _commit(actions: list[Action], releases: list[Action]) -> None:
    """Run `actions + releases` as one transaction.

    A release whose lock another owner holds (a broken table; the lock audit reports it) fails
    its guard; that lock is not ours to delete, so the rest is sent again without it rather than
    refusing the owner's change for ever. Positions of `actions` are the same in both attempts.
    """
    try:
        writes.transact_write(actions + releases)
    except TransactionCancelled as cancelled:
        if not releases or any(cancelled.failed(i) for i in range(len(actions))):
            raise
        kept = [release for i, release in enumerate(releases) if not cancelled.failed(len(actions) + i)]
        logger.warning("lock held by another owner left in place", extra={"skipped": len(releases) - len(kept)})
        writes.transact_write(actions + kept)


# --- create -----------------------------------------------------------------------------------


def create_account(
    owner_sub: str,
    *,
    email: str,
    username: str,
    display_name: str | None = None,
    identity: RequestIdentity | None = None,
) -> dict[str, Any]:
    """Put the account (version 0) and both locks in one transaction; returns the public account.

    With an Idempotency-Key the account id derives from the request, so a retry whose first
    attempt committed finds its own account (`createdByRequest`) and answers it again.
    """
    unique = normalised_unique_fields({"email": email, "username": username})
    account_id = identity.derived_id("account") if identity else new_id()
    now = now_iso()
    item: Item = {
        **keys.account_key(account_id),
        KIND: "account",
        "accountId": account_id,
        OWNER_SUB: owner_sub,
        **unique,
        CREATED_AT: now,
        UPDATED_AT: now,
        **replays.request_stamp(identity),
    }
    if display_name is not None:
        item["displayName"] = clean_display_name(display_name)
    values = protected_values(unique)
    actions = [
        versioning.create_action(item),
        *uniqueness.reserve_unique_values(owner_of(account_id), values),
        owner_index.put_action(owner_sub, now, account_id),  # last: lock positions stay 1..n
    ]
    try:
        _, reply = replays.transact_once(actions, identity, public_account(versioning.as_created(item)))
    except TransactionCancelled as cancelled:
        if cancelled.failed(0):
            raise AlreadyExists(f"Account {account_id} already exists.") from None
        taken = uniqueness.taken_fields(cancelled, {1 + i: value for i, value in enumerate(values)})
        if taken:
            raise _unique_violation(taken) from None
        raise
    return dict(reply)


# --- read -------------------------------------------------------------------------------------


def get_account(account_id: str, caller_sub: str, *, is_admin: bool = False) -> dict[str, Any]:
    """The owner's account (admins may read any); anyone else gets NotFound, as if absent."""
    item = reads.get_item(keys.account_key(account_id))
    return public_account(visible_or_refuse(item, caller_sub, lambda: _not_found(account_id), is_admin=is_admin))


def _owned_account(account_id: str, owner_sub: str) -> Item:
    item = reads.get_item(keys.account_key(account_id))
    return visible_or_refuse(item, owner_sub, lambda: _not_found(account_id))


# --- update -----------------------------------------------------------------------------------


def update_account(
    account_id: str,
    owner_sub: str,
    expected: int,
    *,
    email: str | None = None,
    username: str | None = None,
    display_name: str | None = None,
    identity: RequestIdentity | None = None,
) -> dict[str, Any]:
    """Change the account at the expected version; a changed unique value swaps its lock in the same transaction.

    A displayName-only change (or unique values whose normalised form is unchanged) is one
    versioned UpdateItem. Returns the public account as written.
    """
    unique = normalised_unique_fields({"email": email, "username": username})
    set_values: dict[str, Any] = {**unique, UPDATED_AT: now_iso()}
    if display_name is not None:
        set_values["displayName"] = clean_display_name(display_name)
    key = keys.account_key(account_id)
    if not unique:
        # Nothing unique changes: no lock to learn about, so no read before the write.
        return _update_in_place(account_id, owner_sub, expected, set_values, identity)
    current = _owned_account(account_id, owner_sub)
    owner = owner_of(account_id)
    reserves: list[Action] = []
    releases: list[Action] = []
    reserved: list[ProtectedValue] = []
    stored = {value.field: value for value in protected_values(current)}
    for new in protected_values(unique):
        old = stored.get(new.field)
        if old is None:  # a broken item without this value: only a new lock to take
            reserve, release = uniqueness.reserve_unique_values(owner, [new]), list[Action]()
        else:
            reserve, release = uniqueness.swap_unique_value(owner, old, new)
        reserves += reserve
        releases += release
        reserved += [new] if reserve else []
    if not reserves and not releases:
        return _update_in_place(account_id, owner_sub, expected, set_values, identity)
    updated = public_account({**current, **set_values, VERSION: expected + 1})
    offset = 0 if identity is None else 1
    # Stamped too: a retry that finds the values already moved takes the in-place path and must know its change.
    account_update = versioning.update_action(
        key, expected, set_values={**set_values, **replays.update_stamp(identity)}, condition=_owned_by(owner_sub)
    )
    try:
        _commit(
            replays.with_marker([account_update, *reserves], identity, updated),
            releases,
        )
    except TransactionCancelled as cancelled:
        replay, first = replays.replayed(cancelled, identity)
        if replay:
            return dict(first)
        if cancelled.failed(offset):
            raise _refusal(account_id, owner_sub, expected, cancelled.item(offset)) from None
        taken = uniqueness.taken_fields(cancelled, {offset + 1 + i: value for i, value in enumerate(reserved)})
        if taken:
            raise _unique_violation(taken) from None
        raise
    return updated


def _update_in_place(
    account_id: str, owner_sub: str, expected: int, set_values: dict[str, Any], identity: RequestIdentity | None
) -> dict[str, Any]:
    """One versioned UpdateItem; with an Idempotency-Key it stamps the request on the account, so a retry
    recognises its own change in the failed guard's ALL_OLD item."""
    try:
        written = versioning.update_item(
            keys.account_key(account_id),
            expected,
            set_values={**set_values, **replays.update_stamp(identity)},
            condition=_owned_by(owner_sub),
        )
    except ConditionFailed as failed:
        if replays.is_own_update(failed.item, identity, expected):
            return public_account(failed.item or {})
        raise _refusal(account_id, owner_sub, expected, failed.item) from None
    return public_account(written)


# --- delete -----------------------------------------------------------------------------------


def _ledger_is_empty() -> ConditionBase:
    # No balance item, or one holding nothing: an empty balance item goes with the account.
    return Attr(PARTITION_KEY).not_exists() | (Attr(CLEARED).eq(0) & Attr(HELD).eq(0))


def delete_account(account_id: str, owner_sub: str, expected: int, *, identity: RequestIdentity | None = None) -> None:
    """Delete the account at the expected version, its locks and its empty balance item, in one transaction.

    Ledger entries are kept (they are the history). Refused with BalanceNotZero while the
    ledger holds money, cleared or held.
    """
    if identity is None:
        item = reads.get_item(keys.account_key(account_id))
    else:  # with its marker, in the same call: a retry of a delete that went through answers 204 from it
        item, marker = replays.read_with_marker(keys.account_key(account_id), identity)
        if marker is not None:
            replays.first_response(marker, identity)
            return
    if item is None or not is_visible(item, owner_sub):
        raise _not_found(account_id)
    current = item
    offset = 0 if identity is None else 1
    actions = replays.with_marker(
        [
            versioning.delete_action(keys.account_key(account_id), expected, condition=_owned_by(owner_sub)),
            writes.delete(keys.balance_key(account_id), _ledger_is_empty()),
            owner_index.delete_action(owner_sub, str(current.get("createdAt")), account_id),
        ],
        identity,
        None,
    )
    releases = uniqueness.release_unique_values(owner_of(account_id), protected_values(current))
    try:
        _commit(actions, releases)
    except TransactionCancelled as cancelled:
        replay, _ = replays.replayed(cancelled, identity)
        if replay:
            return
        if cancelled.failed(offset):
            raise _refusal(account_id, owner_sub, expected, cancelled.item(offset)) from None
        if cancelled.failed(offset + 1):
            balance = cancelled.item(offset + 1) or {}
            raise BalanceNotZero(
                f"Account {account_id} still holds money; empty its ledger first.",
                extra={CLEARED: int(balance.get(CLEARED, 0)), HELD: int(balance.get(HELD, 0))},
            ) from None
        raise
