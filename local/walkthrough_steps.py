"""The walk-through of sample events (README, "Walk through every route"): one step and sample body per route.

Each route's sample event (events/<operation>.json, local/events.py) acts on the demo world (local/demo.py) as its
step here says; each step succeeds once the ones before it ran, and tests/http/test_walkthrough.py invokes them in
exactly this order. Steps and sample bodies are keyed by operation; a route served by the generic operations whose
entity declares its fields gets both derived (alice creates the entity's demo item, reads it, changes it, deletes
it), numbered after the declared steps in route-table order. tests/unit/test_walkthrough_steps.py fails when a
route has no step or an entry names no route.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import routes
from ddbguard.guards.entity import Entity
from generic_routes import CRUD_VERBS
from local import demo
from route_facts import Route


@dataclass(frozen=True)
class Walkthrough:
    """A route's step: what its sample event does, on which demo ids (`path` names them as `demo.DEMO_IDS` does; any
    other value is an id as it is), with which query and If-Match, and what must have run first."""

    step: int
    what: str
    path: Mapping[str, str] = field(default_factory=dict)
    query: str = ""
    if_match: int = 0
    needs: str = ""  # what must have run first; empty: the demo world
    # The pass deletes what this step acts on (`ada`), so a second pass replays it only after `make seed` cleared
    # its request marker (local/walkthrough_reset.py).
    reset_on_rerun: bool = False


_AMOUNT = {"amountCents": 2500}

SAMPLE_BODIES: dict[str, dict[str, Any]] = {
    "create_account": {"email": "ada@lovelace.io", "username": "ada", "displayName": "Ada Lovelace"},
    "update_account": {"displayName": "Countess of Lovelace"},
    "deposit": _AMOUNT,
    "withdraw": _AMOUNT,
    "place_hold": _AMOUNT,
    "create_transfer": {"fromAccountId": demo.MAIN_ACCOUNT, "toAccountId": demo.PEER_ACCOUNT, "amountCents": 1000},
    "create_order": {"accountId": demo.MAIN_ACCOUNT, "orderId": demo.ORDER_CREATED_BY_EVENT, "items": demo.ORDER_LINES},
    "update_order_status": {"status": "CANCELLED"},
}

_MAIN = {"accountId": "main account"}
_ADA = {"accountId": "ada"}

STEPS: dict[str, Walkthrough] = {
    "check_health": Walkthrough(1, "Liveness: no token, no table.", needs="nothing"),
    "create_account": Walkthrough(
        2, "alice opens `ada`.", needs="nothing (the seed does not take ada's email)", reset_on_rerun=True
    ),
    "list_accounts": Walkthrough(3, "alice's accounts, newest first.", query="limit=10"),
    "get_account": Walkthrough(4, "alice's demo account.", _MAIN),
    "update_account": Walkthrough(
        5, "renames `ada` (version 0 -> 1).", _ADA, if_match=0, needs="create_account", reset_on_rerun=True
    ),
    "open_ledger": Walkthrough(6, "opens ada's ledger.", _ADA, needs="create_account", reset_on_rerun=True),
    "get_statement": Walkthrough(7, "alice's balance and entries.", _MAIN, query="limit=25"),
    "deposit": Walkthrough(8, "25.00 into alice's ledger.", _MAIN),
    "withdraw": Walkthrough(9, "25.00 out of alice's ledger.", _MAIN),
    "place_hold": Walkthrough(10, "holds 25.00 of alice's money.", _MAIN),
    "capture_hold": Walkthrough(
        11, "captures the seeded hold `hold-to-capture`.", {**_MAIN, "holdId": "hold to capture"}
    ),
    "release_hold": Walkthrough(
        12, "releases the seeded hold `hold-to-release`.", {**_MAIN, "holdId": "hold to release"}
    ),
    "create_transfer": Walkthrough(13, "10.00 from alice's account to bob's."),
    "create_order": Walkthrough(14, "alice orders two books (ord-demo-0004)."),
    "get_order": Walkthrough(15, "the seeded order ord-demo-0001.", {"orderId": "order to pay"}),
    "update_order_status": Walkthrough(
        16, "cancels the seeded order ord-demo-0002.", {"orderId": "order to cancel"}, if_match=0
    ),
    "pay_order": Walkthrough(17, "pays ord-demo-0001 from alice's ledger.", {"orderId": "order to pay"}),
    "refund_order": Walkthrough(
        18,
        "refunds ord-demo-0001: its total returns to alice's ledger.",
        {"orderId": "order to pay"},
        needs="pay_order",
    ),
    "delete_order": Walkthrough(19, "deletes ord-demo-0003.", {"orderId": "order to delete"}, if_match=0),
    "delete_account": Walkthrough(
        20,
        "deletes `ada`, her locks and her empty ledger.",
        _ADA,
        if_match=1,
        needs="update_account (If-Match 1) and open_ledger (an empty ledger goes with the account)",
        reset_on_rerun=True,
    ),
}


def _derives(route: Route) -> bool:
    """A generic route whose entity declares its fields: its sample body and step follow from the entity."""
    return route.is_generic and route.entity is not None and bool(route.entity.fields)


def _entity(route: Route) -> Entity:
    if route.entity is None:
        raise ValueError(f"{route.key} names no entity to derive its walk-through from")
    return route.entity


def demo_id(route: Route) -> str:
    """The id of the demo item a generic route's steps act on (alice's, created by the first of them)."""
    return f"{_entity(route).kind}-demo-1"


def sample_body(route: Route) -> dict[str, Any] | None:
    """The body of the route's sample event: declared, or from its entity's field examples; None: no body."""
    if route.operation in SAMPLE_BODIES:
        return SAMPLE_BODIES[route.operation]
    if not _derives(route) or route.method not in ("POST", "PATCH"):
        return None
    entity = _entity(route)
    created = {name: spec.example for name, spec in entity.fields.items()}
    if entity.owner_scoped:  # a client-chosen id: the sample events name the demo item
        created[entity.id_field] = demo_id(route)
    if route.method == "POST":
        return created
    return next(({n: s.example} for n, s in entity.fields.items() if s.unique is None), created)


def _derived_step(route: Route, number: int) -> Walkthrough:
    entity = _entity(route)
    kind, on_demo = entity.kind, {entity.id_field: demo_id(route)}
    create, update = f"{CRUD_VERBS['POST']}_{kind}", f"{CRUD_VERBS['PATCH']}_{kind}"
    # The pass deletes the demo item, so its create, change and delete replay only after a reset.
    if route.method == "POST":
        return Walkthrough(number, f"alice creates the {kind} {demo_id(route)}.", reset_on_rerun=True)
    if route.method == "GET":
        return Walkthrough(number, f"the {kind} {demo_id(route)}.", on_demo, needs=create)
    if route.method == "PATCH":
        return Walkthrough(
            number, "changes it (version 0 -> 1).", on_demo, if_match=0, needs=create, reset_on_rerun=True
        )
    return Walkthrough(
        number, f"deletes the {kind} {demo_id(route)}.", on_demo, if_match=1, needs=update, reset_on_rerun=True
    )


def steps() -> dict[str, Walkthrough]:
    """Every route's step by operation, in route-table order: declared, or derived after the declared ones."""
    declared = [route for route in routes.ROUTES if route.operation in STEPS]
    following = max((STEPS[route.operation].step for route in declared), default=0) + 1
    found: dict[str, Walkthrough] = {}
    for route in routes.ROUTES:
        if route.operation in STEPS:
            found[route.operation] = STEPS[route.operation]
        elif _derives(route):
            found[route.operation] = _derived_step(route, following)
            following += 1
    return found


