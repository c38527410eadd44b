"""An order's life: which status may follow which, as data (docs/api.md, orders).

PENDING -> PAID -> SHIPPED -> DELIVERED, and PENDING | PAID -> CANCELLED. Nothing leads back
to PENDING and nothing leaves DELIVERED or CANCELLED, so a "move" to the current status is
always refused (409 invalid_transition).
"""

from __future__ import annotations

from boto3.dynamodb.conditions import Attr, ConditionBase

from ddbguard.store.schema import STATUS

PENDING = "PENDING"
PAID = "PAID"
SHIPPED = "SHIPPED"
DELIVERED = "DELIVERED"
CANCELLED = "CANCELLED"

# current status -> the statuses it may move to
TRANSITIONS: dict[str, frozenset[str]] = {
    PENDING: frozenset({PAID, CANCELLED}),
    PAID: frozenset({SHIPPED, CANCELLED}),
    SHIPPED: frozenset({DELIVERED}),
    DELIVERED: frozenset(),
    CANCELLED: frozenset(),
}

# Reached only by paying (POST /orders/{orderId}/pay, which moves the money), never by a status PATCH.
PAYMENT_ONLY: frozenset[str] = frozenset({PAID})

# An order may be deleted only while no money is tied to it: before payment, or once cancelled.
DELETABLE: frozenset[str] = frozenset({PENDING, CANCELLED})


def sources_of(target: str) -> frozenset[str]:
    """The statuses an order may be in for a move to `target` to be allowed."""
    return frozenset(source for source, targets in TRANSITIONS.items() if target in targets)


def allows(current: str, target: str) -> bool:
    return target in TRANSITIONS.get(current, frozenset())


def status_in(statuses: frozenset[str]) -> ConditionBase:
    """`#status IN (...)` for a write's condition.

    DynamoDB rejects an empty IN list; with no allowed status the guard must still fail on
    every stored order (all have a status), so the failed write's ALL_OLD item can explain it.
    """
    if not statuses:
        return Attr(STATUS).not_exists()
    return Attr(STATUS).is_in(sorted(statuses))


def move_guard(target: str) -> ConditionBase:
    """The order's current status permits the move to `target`."""
    return status_in(sources_of(target))


def patch_guard(target: str) -> ConditionBase:
    """A status PATCH to `target`: like `move_guard`, but one to a payment-only status fails on every order."""
    if target in PAYMENT_ONLY:
        return status_in(frozenset())
    return move_guard(target)
