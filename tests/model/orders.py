"""Orders: a status that moves along a fixed graph, money that moves with PAID and REFUNDED, ids never reused.

    PENDING -> CANCELLED           (PATCH)
    PENDING -> PAID                (POST .../pay only: the total leaves the account's ledger)
    PAID -> SHIPPED -> DELIVERED   (PATCH)
    PAID -> REFUNDED               (POST .../refund only: the total returns to the ledger)

- Order ids are the owner's: another caller's order is 404 (as if absent), and its id is free to you.
- A PATCH to PAID or REFUNDED is 409 `invalid_transition` at any version; any other move the graph does not
  have is 409 after the version check (412 first).
- Only an order that never moved money (PENDING, CANCELLED) may be deleted; a deleted order's id stays taken
  (409 `already_exists` for a create with it).
- Paying or refunding needs an Idempotency-Key, kept for good; refusals name their cause.
"""

from __future__ import annotations

from typing import Any

from tests.model.keys import keyed
from tests.model.ledgers import Bounds, apply_movement, side_refusal
from tests.model.world import NOT_GIVEN, Answer, KeyScope, Order, World, refused

PATCH_MOVES = {"PENDING": {"CANCELLED"}, "PAID": {"SHIPPED"}, "SHIPPED": {"DELIVERED"}}
MONEY_ONLY = {"PAID", "REFUNDED"}  # reached only by paying or refunding
DELETABLE = {"PENDING", "CANCELLED"}


def _not_found() -> Answer:
    return refused(404, "order_not_found")


def _invalid(order: Order, target: str) -> Answer:
    return refused(409, "invalid_transition", currentStatus=order.status, requestedStatus=target)


def _stale(order: Order) -> Answer:
    return refused(412, "version_conflict", **{f"current.{k}": v for k, v in order.public().items()})


def create(
    world: World,
    caller: str,
    account_id: str,
    total: int,
    order_id: str | None,
    *,
    scope: KeyScope | None,
    request: Any,
    assigned_id: str | None,
) -> Answer:
    def decide() -> Answer:
        if world.account_of(caller, account_id) is None:
            return refused(404, "account_not_found", "accountId")
        if order_id is not None and ((caller, order_id) in world.orders or (caller, order_id) in world.deleted_orders):
            return refused(409, "already_exists")
        if order_id is None and scope is not None and scope in world.made_by_key:
            return refused(409, "already_exists")
        new_id = order_id or assigned_id
        order = Order(new_id or NOT_GIVEN, caller, account_id, total)
        if new_id is None:
            return Answer(201, fields=order.public())  # the API created nothing: the comparison says so
        assert (caller, new_id) not in world.orders and (caller, new_id) not in world.deleted_orders, new_id
        world.orders[(caller, new_id)] = order
        if order_id is None and scope is not None:
            world.made_by_key[scope] = new_id
        return Answer(201, fields=order.public())

    return keyed(world, scope, request, decide)


def get(world: World, caller: str, order_id: str) -> Answer:
    order = world.orders.get((caller, order_id))
    return _not_found() if order is None else Answer(200, fields=order.public())


def change_status(
    world: World, caller: str, order_id: str, target: str, if_match: int, *, scope: KeyScope | None, request: Any
) -> Answer:
    def decide() -> Answer:
        order = world.orders.get((caller, order_id))
        if order is None:
            return _not_found()
        if target in MONEY_ONLY:
            return _invalid(order, target)
        if if_match != order.version:
            return _stale(order)
        if target not in PATCH_MOVES.get(order.status, set()):
            return _invalid(order, target)
        order.status = target
        order.version += 1
        return Answer(200, fields=order.public())

    return keyed(world, scope, request, decide)


def delete(world: World, caller: str, order_id: str, if_match: int, *, scope: KeyScope | None, request: Any) -> Answer:
    def decide() -> Answer:
        order = world.orders.get((caller, order_id))
        if order is None:
            return _not_found()
        if if_match != order.version:
            return _stale(order)
        if order.status not in DELETABLE or order.moved_money:
            return _invalid(order, "DELETED")
        del world.orders[(caller, order_id)]
        world.deleted_orders.add((caller, order_id))
        return Answer(204)

    return keyed(world, scope, request, decide)


def pay_or_refund(
    world: World, bounds: Bounds, caller: str, order_id: str, refund: bool, *, scope: KeyScope, request: Any
) -> Answer:
    target, source = ("REFUNDED", "PAID") if refund else ("PAID", "PENDING")

    def decide() -> Answer:
        order = world.orders.get((caller, order_id))
        if order is None:
            return _not_found()
        if order.status != source:
            return _invalid(order, target)
        ledger = world.ledger_of(caller, order.account_id)
        refusal = side_refusal(ledger, order.total, bounds.unsettled, needs_funds=not refund)
        if refusal is not None:
            return refusal
        apply_movement(world, order.account_id, order.total if refund else -order.total, 0)
        order.status, order.moved_money = target, True
        order.version += 1
        return Answer(200, fields=order.public())

    return keyed(world, scope, request, decide, kept_for_good=True)
