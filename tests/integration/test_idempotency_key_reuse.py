"""A key names one request everywhere: for every route that takes an Idempotency-Key, the same key sent again with
another body, or on another resource, is 422 `idempotency_key_reused` on an execution environment that never saw
it (`api`: each request a fresh environment), after the first request ran on another one (`warm`).

The route table decides which routes are covered: a write route missing from SCENARIOS fails the first test. A
keyed PATCH writes its request marker in its own transaction like every keyed write, so a key whose first use was a
PATCH that changed no unique value is refused on another item too
(docs/decisions/063-a-keyed-patch-is-one-transaction-with-its.md).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

import routes
from local.api_client import ApiClient
from local.in_process import InProcessEnvironments
from local.route_stories import fresh_body, sample_body
from tests.support.ledger_seed import open_funded_ledger

SUB = "key-reuse"


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    body: Any = None
    if_match: int | None = None

    def send(self, client: ApiClient, key: str):
        return client.request(self.method, self.path, self.body, sub=SUB, idempotency_key=key, if_match=self.if_match)


def _account(api: ApiClient) -> str:
    tag = uuid.uuid4().hex[:12]
    reply = api.post("/accounts", {"email": f"{tag}@reuse.example", "username": f"r{tag}"}, sub=SUB)
    assert reply.status == 201, reply.json
    return reply.json["accountId"]


def _ledger(api: ApiClient, raw_client, deposit: int = 0) -> str:
    return open_funded_ledger(api, raw_client, SUB, deposit)


def _hold(api: ApiClient, account: str) -> str:
    reply = api.post(
        f"/accounts/{account}/ledger/holds", {"amountCents": 100}, sub=SUB, idempotency_key=uuid.uuid4().hex
    )
    assert reply.status == 201, reply.json
    return reply.json["holdId"]


def _order(api: ApiClient, account: str, quantity: int = 1) -> str:
    body = {"accountId": account, "items": [{"sku": "BOOK-1", "quantity": quantity, "unitPriceCents": 100}]}
    reply = api.post("/orders", body, sub=SUB)
    assert reply.status == 201, reply.json
    return reply.json["orderId"]


def _money(route: str) -> Callable[[ApiClient, Any], tuple[Call, list[Call]]]:
    def scenario(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
        mine, other = _ledger(api, raw_client, 1_000), _ledger(api, raw_client, 1_000)
        first = Call("POST", f"/accounts/{mine}/ledger/{route}", {"amountCents": 100})
        return first, [
            Call("POST", f"/accounts/{mine}/ledger/{route}", {"amountCents": 200}),
            Call("POST", f"/accounts/{other}/ledger/{route}", {"amountCents": 100}),
        ]

    return scenario


def _settle(action: str) -> Callable[[ApiClient, Any], tuple[Call, list[Call]]]:
    def scenario(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
        account = _ledger(api, raw_client, 1_000)
        one, two = _hold(api, account), _hold(api, account)
        base = f"/accounts/{account}/ledger/holds"
        return Call("POST", f"{base}/{one}/{action}"), [Call("POST", f"{base}/{two}/{action}")]

    return scenario


def _create_account(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    tag = uuid.uuid4().hex[:12]
    first = Call("POST", "/accounts", {"email": f"{tag}@reuse.example", "username": f"r{tag}"})
    return first, [Call("POST", "/accounts", {"email": f"x{tag}@reuse.example", "username": f"x{tag}"})]


def _update_account(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    mine, other = _account(api), _account(api)
    moved, elsewhere = f"{uuid.uuid4().hex[:12]}@moved.example", f"{uuid.uuid4().hex[:12]}@moved.example"
    # A unique change writes a key-level marker, so the key is refused on another account too.
    return Call("PATCH", f"/accounts/{mine}", {"email": moved}, 0), [
        Call("PATCH", f"/accounts/{mine}", {"displayName": "Two"}, 1),
        Call("PATCH", f"/accounts/{mine}", {"email": elsewhere}, 1),
        Call("PATCH", f"/accounts/{other}", {"email": elsewhere}, 0),
    ]


def _update_account_in_place(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    mine = _account(api)
    moved = f"{uuid.uuid4().hex[:12]}@moved.example"
    return Call("PATCH", f"/accounts/{mine}", {"displayName": "One"}, 0), [
        Call("PATCH", f"/accounts/{mine}", {"displayName": "Two"}, 1),
        Call("PATCH", f"/accounts/{mine}", {"email": moved}, 1),
    ]


def _delete_account(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    mine, other = _account(api), _account(api)
    return Call("DELETE", f"/accounts/{mine}", if_match=0), [Call("DELETE", f"/accounts/{other}", if_match=0)]


def _open_ledger(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    mine, other = _account(api), _account(api)
    return Call("POST", f"/accounts/{mine}/ledger"), [Call("POST", f"/accounts/{other}/ledger")]


def _create_transfer(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    source, target, third = _ledger(api, raw_client, 1_000), _ledger(api, raw_client), _ledger(api, raw_client)
    body = {"fromAccountId": source, "toAccountId": target, "amountCents": 100}
    return Call("POST", "/transfers", body), [
        Call("POST", "/transfers", {**body, "amountCents": 200}),
        Call("POST", "/transfers", {**body, "toAccountId": third}),
    ]


def _create_order(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    account = _ledger(api, raw_client)
    body = {"accountId": account, "items": [{"sku": "BOOK-1", "quantity": 1, "unitPriceCents": 100}]}
    other = {"accountId": account, "items": [{"sku": "BOOK-2", "quantity": 3, "unitPriceCents": 100}]}
    return Call("POST", "/orders", body), [Call("POST", "/orders", other)]


def _update_order_status(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    order = _order(api, _ledger(api, raw_client))
    return Call("PATCH", f"/orders/{order}", {"status": "CANCELLED"}, 0), [
        Call("PATCH", f"/orders/{order}", {"status": "SHIPPED"}, 1),
    ]


def _delete_order(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    account = _ledger(api, raw_client)
    one, two = _order(api, account), _order(api, account)
    return Call("DELETE", f"/orders/{one}", if_match=0), [Call("DELETE", f"/orders/{two}", if_match=0)]


def _pay_order(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    account = _ledger(api, raw_client, 1_000)
    one, two = _order(api, account), _order(api, account)
    return Call("POST", f"/orders/{one}/pay"), [Call("POST", f"/orders/{two}/pay")]


def _refund_order(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    account = _ledger(api, raw_client, 1_000)
    one, two = _order(api, account), _order(api, account)
    for order in (one, two):
        assert api.post(f"/orders/{order}/pay", sub=SUB, idempotency_key=f"pay-{uuid.uuid4()}").status == 200
    return Call("POST", f"/orders/{one}/refund"), [Call("POST", f"/orders/{two}/refund")]


def _update_order_status_on_another_order(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
    """A PATCH that changes no unique value, its key reused on another order (once applied as new: finding 1)."""
    account = _ledger(api, raw_client)
    order, other = _order(api, account), _order(api, account)
    return Call("PATCH", f"/orders/{order}", {"status": "CANCELLED"}, 0), [
        Call("PATCH", f"/orders/{other}", {"status": "CANCELLED"}, 0),
    ]


def _created(api: ApiClient, create: routes.Route) -> str:
    """A new item of a declared resource, from its create route's sample body made unique."""
    reply = api.post(create.path, fresh_body(create, uuid.uuid4().hex[:12]), sub=SUB)
    assert reply.status == 201, (create.key, reply.json)
    assert create.entity is not None
    return str(reply.json[create.entity.id_field])


