"""Caller B on caller A's resources, over every route: B gets exactly the answer a free (never used) id gets,
which for anything that exists only for its owner is 404, and nothing of A's changes.

"Exactly": same status, same code, same body once the id in it is swapped for the free one. Client-chosen ids
too: B creating an order under A's order id is B's own new order, answered like a free id (order ids are per
owner, docs/decisions/028-order-ids-are-per-owner.md). The table is compared as a full scan of every item this test's
values reach,
before and after; the only new items are B's own (its orders, its idempotency records).
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

import routes
from ddbguard.store import codec, keys
from local.route_stories import fresh_body, sample_body
from local.scenarios import open_funded_ledger

LINES = [{"sku": "BOOK-1843", "quantity": 1, "unitPriceCents": 100}]


def _items_of(raw_client, needles: list[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every item of the table whose keys or attributes mention one of `needles` (a full, consistent scan)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    request: dict[str, Any] = {"TableName": os.environ["TABLE_NAME"], "ConsistentRead": True}
    while True:
        page = raw_client.scan(**request)
        for item in page.get("Items", []):
            text = json.dumps(item, sort_keys=True)
            if any(needle in text for needle in needles):
                found[(item["PK"]["S"], item["SK"]["S"])] = codec.from_item(item) or {}
        if "LastEvaluatedKey" not in page:
            return found
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


@pytest.fixture
def world(api, uid) -> dict[str, str]:
    """A's account with an open, funded ledger, a held amount and an order with a client-chosen id."""
    a, b = f"owner-a-{uid}", f"caller-b-{uid}"
    a_account = open_funded_ledger(api, a, 5_000, tag=f"a{uid}")
    b_account = open_funded_ledger(api, b, 5_000, tag=f"b{uid}")
    hold = api.post(f"/accounts/{a_account}/ledger/holds", {"amountCents": 100}, sub=a, idempotency_key=f"h-{uid}")
    assert hold.status == 201, hold.json
    order = api.post("/orders", {"accountId": a_account, "items": LINES, "orderId": f"order-{uid}"}, sub=a)
    assert order.status == 201, order.json
    return {
        "a": a,
        "b": b,
        "accountId": a_account,
        "bAccountId": b_account,
        "holdId": hold.json["holdId"],
        "orderId": f"order-{uid}",
        **{entity.id_field: _created_by_a(api, entity, a, uid) for entity in OTHER_ENTITIES},
    }


# Entities declared after accounts and orders: A gets one of each through its create route's sample body.
OTHER_ENTITIES = [e for e in routes.ENTITIES if e.kind not in ("account", "order")]


def _created_by_a(api, entity, a: str, uid: str) -> str:
    create = next(r for r in routes.ROUTES if r.entity is entity and r.method == "POST" and not r.path_parameters)
    body = fresh_body(create, uid)  # its unique values and id made unique per run, within their kinds
    reply = api.post(create.path, body, sub=a)
    assert reply.status == 201, (create.key, reply.json)
    return reply.json[entity.id_field]


def _request(route: routes.Route, ids: dict[str, str], world: dict[str, str], key: str) -> dict[str, Any]:
    """B's request on `route` aimed at `ids` (A's or free ones)."""
    path = route.path
    for name in route.path_parameters:
        path = path.replace(f"{{{name}}}", ids[name])
    body: Any = sample_body(route)
    if route.operation == "create_transfer":
        body = {"fromAccountId": ids["accountId"], "toAccountId": world["bAccountId"], "amountCents": 10}
    elif route.operation == "create_order":
        body = {"accountId": ids["accountId"], "items": LINES}
    elif route.operation == "create_account":
        body = None  # accounts have no client-chosen id: covered by the unique-value case below
    elif route.operation == "update_account":
        body = {"displayName": "B was here"}
    elif route.operation == "update_order_status":
        body = {"status": "CANCELLED"}
    return {
        "method": route.method,
        "path": path,
        "body": body,
        "sub": world["b"],
        "idempotency_key": key if route.idempotency != "none" else None,
        "if_match": 0 if route.if_match else None,
    }


