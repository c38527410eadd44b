"""Routes served by an entity's generic operations (functions/crud/), derived from the entity's declaration.

`entity_route` derives one route's table access, status, Location, response model and refusals from the entity and
the method; `crud_routes` declares create, get, change and delete of an entity in one statement. How a generic
route is described (OpenAPI wording, sample bodies, its walk-through step) is derived in local/ the same way.
"""

from __future__ import annotations

from typing import Any

from ddbguard.guards.entity import Entity
from route_facts import GENERIC_HANDLERS, Problems, Route, TableAccess
from table_patterns import OWNER_INDEX, REQUEST_MARKERS

# One word per generic operation, in its handler's name (crud.create_team, for teams).
CRUD_VERBS = {"POST": "create", "GET": "get", "PATCH": "update", "DELETE": "delete"}


def entity_route(entity: Entity, method: str, path: str, handler: str, **facts: Any) -> Route:
    """A route served by its entity's generic operation (ddbguard_api.entity_endpoints, chosen by the method):
    its table access, status, Location, response and refusals follow from the declaration; `facts` add the rest
    (body model, domain rules) or override."""
    items, locks = entity.partition_pattern, entity.lock_patterns
    index = (OWNER_INDEX,) if entity.owner_index else ()
    taken = ("unique_violation",) if entity.unique else ()
    absent = {404: (entity.not_found,)}
    derived: dict[str, Any] = {"response": entity.title, "if_match": method in ("PATCH", "DELETE")}
    if method == "POST":  # a create: the item, its locks, its index entry and the marker in one transaction
        access: TableAccess = {"PutItem": (items, *locks, *index, REQUEST_MARKERS)}
        problems: Problems = {409: (*taken, "already_exists"), 422: ("validation_failed",)}
        derived.update(status=201, location=f"{path}/{{{entity.id_field}}}")
    elif method == "GET":
        access, problems = {"GetItem": (items,)}, absent
    elif method == "PATCH":
        # Unkeyed: one UpdateItem. Keyed: the item and the marker read together, then the update and the marker in
        # one transaction. A unique change reads the item, then swaps the locks in that transaction.
        access = {"BatchGetItem": (items, REQUEST_MARKERS), "UpdateItem": (items,), "PutItem": (REQUEST_MARKERS,)}
        if locks:
            access = {**access, "GetItem": (items,), "PutItem": (*locks, REQUEST_MARKERS), "DeleteItem": locks}
        problems = {**absent, **({409: taken} if taken else {}), 422: ("validation_failed",)}
    elif method == "DELETE":
        # The item becomes its tombstone (a Put). With locks or an index entry, read first (with the marker, given
        # a key), and delete those in the same transaction (and whatever else the domain's delete takes with it).
        access = {"PutItem": (items, REQUEST_MARKERS)}
        if locks or index:
            read = {"GetItem": (items,), "BatchGetItem": (items, REQUEST_MARKERS)}
            access = {**read, "PutItem": (items, REQUEST_MARKERS), "DeleteItem": (items, *locks, *index)}
        problems, derived["response"] = absent, None
        derived.update(status=204)
    else:
        raise ValueError(f"no generic {method} operation")
    return Route(method, path, handler, entity=entity, **{"access": access, "problems": problems, **derived, **facts})


def crud_routes(
    entity: Entity,
    path: str,
    *,
    methods: tuple[str, ...] = tuple(CRUD_VERBS),
    rules: str | None = None,
    **overrides: Any,
) -> tuple[Route, ...]:
    """create, get, change and delete of an entity that declares its fields, served by the generic operations.

    `path` is the collection (`/teams`); items are `<path>/{<id field>}`. Each route is an `entity_route` whose
    handler is `crud.<verb>_<kind>` (no module to write: functions/crud/) and whose bodies are the entity's derived
    models (`Create<Title>`, `Change<Title>`). `rules` names the domain module whose `update_rules` /
    `delete_rules` the change and the delete add (see `Route.rules`); `overrides` maps a method to the facts to
    change on its route (`POST={"status": 200}`).
    """
    unknown = set(overrides) - set(methods)
    if unknown:
        raise ValueError(f"overrides for methods not declared: {sorted(unknown)}")
    item_path = f"{path}/{{{entity.id_field}}}"
    bodies = {"POST": f"Create{entity.title}", "PATCH": f"Change{entity.title}"}
    routes: list[Route] = []
    for method in methods:
        handler = f"{GENERIC_HANDLERS}.{CRUD_VERBS[method]}_{entity.kind}"
        declared: dict[str, Any] = {"body": bodies[method]} if method in bodies else {}
        if rules and method in ("PATCH", "DELETE"):
            declared["rules"] = rules
        declared.update(overrides.get(method, {}))
        routes.append(entity_route(entity, method, path if method == "POST" else item_path, handler, **declared))
    return tuple(routes)