def _generic(route: routes.Route) -> Callable[[ApiClient, Any], tuple[Call, list[Call]]]:
    """A generic route's scenario, from its entity's declaration: the key of a create sent again with other unique
    values; of an update or a delete, sent again on another item of the resource."""

    def scenario(api: ApiClient, raw_client: Any) -> tuple[Call, list[Call]]:
        if route.method == "POST":
            bodies = [fresh_body(route, uuid.uuid4().hex[:12]) for _ in range(2)]
            return Call("POST", route.path, bodies[0]), [Call("POST", route.path, bodies[1])]
        assert route.entity is not None
        create = next(r for r in routes.ROUTES if r.generic and r.entity is route.entity and r.method == "POST")
        one, two = (route.path.replace(f"{{{route.entity.id_field}}}", _created(api, create)) for _ in range(2))
        body = sample_body(route)
        return Call(route.method, one, body, 0), [Call(route.method, two, body, 0)]

    return scenario


# One scenario per keyed route: found by the route's operation name (`_<operation>`), or derived from its entity for
# a generic route with none (a declared resource's), so the routes come from the route table; plus a second PATCH
# of an account that changes no unique value.
_deposit, _withdraw, _place_hold = _money("deposits"), _money("withdrawals"), _money("holds")
_capture_hold, _release_hold = _settle("capture"), _settle("release")
KEYED = sorted(route.operation for route in routes.ROUTES if route.method in ("POST", "PATCH", "DELETE"))
SCENARIOS: dict[str, Callable[[ApiClient, Any], tuple[Call, list[Call]]]] = {
    route.operation: globals().get(f"_{route.operation}") or _generic(route)
    for route in routes.ROUTES
    if route.operation in KEYED and (f"_{route.operation}" in globals() or route.generic)
}
SCENARIOS["update_account in place"] = _update_account_in_place
SCENARIOS["update_order_status on another order"] = _update_order_status_on_another_order


