"""The four operations of a declared entity as endpoints: a generic route's handler module is one call to
`entity_endpoint`.

A route that names an entity (`Route.entity`, `Route.generic`) and needs nothing beyond the generic guarantees gets
its operation from the method: POST creates (a client may choose the id, when the body has the entity's id field),
GET reads, PATCH updates at the If-Match version, DELETE deletes at it. Each is one call into
`ddbguard.guards.entity_operations`. What the domain adds comes in as keyword arguments from the handler module,
plain imports a misspelling fails at: `clean_values` (the body's values as stored, for this route's create or
update), `update_rules` and `delete_rules` (a condition, an explanation, extra actions), as the order routes do for
their status table and the account routes for the display name and the balance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ddbguard.guards import entity_operations as operations
from ddbguard.guards.entity import Entity
from ddbguard_api.http.endpoint import Endpoint, LambdaHandler
from ddbguard_api.http.replies import Reply, created, no_content, ok
from ddbguard_api.http.request import AnyRequest
from ddbguard_api.http.route import Route

__all__ = ["CleanValues", "DeleteRules", "UpdateRules", "entity_endpoint"]

type CleanValues = Callable[[Mapping[str, object]], Mapping[str, object]]
type UpdateRules = Callable[[str, int, Mapping[str, object]], operations.Rules]
type DeleteRules = Callable[[str, int], operations.DeleteRules]


def _as_sent(values: Mapping[str, object]) -> Mapping[str, object]:
    return values


def _no_update_rules(item_id: str, expected: int, values: Mapping[str, object]) -> operations.Rules:
    return {}


def _no_delete_rules(item_id: str, expected: int) -> operations.DeleteRules:
    return {}


def _body(request: AnyRequest, entity: Entity) -> tuple[dict[str, object], str | None]:
    values = request.body.model_dump() if request.body is not None else {}
    item_id = values.get(entity.id_field)
    fields = {name: value for name, value in values.items() if name != entity.id_field}
    return fields, None if item_id is None else str(item_id)


def entity_endpoint(
    route: Route,
    *,
    clean_values: CleanValues = _as_sent,
    update_rules: UpdateRules = _no_update_rules,
    delete_rules: DeleteRules = _no_delete_rules,
) -> tuple[Endpoint, LambdaHandler]:
    """(the endpoint, its Lambda handler) for a generic route of `route.entity`, by the route's method."""
    entity = route.entity
    if entity is None or not route.generic:
        raise ValueError(f"{route.key} is no generic route of an entity")
    endpoint = Endpoint(route)

    def run(request: AnyRequest) -> Reply:
        sub, identity = request.caller.sub, request.identity
        if route.method == "POST":
            sent, item_id = _body(request, entity)
            item = operations.create(entity, sub, clean_values(sent), item_id=item_id, identity=identity)
            return created(item)
        item_id = request.path[entity.id_field]
        if route.method == "GET":
            is_admin = entity.admin_reads and request.caller.is_admin
            return ok(operations.get(entity, item_id, sub, is_admin=is_admin))
        expected = request.expected_version
        if route.method == "PATCH":
            values = clean_values(_body(request, entity)[0])
            rules = update_rules(item_id, expected, values)
            return ok(operations.update(entity, item_id, sub, expected, values, identity=identity, **rules))
        rules = delete_rules(item_id, expected)
        operations.delete(entity, item_id, sub, expected, identity=identity, **rules)
        return no_content()

    if route.method not in ("POST", "GET", "PATCH", "DELETE"):
        raise ValueError(f"{route.key}: no generic operation for {route.method}")
    endpoint.operation(run)
    return endpoint, endpoint.lambda_handler()
