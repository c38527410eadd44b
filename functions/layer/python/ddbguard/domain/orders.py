"""Orders: optimistic locking end to end, and payment in one transaction with the owner's ledger.

Every write asserts what it relies on in its own condition (owner, version, allowed status) and
asks for the item as it was when the condition failed (ALL_OLD), so a refusal is explained from
the failed write, never from a second read:
  absent or not the caller's -> 404 order_not_found (both answer alike, existence never leaks);
  another version             -> 412 version_conflict carrying the current order;
  right version, wrong status -> 409 invalid_transition.

Decisions:
- PENDING -> PAID only through `pay_order`, PAID -> REFUNDED only through `refund_order` (money
  moves with them): a PATCH to either fails its own condition on every order and answers 409
  invalid_transition, whatever If-Match said. A paid order is never cancelled: its way back is the
  refund, which returns the money in the same transaction.
- A status "move" to the current status is a forbidden transition (409 invalid_transition):
  the transition table has no self-loops, and a no-op write would still bump the version.
- Only an order that never moved money may be deleted: PENDING or CANCELLED, and no `paidAt`
  (set by the payment, for good, so even an order cancelled after paying under an earlier rule
  stays). Anything else is 409 invalid_transition (requestedStatus "DELETED"). A deleted order
  leaves a tombstone: its id is never given again (409 already_exists).
- Payment writes a ledger entry of type `withdrawal` (the API's entry types have no
  "payment") whose `orderId` names the order; a refund writes a `refund` entry naming it.
- Payment and refund replay: the transaction is attempted whatever status was read, so a retry of
  one that already succeeded hits its own request marker first and answers the stored first
  result; the order guard can never apply it twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from boto3.dynamodb.conditions import Attr

from ddbguard.domain import order_status
from ddbguard.domain.entities.orders import ORDER
from ddbguard.errors import DomainError, FieldError, InvalidInput, InvalidTransition, NotFound
from ddbguard.guards import entity_operations as operations
from ddbguard.guards import money, replays, versioning
from ddbguard.guards.entity import PublicItem
from ddbguard.guards.ownership import is_visible, owned_by
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.guards.retry import reread_and_retry
from ddbguard.limits import MAX_ORDER_TOTAL_CENTS
from ddbguard.records import Record
from ddbguard.store import keys, writes
from ddbguard.store.attribute_names import (
    ACCOUNT_ID,
    ITEMS,
    ORDER_ID,
    OWNER_SUB,
    PAID_AT,
    QUANTITY,
    REFUNDED_AT,
    STATUS,
    TOTAL_CENTS,
    UNIT_PRICE_CENTS,
    UPDATED_AT,
    VERSION,
)
from ddbguard.store.ids import now_iso
from ddbguard.store.items import OrderItem, OrderLine, RequestMarker
from ddbguard.store.shapes import Item

__all__ = [
    "DELETED",
    "PAYMENT",
    "PAYMENT_ENTRY_TYPE",
    "REFUND",
    "REFUND_ENTRY_TYPE",
    "create_order",
    "delete_rules",
    "pay_order",
    "refund_order",
    "update_rules",
]

PAYMENT_ENTRY_TYPE = "withdrawal"
REFUND_ENTRY_TYPE = "refund"
DELETED = "DELETED"  # the "status" a delete asks for, in refusals only


def _not_found(order_id: str) -> NotFound:
    return operations.not_found(ORDER, order_id)


def _transition_refusal(order_id: str, expected: int, target: str) -> operations.Explain:
    """A refused write of a visible order at the right version: the status forbids the move."""

    def explain(item: Item) -> DomainError | None:
        if item.get(VERSION) != expected:
            return None  # stale: 412 with the current order
        return InvalidTransition(
            str(item.get(STATUS)), target, current=ORDER.project(item), subject=f"Order {order_id}"
        )

    return explain


# --- create / read ------------------------------------------------------------------------


def create_order(
    caller_sub: str,
    account_id: str,
    items: Sequence[OrderLine],
    *,
    order_id: str | None = None,
    identity: RequestIdentity | None = None,
) -> PublicItem:
    """A PENDING order at version 0 for one of the caller's accounts, in one transaction:
    the account check and the put (never an overwrite) succeed together or not at all."""
    total = sum(line[QUANTITY] * line[UNIT_PRICE_CENTS] for line in items)
    if total > MAX_ORDER_TOTAL_CENTS:
        raise InvalidInput(
            f"The order total {total} is over {MAX_ORDER_TOTAL_CENTS} cents.",
            [FieldError(ITEMS, "total_too_large", f"The total may be at most {MAX_ORDER_TOTAL_CENTS} cents.")],
        )
    values: dict[str, object] = {
        ACCOUNT_ID: account_id,
        STATUS: order_status.PENDING,
        ITEMS: [dict(line) for line in items],
        TOTAL_CENTS: total,
    }
    account_is_callers = writes.condition_check(keys.account_key(account_id), owned_by(caller_sub))
    no_account = NotFound("account_not_found", f"No account {account_id}.", field=ACCOUNT_ID)
    checks: operations.Checks = {"account": (account_is_callers, lambda _: no_account)}
    return ORDER.project(
        operations.create(ORDER, caller_sub, values, item_id=order_id, identity=identity, checks=checks)
    )


# --- versioned status change and delete ---------------------------------------------------


def update_rules(order_id: str, expected: int, values: Mapping[str, object]) -> operations.Rules:
    """What PATCH /orders/{orderId} adds to the generic versioned update: the move to `values["status"]` must be
    one the current status allows, in the write's own condition, and a refusal says which move was refused."""
    target = str(values[STATUS])
    transition = _transition_refusal(order_id, expected, target)

    def explain(item: Item) -> DomainError | None:
        if target in order_status.MONEY_ONLY:
            # Never by PATCH, at any version: say so rather than 412, which would invite a retry.
            refusal = InvalidTransition(str(item.get(STATUS)), target, current=ORDER.project(item))
            route = "pay" if target == order_status.PAID else "refund"
            refusal.detail = f"An order becomes {target} only through POST /orders/{order_id}/{route}."
            return refusal
        return transition(item)

    return {"condition": order_status.patch_guard(target), "explain": explain}


