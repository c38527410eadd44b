"""Each route told to readers: one ordered list of walk-through steps, whose position is the step number.

A route's story says what its success response is (the OpenAPI document's words, local/openapi.py), what its sample
event does to the demo world (local/demo.py) and with which body, path, query and If-Match, and what must have run
first. events/<operation>.json (local/events.py) is its sample event, and the README's walk-through runs the events
in this order; each succeeds once the ones before it ran (tests/http/test_walkthrough.py). What a route does is its
handler's docstring, which OpenAPI takes as its summary.

`STORIES` lists the product's routes. A generic route left out of it gets its story derived from its entity, after
the listed ones in route-table order: alice creates the entity's demo item, reads it, updates it and deletes it. The
update sends a text or number field (never a choice, which rules such as a status table tend to guard), so a delete
allowed only in the created state still succeeds. tests/unit/test_route_stories.py fails when a route has no story
or a story names no route.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import routes
from ddbguard.guards.entity import Entity
from ddbguard.guards.fields import CHOICE, Field
from ddbguard.guards.request_identity import RequestIdentity
from local import demo
from routes import Route


@dataclass(frozen=True)
class Story:
    """A route's story: `path` names ids as `demo.DEMO_IDS` does (any other value is an id as it is)."""

    operation: str
    reply: str  # what the success response is, in a few words (OpenAPI)
    what: str  # what the sample event does
    path: Mapping[str, str] = field(default_factory=dict)
    query: str = ""
    if_match: int = 0
    needs: str = ""  # what must have run first; empty: the demo world
    body: Mapping[str, Any] | None = None  # the sample event's body; None: none
    # The pass deletes what this step acts on (`ada`, a generic demo item), so a second pass replays it only after
    # `make seed` cleared its request marker (local/walkthrough_reset.py).
    reset_on_rerun: bool = False
    step: int = 0  # its position in the walk-through, from 1 (set by `stories()`)


_AMOUNT = {"amountCents": 2500}
_MAIN = {"accountId": "main account"}
_ADA = {"accountId": "ada"}
_NOTHING = "nothing"

STORIES: tuple[Story, ...] = (
    Story("check_health", "The service answers.", "Liveness: no token, no table.", needs=_NOTHING),
    Story(
        "create_account",
        "The new account.",
        "alice opens `ada`.",
        body={"email": "ada@lovelace.io", "username": "ada", "displayName": "Ada Lovelace"},
        needs="nothing (the seed does not take ada's email)",
        reset_on_rerun=True,
    ),
    Story(
        "list_accounts",
        "The caller's accounts, newest first, one page.",
        "alice's accounts, newest first.",
        query="limit=10",
    ),
    Story("get_account", "The account.", "alice's demo account.", _MAIN),
    Story(
        "update_account",
        "The account after the update.",
        "renames `ada` (version 0 -> 1).",
        _ADA,
        if_match=0,
        body={"displayName": "Countess of Lovelace"},
        needs="create_account",
        reset_on_rerun=True,
    ),
    Story(
        "open_ledger",
        "The new, empty balance.",
        "opens ada's ledger.",
        _ADA,
        needs="create_account",
        reset_on_rerun=True,
    ),
    Story(
        "get_statement",
        "The balance and one page of entries, newest first.",
        "alice's balance and entries.",
        _MAIN,
        query="limit=25",
    ),
    Story("deposit", "The deposit entry.", "25.00 into alice's ledger.", _MAIN, body=_AMOUNT),
    Story("withdraw", "The withdrawal entry.", "25.00 out of alice's ledger.", _MAIN, body=_AMOUNT),
    Story(
        "place_hold", "The hold entry; `holdId` names the hold.", "holds 25.00 of alice's money.", _MAIN, body=_AMOUNT
    ),
    Story(
        "capture_hold",
        "The capture entry: the held money left the account.",
        "captures the seeded hold `hold-to-capture`.",
        {**_MAIN, "holdId": "hold to capture"},
    ),
    Story(
        "release_hold",
        "The release entry: the held money is available again.",
        "releases the seeded hold `hold-to-release`.",
        {**_MAIN, "holdId": "hold to release"},
    ),
    Story(
        "create_transfer",
        "The caller's transfer_out entry.",
        "10.00 from alice's account to bob's.",
        body={"fromAccountId": demo.MAIN_ACCOUNT, "toAccountId": demo.PEER_ACCOUNT, "amountCents": 1000},
    ),
    Story(
        "create_order",
        "The new PENDING order at version 0.",
        "alice orders two books (ord-demo-0004).",
        body={"accountId": demo.MAIN_ACCOUNT, "orderId": demo.ORDER_CREATED_BY_EVENT, "items": demo.ORDER_LINES},
    ),
    Story("get_order", "The order.", "the seeded order ord-demo-0001.", {"orderId": "order to pay"}),
    Story(
        "update_order_status",
        "The order after the move.",
        "cancels the seeded order ord-demo-0002.",
        {"orderId": "order to cancel"},
        if_match=0,
        body={"status": "CANCELLED"},
    ),
    Story(
        "pay_order",
        "The PAID order (a replay with the same key answers the first result).",
        "pays ord-demo-0001 from alice's ledger.",
        {"orderId": "order to pay"},
    ),
    Story(
        "refund_order",
        "The REFUNDED order (a replay with the same key answers the first result).",
        "refunds ord-demo-0001: its total returns to alice's ledger.",
        {"orderId": "order to pay"},
        needs="pay_order",
    ),
    Story(
        "delete_order",
        "Deleted; the id is never given again.",
        "deletes ord-demo-0003.",
        {"orderId": "order to delete"},
        if_match=0,
    ),
    Story(
        "delete_account",
        "Deleted with its locks (and its empty balance item); the id is never given again.",
        "deletes `ada`, her locks and her empty ledger.",
        _ADA,
        if_match=1,
        needs="update_account (If-Match 1) and open_ledger (an empty ledger goes with the account)",
        reset_on_rerun=True,
    ),
)


