"""Orders: optimistic locking end to end, and payment in one transaction with the owner's ledger.

Every write asserts what it relies on in its own condition (owner, version, allowed status) and
asks for the item as it was when the condition failed (ALL_OLD), so a refusal is explained from
the failed write, never from a second read:
  absent or not the caller's -> 404 order_not_found (both answer alike, existence never leaks);
  another version             -> 412 version_conflict carrying the current order;
  right version, wrong status -> 409 invalid_transition.

Decisions:
- PENDING -> PAID only through `pay_order` (money moves with it): a PATCH to PAID fails its own
  condition on every order and answers 409 invalid_transition, whatever If-Match said.
- A status "move" to the current status is a forbidden transition (409 invalid_transition):
  the transition table has no self-loops, and a no-op write would still bump the version.
- Only PENDING or CANCELLED orders may be deleted; a PAID, SHIPPED or DELIVERED order records
  money that moved, so deleting it is 409 invalid_transition (requestedStatus "DELETED").
- Payment writes a ledger entry of type `withdrawal` (the API's entry types have no
  "payment") whose `orderId` names the order.
- Payment replay: the transaction is attempted whatever status was read, so a retry of a
  payment that already succeeded hits its own request marker first and answers
  the stored first result; the order guard can never apply it twice. If the order is gone
  altogether there is no transaction to attempt, so the marker is read directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from boto3.dynamodb.conditions import Attr

from ddbguard.domain import order_status
from ddbguard.domain.entities.orders import ORDER
from ddbguard.domain.projections import public_order
from ddbguard.domain.views import OrderView
from ddbguard.errors import DomainError, FieldError, InvalidInput, InvalidTransition, NotFound
from ddbguard.guards import entity_operations as operations
from ddbguard.guards import money, replays, versioning
from ddbguard.guards.ownership import is_visible, owned_by
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.guards.retry import reread_and_retry
from ddbguard.limits import MAX_ORDER_TOTAL_CENTS
from ddbguard.store import keys, writes
from ddbguard.store.ids import now_iso
from ddbguard.store.items import OrderItem, OrderLine, RequestMarker
from ddbguard.store.schema import (
    ACCOUNT_ID,
    ORDER_ID,
    ORDER_LINES,
    OWNER_SUB,
    QUANTITY,
    STATUS,
    TOTAL,
    UNIT_PRICE,
    UPDATED_AT,
    VERSION,
)
from ddbguard.store.shapes import Item

PAYMENT_ENTRY_TYPE = "withdrawal"
DELETED = "DELETED"  # the "status" a delete asks for, in refusals only


def _not_found(order_id: str) -> NotFound:
    return operations.not_found(ORDER, order_id)


def _transition_refusal(order_id: str, expected: int, target: str) -> operations.Explain:
    """A refused write of a visible order at the right version: the status forbids the move."""

    def explain(item: Item) -> DomainError | None:
        if item.get(VERSION) != expected:
            return None  # stale: 412 with the current order
        return InvalidTransition(str(item.get(STATUS)), target, current=public_order(item), subject=f"Order {order_id}")

    return explain


# --- create / read ------------------------------------------------------------------------


def create_order(
    caller_sub: str,
    account_id: str,
    items: Sequence[OrderLine],
    *,
    order_id: str | None = None,
    identity: RequestIdentity | None = None,
) -> OrderView:
    """A PENDING order at version 0 for one of the caller's accounts, in one transaction:
    the account check and the put (never an overwrite) succeed together or not at all."""
    total = sum(line[QUANTITY] * line[UNIT_PRICE] for line in items)
    if total > MAX_ORDER_TOTAL_CENTS:
        raise InvalidInput(
            f"The order total {total} is over {MAX_ORDER_TOTAL_CENTS} cents.",
            [FieldError(ORDER_LINES, "total_too_large", f"The total may be at most {MAX_ORDER_TOTAL_CENTS} cents.")],
        )
    values: dict[str, object] = {
        ACCOUNT_ID: account_id,
        STATUS: order_status.PENDING,
        ORDER_LINES: [dict(line) for line in items],
        TOTAL: total,
    }
    account_is_callers = writes.condition_check(keys.account_key(account_id), owned_by(caller_sub))
    no_account = NotFound("account_not_found", f"No account {account_id}.", field=ACCOUNT_ID)
    checks: operations.Checks = {"account": (account_is_callers, lambda _: no_account)}
    return public_order(
        operations.create(ORDER, caller_sub, values, item_id=order_id, identity=identity, checks=checks)
    )


# --- versioned status change and delete ---------------------------------------------------


def update_rules(order_id: str, expected: int, values: Mapping[str, object]) -> operations.Rules:
    """What PATCH /orders/{orderId} adds to the generic versioned update: the move to `values["status"]` must be
    one the current status allows, in the write's own condition, and a refusal says which move was refused."""
    target = str(values[STATUS])
    transition = _transition_refusal(order_id, expected, target)

    def explain(item: Item) -> DomainError | None:
        if target in order_status.PAYMENT_ONLY:
            # Never by PATCH, at any version: say so rather than 412, which would invite a retry.
            refusal = InvalidTransition(str(item.get(STATUS)), target, current=public_order(item))
            refusal.detail = f"An order becomes {target} only through POST /orders/{order_id}/pay."
            return refusal
        return transition(item)

    return {"condition": order_status.patch_guard(target), "explain": explain}