def test_every_route_that_takes_a_key_has_a_scenario():
    assert [operation for operation in KEYED if operation not in SCENARIOS] == []


@pytest.mark.parametrize("operation", sorted(SCENARIOS))
def test_a_reused_key_is_422_on_an_environment_that_never_saw_it(api, raw_client, operation):
    warm = ApiClient(InProcessEnvironments(reuse=True))
    first, others = SCENARIOS[operation](api, raw_client)
    key = f"k-{uuid.uuid4()}"
    answered = first.send(warm, key)
    assert 200 <= answered.status < 300, answered.json
    for other in others:
        reused = other.send(api, key)
        assert (reused.status, reused.code) == (422, "idempotency_key_reused"), (other, reused.json)


@pytest.mark.parametrize("same_body", [True, False], ids=["one-body", "many-bodies"])
def test_one_key_racing_on_fresh_environments_applies_once(api, same_body):
    """Twelve threads send one PATCH key at once, each on a fresh environment, at the same If-Match: one change is
    applied; the others answer its response again (same body) or 422 (another body). Never a second version."""
    account = _account(api)
    path, key = f"/accounts/{account}", f"k-{uuid.uuid4()}"
    bodies = [{"displayName": "Same" if same_body else f"Name {n}"} for n in range(12)]
    barrier = threading.Barrier(len(bodies))

    def send(body: dict):
        barrier.wait()
        return Call("PATCH", path, body, 0).send(api, key)

    with ThreadPoolExecutor(max_workers=len(bodies)) as pool:
        replies = list(pool.map(send, bodies))
    applied = [reply for reply in replies if reply.status == 200 and reply.header("Idempotent-Replayed") is None]
    assert len(applied) == 1, [(r.status, r.json) for r in replies]
    stored = api.get(path, sub=SUB).json
    assert stored["version"] == 1 and stored == applied[0].json
    for reply in replies:
        if reply is applied[0]:
            continue
        if same_body:
            assert (reply.status, reply.json, reply.header("Idempotent-Replayed")) == (200, stored, "true")
        else:
            assert (reply.status, reply.code) == (422, "idempotency_key_reused"), reply.json