def _generic_routes(entity: Entity) -> dict[str, Route]:
    return {route.method: route for route in routes.ROUTES if route.generic and route.entity is entity}


def demo_id(entity: Entity) -> str:
    """The id of the demo item a generic resource's derived stories act on (alice's, made by its create): chosen by
    the client where ids are per owner, else derived from the create's sample Idempotency-Key as the service does."""
    if entity.owner_scoped:
        return f"{entity.kind}-demo-1"
    create = _generic_routes(entity)["POST"]
    identity = RequestIdentity(
        caller=demo.OWNER, route=create.key, key=demo.sample_key(create.operation), fingerprint=""
    )
    return identity.derived_id(entity.kind)


def _update_body(entity: Entity) -> dict[str, Any]:
    """One field to update, a text or number one where there is one (choices are what rules guard)."""
    ranked = sorted(entity.fields.items(), key=lambda item: (item[1].kind == CHOICE, item[1].unique is not None))
    name, spec = next(((n, s) for n, s in ranked if s.updatable), ranked[0])
    return {name: spec.example}


def _derived(route: Route) -> Story:
    """A generic route's story, from its entity and method."""
    entity = route.entity
    if entity is None:
        raise ValueError(f"{route.key} names no entity to derive its story from")
    kind, item, on_demo = entity.kind, demo_id(entity), {entity.id_field: demo_id(entity)}
    siblings = _generic_routes(entity)
    create = siblings["POST"].operation if "POST" in siblings else ""
    if route.method == "POST":
        body = {name: spec.example for name, spec in entity.fields.items() if spec.on_create}
        if entity.owner_scoped:  # a client-chosen id: the sample events name the demo item
            body[entity.id_field] = item
        return Story(
            route.operation, f"The new {kind}.", f"alice creates the {kind} {item}.", body=body, reset_on_rerun=True
        )
    if route.method == "GET":
        return Story(route.operation, f"The {kind}.", f"the {kind} {item}.", on_demo, needs=create)
    if route.method == "PATCH":
        return Story(
            route.operation,
            f"The {kind} after the update.",
            "updates it (version 0 -> 1).",
            on_demo,
            if_match=0,
            body=_update_body(entity),
            needs=create,
            reset_on_rerun=True,
        )
    updated = "PATCH" in siblings
    return Story(
        route.operation,
        "Deleted, with its locks." if entity.unique else "Deleted.",
        f"deletes the {kind} {item}.",
        on_demo,
        if_match=1 if updated else 0,
        needs=siblings["PATCH"].operation if updated else create,
        reset_on_rerun=True,
    )


def stories() -> dict[str, Story]:
    """Every route's story by operation, in walk-through order (numbered from 1): `STORIES`, then the derived ones.
    A route with no story is an error."""
    listed = {story.operation: story for story in STORIES}
    ordered = [listed[route.operation] for route in routes.ROUTES if route.operation in listed]
    ordered.sort(key=STORIES.index)
    ordered += [_derived(route) for route in routes.ROUTES if route.operation not in listed and route.generic]
    missing = [route.key for route in routes.ROUTES if route.operation not in {s.operation for s in ordered}]
    if missing:
        raise ValueError(f"routes without a story (local/route_stories.py): {missing}")
    return {story.operation: replace(story, step=number) for number, story in enumerate(ordered, start=1)}


def story_of(route: Route) -> Story:
    return stories()[route.operation]


def sample_body(route: Route) -> dict[str, Any] | None:
    """The body of the route's sample event; None: no body."""
    body = story_of(route).body
    return None if body is None else dict(body)


def fresh_value(field: str, spec: Field, tag: str) -> object:
    """`spec`'s example, made distinct by `tag` (lower-case hex, as tests' uids are) where the field is unique, and
    still a value its kind accepts: an email gains the tag in its local part; another kind keeps as much of its
    example as leaves room for the tag within its longest form."""
    kind = spec.unique
    if kind is None:
        return spec.example
    example = str(spec.example)
    if kind.email:
        local, _, domain = example.partition("@")
        value = f"{local}.{tag}@{domain}"
    else:
        value = example[: max(kind.max_length - len(tag), 0)] + tag[-kind.max_length :]
    refused = kind.problem(field, kind.form(value))
    if refused is not None:
        raise ValueError(f"no fresh {field} from {example!r} and {tag!r}: {refused.message}")
    return value


def fresh_body(route: Route, tag: str) -> dict[str, Any] | None:
    """The route's sample body, every unique value in it (and a client-chosen id) made distinct by `tag`: a create
    that may run again, or beside other tests."""
    body = sample_body(route)
    entity = route.entity
    if body is None or entity is None:
        return body
    fresh = {
        name: fresh_value(name, entity.fields[name], tag) if name in entity.fields else value
        for name, value in body.items()
    }
    if entity.id_field in fresh:
        fresh[entity.id_field] = f"{fresh[entity.id_field]}-{tag}"  # the demo id, made unique
    return fresh


def event_path(route: Route) -> dict[str, str]:
    """The path parameters of the route's sample event, demo names resolved to ids."""
    return {name: demo.DEMO_IDS.get(value, value) for name, value in story_of(route).path.items()}


def description(route: Route) -> str:
    """What events/<operation>.json says it does and needs."""
    story = story_of(route)
    needs = story.needs or demo.NEEDS_SEED
    text = f"{route.key}: {story.what} Needs first: {needs}."
    if route.idempotency != "none":
        text += " Invoked again, it answers the first response, replayed (Idempotent-Replayed: true)."
    return text
