"""Orders: optimistic locking end to end, and payment in one transaction with the owner's ledger.

Every write asserts what it relies on in its own condition (owner, version, allowed status) and
asks for the item as it was when the condition failed (ALL_OLD), so a refusal is explained from
the failed write, never from a second read:
  absent or not the caller's -> 404 order_not_found (both answer alike, existence never leaks);
  another version             -> 412 version_conflict carrying the current order;
  right version, wrong status -> 409 invalid_transition.

Decisions:
- A status "move" to the current status is a forbidden transition (409 invalid_transition):
  the transition table has no self-loops, and a no-op write would still bump the version.
- Only PENDING or CANCELLED orders may be deleted; a PAID, SHIPPED or DELIVERED order records
  money that moved, so deleting it is 409 invalid_transition (requestedStatus "DELETED").
- Payment writes a ledger entry of type `withdrawal` (the contract's entry types have no
  "payment") whose `orderId` names the order.
- Payment replay: the transaction is attempted whatever status was read, so a retry of a
  payment that already succeeded hits its own request marker first (position 0) and answers
  the stored first result; the order guard can never apply it twice. If the order is gone
  altogether there is no transaction to attempt, so the marker is read directly.
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.conditions import Attr

from ddbguard import keys, movements, order_status, replays, transactions, versioning
from ddbguard.errors import (
    AlreadyExists,
    DomainError,
    FieldError,
    IdempotencyKeyReused,
    InvalidInput,
    InvalidTransition,
    NotFound,
    VersionConflict,
)
from ddbguard.ids import new_id, now_iso
from ddbguard.observability import MetricName, count
from ddbguard.request_identity import RequestIdentity
from ddbguard.reread_retry import reread_and_retry
from ddbguard.schema import PARTITION_KEY

OWNER = "ownerSub"
VERSION = versioning.VERSION
STATUS = order_status.STATUS
MAX_TOTAL_CENTS = 100_000_000_000
PAYMENT_ENTRY_TYPE = "withdrawal"
DELETED = "DELETED"  # the "status" a delete asks for, in refusals only
PUBLIC_FIELDS = ("orderId", "accountId", "status", "items", "totalCents", "version", "createdAt", "updatedAt")


def public_order(item: dict[str, Any]) -> dict[str, Any]:
    """The order as clients see it: no keys, no owner, no request bookkeeping."""
    return {name: item.get(name) for name in PUBLIC_FIELDS}


def _not_found(order_id: str) -> NotFound:
    return NotFound("order_not_found", f"No order {order_id}.")


def _owned(item: dict[str, Any] | None, caller_sub: str) -> bool:
    return item is not None and item.get(OWNER) == caller_sub


def _refusal(order_id: str, item: dict[str, Any] | None, caller_sub: str, expected: int, target: str) -> DomainError:
    """Why a guarded order write failed, from the item the failed write returned."""
    if not _owned(item, caller_sub):
        return _not_found(order_id)
    current = public_order(item)
    if item.get(VERSION) != expected:
        count(MetricName.VERSION_CONFLICT)
        return VersionConflict(current, expected)
    return InvalidTransition(str(item.get(STATUS)), target, current=current, subject=f"Order {order_id}")


# --- create / read ------------------------------------------------------------------------


def create(
    caller_sub: str,
    account_id: str,
    items: list[dict[str, Any]],
    *,
    order_id: str | None = None,
    identity: RequestIdentity | None = None,
) -> dict[str, Any]:
    """A PENDING order at version 0 for one of the caller's accounts, in one transaction:
    the account check and the put (never an overwrite) succeed together or not at all."""
    total = sum(int(line["quantity"]) * int(line["unitPriceCents"]) for line in items)
    if total > MAX_TOTAL_CENTS:
        raise InvalidInput(
            f"The order total {total} is over {MAX_TOTAL_CENTS} cents.",
            [FieldError("items", "total_too_large", f"The total may be at most {MAX_TOTAL_CENTS} cents.")],
        )
    if order_id is None:
        order_id = identity.derived_id("order") if identity is not None else new_id()
    now = now_iso()
    item: dict[str, Any] = {
        **keys.order_key(order_id),
        "kind": "order",
        "orderId": order_id,
        "accountId": account_id,
        OWNER: caller_sub,
        STATUS: order_status.PENDING,
        "items": [dict(line) for line in items],
        "totalCents": total,
        "createdAt": now,
        "updatedAt": now,
    }
    if identity is not None:
        item["createdByRequest"] = identity.digest
        item["createdByFingerprint"] = identity.fingerprint
    account_is_callers = Attr(PARTITION_KEY).exists() & Attr(OWNER).eq(caller_sub)
    actions = [
        transactions.condition_check(keys.account_key(account_id), account_is_callers),
        versioning.create_action(item),
    ]
    try:
        transactions.transact_write(actions, token=identity.transaction_token if identity is not None else None)
    except transactions.TransactionCancelled as cancelled:
        stored = cancelled.item(1) if cancelled.failed(1) else None
        if stored is not None and identity is not None and stored.get("createdByRequest") == identity.digest:
            # This request created it before (its response was lost): answer as the first time.
            if stored.get("createdByFingerprint") != identity.fingerprint:
                raise IdempotencyKeyReused() from None
            count(MetricName.REPLAY)
            replays.mark_replayed()
            return public_order(stored)
        if cancelled.failed(0):
            raise NotFound("account_not_found", f"No account {account_id}.", field="accountId") from None
        raise AlreadyExists(f"Order {order_id} already exists.") from None
    return public_order({**item, VERSION: 0})


def get(order_id: str, caller_sub: str, *, admin: bool = False) -> dict[str, Any]:
    item = transactions.get_item(keys.order_key(order_id))
    if item is None or not (admin or _owned(item, caller_sub)):
        raise _not_found(order_id)
    return public_order(item)


# --- versioned status change and delete ---------------------------------------------------


def update_status(order_id: str, caller_sub: str, target: str, expected: int) -> dict[str, Any]:
    """Move the order to `target` if it is the caller's, at `expected`, and the move is allowed:
    one UpdateItem whose condition says all three."""
    guard = Attr(OWNER).eq(caller_sub) & order_status.move_guard(target)
    try:
        item = versioning.update_item(
            keys.order_key(order_id), expected, set_values={STATUS: target, "updatedAt": now_iso()}, condition=guard
        )
    except transactions.ConditionFailed as failed:
        raise _refusal(order_id, failed.item, caller_sub, expected, target) from None
    return public_order(item)


def delete(order_id: str, caller_sub: str, expected: int) -> None:
    """Delete the caller's order at `expected`, only while it is PENDING or CANCELLED."""
    guard = Attr(OWNER).eq(caller_sub) & order_status.status_in(order_status.DELETABLE)
    try:
        versioning.delete_item(keys.order_key(order_id), expected, condition=guard)
    except transactions.ConditionFailed as failed:
        raise _refusal(order_id, failed.item, caller_sub, expected, DELETED) from None