def delete_rules(order_id: str, expected: int) -> operations.DeleteRules:
    """What DELETE /orders/{orderId} adds to the generic versioned delete: only an order that never moved money
    (PENDING or CANCELLED, and never paid), refused as `invalid_transition`."""
    never_paid = Attr(PAID_AT).not_exists()
    return {
        "condition": order_status.status_in(order_status.DELETABLE) & never_paid,
        "explain": _transition_refusal(order_id, expected, DELETED),
    }


# --- payment and refund -----------------------------------------------------------------


class _LostRace(Exception):
    """The order changed between our read and our write but may still be movable: decide again."""


class _MoneyMove(Record):
    """How paying or refunding moves an order and its money."""

    __slots__ = ("entry_type", "sign", "source", "stamp", "target")

    def __init__(self, *, source: str, target: str, entry_type: str, sign: int, stamp: str) -> None:
        self.source = source  # the status it moves from
        self.target = target  # and to
        self.entry_type = entry_type
        self.sign = sign  # -1: the total leaves the ledger; +1: it returns
        self.stamp = stamp  # the attribute that records when


PAYMENT = _MoneyMove(
    source=order_status.PENDING, target=order_status.PAID, entry_type=PAYMENT_ENTRY_TYPE, sign=-1, stamp=PAID_AT
)
REFUND = _MoneyMove(
    source=order_status.PAID, target=order_status.REFUNDED, entry_type=REFUND_ENTRY_TYPE, sign=+1, stamp=REFUNDED_AT
)


def pay_order(order_id: str, caller_sub: str, identity: RequestIdentity) -> PublicItem:
    """PENDING -> PAID, the ledger debit and its entry, in one transaction (see the module doc)."""
    return _move_money(order_id, caller_sub, identity, PAYMENT)


def refund_order(order_id: str, caller_sub: str, identity: RequestIdentity) -> PublicItem:
    """PAID -> REFUNDED, the total back onto the ledger and a `refund` entry, in one transaction, once."""
    return _move_money(order_id, caller_sub, identity, REFUND)


def _move_money(order_id: str, caller_sub: str, identity: RequestIdentity, move: _MoneyMove) -> PublicItem:
    """The order and the request's marker are read together (one BatchGetItem): a retry of a movement that went
    through answers from its marker at once. A concurrent change of the order between read and write is retried
    from a fresh read, a bounded number of times (ddbguard.guards.retry)."""
    return reread_and_retry(
        read=lambda: replays.read_with_marker(keys.order_key(caller_sub, order_id), identity, OrderItem),
        decide_and_write=lambda state: _move_once(order_id, state[0], state[1], caller_sub, identity, move),
        lost_race=lambda error: isinstance(error, _LostRace),
    )


def _move_once(
    order_id: str,
    order: OrderItem | None,
    marker: RequestMarker | None,
    caller_sub: str,
    identity: RequestIdentity,
    move: _MoneyMove,
) -> PublicItem:
    if marker is not None:
        replayed: money.MovementResult[PublicItem] = money.replay(marker, identity, with_entries=False)
        return replayed.result
    if order is None or not is_visible(order, caller_sub):  # a tombstone has no owner: nobody's
        raise _not_found(order_id)
    read_version = int(order[VERSION])
    total = int(order[TOTAL_CENTS])
    now = now_iso()
    moved = ORDER.project({**order, STATUS: move.target, VERSION: read_version + 1, UPDATED_AT: now})
    change = money.BalanceChange(
        account_id=order[ACCOUNT_ID],
        entry_type=move.entry_type,
        amount_cents=total,
        cleared_delta=move.sign * total,
        owner_sub=caller_sub,
        require_funds=move.sign < 0,
        details={ORDER_ID: order_id},
    )
    # Attempted whatever status was read: the marker must get its say first.
    order_moves = versioning.update_action(
        keys.order_key(caller_sub, order_id),
        read_version,
        set_values={STATUS: move.target, UPDATED_AT: now, move.stamp: now},
        condition=Attr(OWNER_SUB).eq(caller_sub) & order_status.move_guard(move.target),
    )
    try:
        outcome = money.move_money(
            [change], request=identity, extra_actions=[order_moves], result=moved, with_entries=False
        )
    except money.ExtraGuardFailed as refused:
        current = refused.item
        if current is None or not is_visible(current, caller_sub):
            raise _not_found(order_id) from None
        if current.get(STATUS) == move.source and current.get(VERSION) != read_version:
            raise _LostRace() from None
        raise InvalidTransition(
            str(current.get(STATUS)), move.target, current=ORDER.project(current), subject=f"Order {order_id}"
        ) from None
    return outcome.result