def _normalised(reply, real: dict[str, str], free: dict[str, str]) -> tuple[int, str]:
    text = reply.raw.decode()
    for name, value in real.items():
        text = text.replace(value, free[name])
    return reply.status, text


RESOURCE_ROUTES = [route for route in routes.ROUTES if route.path_parameters or route.operation == "create_transfer"]


def test_every_route_answers_b_on_a_resource_as_on_a_free_id_and_changes_nothing(api, raw_client, world, uid):
    names = ("accountId", "holdId", "orderId", *(e.id_field for e in OTHER_ENTITIES))
    real = {name: world[name] for name in names}
    free = {"accountId": f"free-acct-{uid}", "holdId": f"free-hold-{uid}", "orderId": f"vacant-{uid}-o"}
    free.update({e.id_field: f"vacant-{e.kind}-{uid}" for e in OTHER_ENTITIES})
    scoped = [e for e in routes.ENTITIES if e.owner_scoped]
    needles = [uid, *(keys.owner_tag(e.kind, world["a"]) for e in scoped)]
    before = _items_of(raw_client, needles)

    answers = {}
    for route in RESOURCE_ROUTES:
        on_a = api.request(**_request(route, real, world, key=f"b-real-{route.operation}-{uid}"))
        on_free = api.request(**_request(route, free, world, key=f"b-free-{route.operation}-{uid}"))
        answers[route.key] = on_a.status
        assert _normalised(on_a, real, free) == _normalised(on_free, real, free), route.key
        assert on_a.status == 404, (route.key, on_a.json)
    # And B's creates naming A's account: refused like a free account id.
    for route in (routes.by_operation("create_order"), routes.by_operation("create_transfer")):
        on_a = api.request(**_request(route, real, world, key=f"b-create-{route.operation}-{uid}"))
        on_free = api.request(**_request(route, free, world, key=f"b-create-free-{route.operation}-{uid}"))
        assert _normalised(on_a, real, free) == _normalised(on_free, real, free), route.key

    assert set(answers) == {route.key for route in RESOURCE_ROUTES}
    after = _items_of(raw_client, needles)
    assert {key: after.get(key) for key in before} == before  # nothing that existed changed or went
    # The only new items: B's own idempotency records of B's refused requests (they cache B's 404s).
    assert {pk.split("#")[0] for pk, _sk in set(after) - set(before)} <= {"REQ"}


def test_a_client_chosen_order_id_taken_by_someone_else_is_free_to_you(api, raw_client, world, uid):
    taken, unused = world["orderId"], f"never-used-{uid}"
    a_items = _items_of(raw_client, [keys.owner_tag("order", world["a"])])

    for order_id in (taken, unused):
        body = {"accountId": world["bAccountId"], "items": LINES, "orderId": order_id}
        created = api.post("/orders", body, sub=world["b"])
        assert (created.status, created.header("ETag"), created.json["orderId"]) == (201, '"0"', order_id)
        assert api.get(f"/orders/{order_id}", sub=world["b"]).json["accountId"] == world["bAccountId"]
        # The caller's own duplicate keeps its documented 409.
        again = api.post("/orders", body, sub=world["b"])
        assert (again.status, again.code) == (409, "already_exists")

    # A's order is A's, untouched.
    assert _items_of(raw_client, [keys.owner_tag("order", world["a"])]) == a_items
    mine = api.get(f"/orders/{taken}", sub=world["a"])
    assert (mine.status, mine.json["accountId"]) == (200, world["accountId"])


def test_unique_values_of_someone_else_answer_taken_without_saying_whose(api, raw_client, world, uid):
    # Uniqueness is global by design (docs/api.md: 409 unique_violation names the field, never the owner or account).
    a_profile = api.get(f"/accounts/{world['accountId']}", sub=world["a"]).json
    before = _items_of(raw_client, [world["accountId"]])
    taken = api.post("/accounts", {"email": a_profile["email"], "username": f"fresh_{uid}"}, sub=world["b"])
    assert (taken.status, taken.code) == (409, "unique_violation")
    assert world["accountId"] not in taken.raw.decode() and world["a"] not in taken.raw.decode()
    assert _items_of(raw_client, [world["accountId"]]) == before