def step_of(route: Route) -> Walkthrough:
    found = steps().get(route.operation)
    if found is None:
        raise ValueError(f"{route.key} has no walk-through step (local/walkthrough_steps.py)")
    return found


@dataclass(frozen=True)
class EventTarget:
    """What events/<operation>.json points at, and what must exist first."""

    path: dict[str, str] = field(default_factory=dict)
    query: str = ""
    if_match: int = 0
    needs: str = demo.NEEDS_SEED
    what: str = ""


def _target(step: Walkthrough) -> EventTarget:
    path = {name: demo.DEMO_IDS.get(value, value) for name, value in step.path.items()}
    return EventTarget(path, step.query, step.if_match, step.needs or demo.NEEDS_SEED, step.what)


def walkthrough() -> dict[str, EventTarget]:
    """Every route's event target by operation, in walk-through order; a route without a step is an error."""
    found = steps()
    missing = [route.key for route in routes.ROUTES if route.operation not in found]
    if missing:
        raise ValueError(f"routes without a walk-through step (local/walkthrough_steps.py): {missing}")
    ordered = sorted(found.items(), key=lambda item: item[1].step)
    return {operation: _target(step) for operation, step in ordered}


# The walk-through order (README, "Walk through every route"): each event succeeds once the ones before it ran.
WALKTHROUGH: dict[str, EventTarget] = walkthrough()


def description(route: Route) -> str:
    target = WALKTHROUGH[route.operation]
    text = f"{route.key}: {target.what} Needs first: {target.needs}."
    if route.idempotency != "none":
        text += " Invoked again, it answers the first response, replayed (Idempotent-Replayed: true)."
    return text
