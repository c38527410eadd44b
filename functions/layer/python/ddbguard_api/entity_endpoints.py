"""The four operations of a declared entity as endpoints: a handler module is its route and one line.

A route that names an entity (`Route.entity`) and needs nothing beyond the generic guarantees gets its
operation from the method: POST creates (a client may choose the id, when the body model has the entity's
id field), GET reads, PATCH changes at the If-Match version, DELETE deletes at it. Each is one call into
`ddbguard.guards.entity_operations`; the body model is the route's (`Route.body`).
"""

from __future__ import annotations

from typing import Any

from ddbguard.guards import entity_operations as operations
from ddbguard.guards.entity import Entity
from ddbguard_api.endpoint import Endpoint, LambdaHandler
from ddbguard_api.replies import Reply, created, no_content, ok
from ddbguard_api.request import Request, RouteSpec


def _body(request: Request[Any], entity: Entity) -> tuple[dict[str, Any], str | None]:
    values = request.body.model_dump() if request.body is not None else {}
    return {k: v for k, v in values.items() if k != entity.id_field}, values.get(entity.id_field)


def entity_endpoint(route: RouteSpec) -> tuple[Endpoint, LambdaHandler]:
    """(the endpoint, its Lambda handler) for a route of `route.entity`, by the route's method."""
    entity = route.entity
    if entity is None:
        raise ValueError(f"{route.key} names no entity")
    endpoint = Endpoint(route)

    def run(request: Request[Any]) -> Reply:
        sub, identity = request.caller.sub, request.identity
        if route.method == "POST":
            values, item_id = _body(request, entity)
            item = operations.create(entity, sub, values, item_id=item_id, identity=identity)
            return created(item, route.location_of(item))
        item_id = request.path[entity.id_field]
        if route.method == "GET":
            return ok(operations.get(entity, item_id, sub))
        if route.method == "PATCH":
            values, _ = _body(request, entity)
            return ok(operations.update(entity, item_id, sub, request.expected_version, values, identity=identity))
        if route.method == "DELETE":
            operations.delete(entity, item_id, sub, request.expected_version, identity=identity)
            return no_content()
        raise ValueError(f"{route.key}: no generic operation for {route.method}")

    endpoint.operation(run)
    return endpoint, endpoint.lambda_handler()
