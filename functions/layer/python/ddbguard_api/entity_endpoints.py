"""The four operations of a declared entity as endpoints, with no handler module of their own (functions/crud/).

A route that names an entity (`Route.entity`) and needs nothing beyond the generic guarantees gets its
operation from the method: POST creates (a client may choose the id, when the body model has the entity's
id field), GET reads, PATCH changes at the If-Match version, DELETE deletes at it. Each is one call into
`ddbguard.guards.entity_operations`; the body model is the route's (`Route.body`), and a route naming its
domain's `rules` module gets that module's `clean_values` (the body's values as stored), `update_rules` and
`delete_rules` (a condition, an explanation, extra actions) applied to the write, as the order routes do for
their status table and the account routes for the display name and the balance.
"""

from __future__ import annotations

import importlib
from typing import Any

from ddbguard.guards import entity_operations as operations
from ddbguard.guards.entity import Entity
from ddbguard_api.endpoint import Endpoint, LambdaHandler
from ddbguard_api.replies import Reply, created, no_content, ok
from ddbguard_api.request import Request, RouteSpec


def _body(request: Request[Any, Any], entity: Entity) -> tuple[dict[str, object], str | None]:
    values = request.body.model_dump() if request.body is not None else {}
    return {k: v for k, v in values.items() if k != entity.id_field}, values.get(entity.id_field)


def _no_rules(*_: Any) -> operations.Rules:
    return {}


def entity_endpoint(route: RouteSpec) -> tuple[Endpoint, LambdaHandler]:
    """(the endpoint, its Lambda handler) for a route of `route.entity`, by the route's method; a route naming
    `rules` gets its domain's condition and explanation added to a change or a delete."""
    entity = route.entity
    if entity is None:
        raise ValueError(f"{route.key} names no entity")
    endpoint = Endpoint(route)
    domain = importlib.import_module(route.rules) if route.rules else None
    clean_values = getattr(domain, "clean_values", dict)
    update_rules = getattr(domain, "update_rules", _no_rules)
    delete_rules = getattr(domain, "delete_rules", _no_rules)

    def run(request: Request[Any, Any]) -> Reply:
        sub, identity = request.caller.sub, request.identity
        if route.method == "POST":
            values, item_id = _body(request, entity)
            item = operations.create(entity, sub, clean_values(values), item_id=item_id, identity=identity)
            return created(item)
        item_id = request.path[entity.id_field]
        if route.method == "GET":
            is_admin = entity.admin_reads and request.caller.is_admin
            return ok(operations.get(entity, item_id, sub, is_admin=is_admin))
        if route.method == "PATCH":
            values = clean_values(_body(request, entity)[0])
            expected = request.expected_version
            rules = update_rules(item_id, expected, values)
            return ok(operations.update(entity, item_id, sub, expected, values, identity=identity, **rules))
        if route.method == "DELETE":
            expected = request.expected_version
            rules = delete_rules(item_id, expected)
            operations.delete(entity, item_id, sub, expected, identity=identity, **rules)
            return no_content()
        raise ValueError(f"{route.key}: no generic operation for {route.method}")

    endpoint.operation(run)
    return endpoint, endpoint.lambda_handler()
