"""An order's life: which status may follow which, as data (docs/api.md, orders).

PENDING -> PAID -> SHIPPED -> DELIVERED, PENDING -> CANCELLED and PAID -> REFUNDED. Nothing leads
back to PENDING and nothing leaves DELIVERED, CANCELLED or REFUNDED, so a "move" to the current
status is always refused (409 invalid_transition). A paid order leaves PAID for REFUNDED only by
the refund that returns its money, never by a status PATCH; a paid order is never cancelled.
"""

from __future__ import annotations

from boto3.dynamodb.conditions import Attr, ConditionBase

# The statuses are declared with the order (its `status` field is a choice of them).
from ddbguard.domain.entities.orders import CANCELLED, DELIVERED, PAID, PENDING, REFUNDED, SHIPPED
from ddbguard.store.attribute_names import STATUS

__all__ = ["DELETABLE", "MONEY_ONLY", "TRANSITIONS", "allows", "move_guard", "patch_guard", "sources_of", "status_in"]

# current status -> the statuses it may move to
TRANSITIONS: dict[str, frozenset[str]] = {
    PENDING: frozenset({PAID, CANCELLED}),
    PAID: frozenset({SHIPPED, REFUNDED}),
    SHIPPED: frozenset({DELIVERED}),
    DELIVERED: frozenset(),
    CANCELLED: frozenset(),
    REFUNDED: frozenset(),
}

# Reached only with the money that moves with them (POST /orders/{orderId}/pay, .../refund), never by a status
# PATCH.
MONEY_ONLY: frozenset[str] = frozenset({PAID, REFUNDED})

# An order may be deleted only if it never moved money: before payment, or cancelled before it (the delete's
# condition also asks that no payment was ever recorded on it).
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
    """A status PATCH to `target`: like `move_guard`, but one to a money-only status fails on every order."""
    if target in MONEY_ONLY:
        return status_in(frozenset())
    return move_guard(target)