# --- payment ------------------------------------------------------------------------------


class _LostRace(Exception):
    """The order changed between our read and our write but may still be payable: decide again."""


def pay(order_id: str, caller_sub: str, identity: RequestIdentity) -> dict[str, Any]:
    """PENDING -> PAID, the ledger debit and its entry, in one transaction (see the module doc).

    A concurrent change of the order between read and write is retried from a fresh read,
    a bounded number of times (ddbguard.reread_retry).
    """
    return reread_and_retry(
        read=lambda: transactions.get_item(keys.order_key(order_id)),
        decide_and_write=lambda order: _pay_once(order_id, order, caller_sub, identity),
        lost_race=lambda error: isinstance(error, _LostRace),
    )


def _pay_once(
    order_id: str, order: dict[str, Any] | None, caller_sub: str, identity: RequestIdentity
) -> dict[str, Any]:
    if not _owned(order, caller_sub):
        return _first_result_or_not_found(order_id, identity)
    read_version = int(order[VERSION])
    total = int(order["totalCents"])
    now = now_iso()
    paid = public_order({**order, STATUS: order_status.PAID, VERSION: read_version + 1, "updatedAt": now})
    debit = movements.BalanceChange(
        account_id=order["accountId"],
        entry_type=PAYMENT_ENTRY_TYPE,
        amount_cents=total,
        cleared_delta=-total,
        owner_sub=caller_sub,
        require_funds=True,
        details={"orderId": order_id},
    )
    # Attempted whatever status was read: the marker (position 0) must get its say first.
    order_becomes_paid = versioning.update_action(
        keys.order_key(order_id),
        read_version,
        set_values={STATUS: order_status.PAID, "updatedAt": now},
        condition=Attr(OWNER).eq(caller_sub) & order_status.move_guard(order_status.PAID),
    )
    try:
        outcome = movements.move_money([debit], request=identity, extra_actions=[order_becomes_paid], result=paid)
    except movements.ExtraGuardFailed as refused:
        current = refused.item
        if not _owned(current, caller_sub):
            raise _not_found(order_id) from None
        if current.get(STATUS) == order_status.PENDING and current.get(VERSION) != read_version:
            raise _LostRace() from None
        raise InvalidTransition(
            str(current.get(STATUS)), order_status.PAID, current=public_order(current), subject=f"Order {order_id}"
        ) from None
    return outcome.result if outcome.result is not None else paid


def _first_result_or_not_found(order_id: str, identity: RequestIdentity) -> dict[str, Any]:
    """No order of the caller's to pay. If this very request paid it before (and the order has
    since been cancelled and deleted), the request marker still holds the first answer."""
    marker = transactions.get_item(keys.request_marker_key(identity.digest))
    if marker is None:
        raise _not_found(order_id)
    replayed = movements.replay(marker, identity)
    if replayed.result is None:
        raise IdempotencyKeyReused()
    return replayed.result