def delete_rules(order_id: str, expected: int) -> operations.DeleteRules:
    """What DELETE /orders/{orderId} adds to the generic versioned delete: only while PENDING or CANCELLED (an
    order that carries money stays), refused as `invalid_transition`."""
    return {
        "condition": order_status.status_in(order_status.DELETABLE),
        "explain": _transition_refusal(order_id, expected, DELETED),
    }


# --- payment ------------------------------------------------------------------------------


class _LostRace(Exception):
    """The order changed between our read and our write but may still be payable: decide again."""


def pay_order(order_id: str, caller_sub: str, identity: RequestIdentity) -> OrderView:
    """PENDING -> PAID, the ledger debit and its entry, in one transaction (see the module doc).

    The order and the request's marker are read together (one BatchGetItem): a retry of a payment
    that went through answers from its marker at once. A concurrent change of the order between read
    and write is retried from a fresh read, a bounded number of times (ddbguard.guards.retry).
    """
    return reread_and_retry(
        read=lambda: replays.read_with_marker(keys.order_key(caller_sub, order_id), identity, OrderItem),
        decide_and_write=lambda state: _pay_once(order_id, state[0], state[1], caller_sub, identity),
        lost_race=lambda error: isinstance(error, _LostRace),
    )


def _pay_once(
    order_id: str, order: OrderItem | None, marker: RequestMarker | None, caller_sub: str, identity: RequestIdentity
) -> OrderView:
    if marker is not None:
        replayed: money.MovementResult[OrderView] = money.replay(marker, identity, with_entries=False)
        return replayed.result
    if order is None or not is_visible(order, caller_sub):
        raise _not_found(order_id)
    read_version = int(order[VERSION])
    total = int(order[TOTAL])
    now = now_iso()
    paid = public_order({**order, STATUS: order_status.PAID, VERSION: read_version + 1, UPDATED_AT: now})
    debit = money.BalanceChange(
        account_id=order[ACCOUNT_ID],
        entry_type=PAYMENT_ENTRY_TYPE,
        amount_cents=total,
        cleared_delta=-total,
        owner_sub=caller_sub,
        require_funds=True,
        details={ORDER_ID: order_id},
    )
    # Attempted whatever status was read: the marker must get its say first.
    order_becomes_paid = versioning.update_action(
        keys.order_key(caller_sub, order_id),
        read_version,
        set_values={STATUS: order_status.PAID, UPDATED_AT: now},
        condition=Attr(OWNER_SUB).eq(caller_sub) & order_status.move_guard(order_status.PAID),
    )
    try:
        outcome = money.move_money(
            [debit], request=identity, extra_actions=[order_becomes_paid], result=paid, with_entries=False
        )
    except money.ExtraGuardFailed as refused:
        current = refused.item
        if current is None or not is_visible(current, caller_sub):
            raise _not_found(order_id) from None
        if current.get(STATUS) == order_status.PENDING and current.get(VERSION) != read_version:
            raise _LostRace() from None
        raise InvalidTransition(
            str(current.get(STATUS)), order_status.PAID, current=public_order(current), subject=f"Order {order_id}"
        ) from None
    return outcome.result
