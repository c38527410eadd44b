"""Routes served by an entity's generic operations, derived from the entity's declaration.

`entity_route` derives one route's table access, status, Location, response model and refusals from the entity and
the method; `crud_routes` declares create, get, update and delete of an entity in one statement. Each route's handler
is a module of its own under functions/ (`accounts.update_account` is accounts/update_account.py), written once by
`make regenerate` when missing (local/handler_files.py) and then owned like any handler: it passes the domain's hooks
to `ddbguard_api.http.entity_endpoints.entity_endpoint` by keyword. How a generic route is described (OpenAPI
wording, sample body, walk-through step) is derived in local/route_stories.py the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ddbguard.guards.entity import Entity
from ddbguard.guards.entity_access import crud_access, merged_access
from ddbguard_api.http.route import Problems, Route, TableAccess

# One verb per generic operation, in its handler's name (teams.create_team) and its body's (UpdateTeam).
CRUD_VERBS = {"POST": "create", "GET": "get", "PATCH": "update", "DELETE": "delete"}


def _access_and_problems(entity: Entity, method: str) -> tuple[TableAccess, Problems]:
    """The route's table access (the library's derivation, `ddbguard.guards.entity_access`) and its refusals."""
    access = crud_access(entity, method)
    taken = ("unique_violation",) if entity.unique else ()
    absent = {404: (entity.not_found,)}
    if method == "POST":
        return access, {409: (*taken, "already_exists"), 422: ("validation_failed",)}
    if method == "PATCH":
        return access, {**absent, **({409: taken} if taken else {}), 422: ("validation_failed",)}
    return access, absent


def _merged(problems: Problems, more: Problems) -> Problems:
    """`problems` with `more`'s codes added, status by status, each code once."""
    statuses = sorted(set(problems) | set(more))
    return {status: tuple(dict.fromkeys((*problems.get(status, ()), *more.get(status, ())))) for status in statuses}


def entity_route(
    entity: Entity,
    *,
    method: str,
    path: str,
    handler: str,
    body: str | None = None,
    problems: Problems | None = None,
    more_access: TableAccess | None = None,
) -> Route:
    """A route served by its entity's generic operation (ddbguard_api.http.entity_endpoints, chosen by the method):
    its table access, status, Location, response and refusals follow from the declaration; `body` names its request
    body, `problems` replaces the derived refusals, `more_access` adds what the domain's hooks touch (an account's
    delete also deletes its balance item)."""
    access, derived_problems = _access_and_problems(entity, method)
    access = merged_access((access, more_access or {}))
    created = method == "POST"
    return Route(
        method=method,
        path=path,
        handler=handler,
        generic=True,
        entity=entity,
        access=access,
        problems=derived_problems if problems is None else problems,
        if_match=method in ("PATCH", "DELETE"),
        status={"POST": 201, "DELETE": 204}.get(method, 200),
        response=None if method == "DELETE" else entity.title,
        location=f"{path}/{{{entity.id_field}}}" if created else None,
        body=body,
    )


def crud_routes(
    entity: Entity,
    path: str,
    *,
    package: str = "",
    methods: tuple[str, ...] = tuple(CRUD_VERBS),
    more_problems: Mapping[str, Problems] | None = None,
    **overrides: Mapping[str, Any],
) -> tuple[Route, ...]:
    """create, get, update and delete of an entity that declares its fields, served by the generic operations.

    `path` is the collection (`/teams`); items are `<path>/{<id field>}`. Each route is an `entity_route` whose
    handler is `<package>.<verb>_<kind>` (`package`: the collection's name unless given), a module under functions/
    that `make regenerate` writes when missing, and whose bodies are the entity's derived models (`Create<Title>`,
    `Update<Title>`). `more_problems` maps a method to refusals its domain rules add to the derived ones
    (`{"DELETE": {409: ("invalid_transition",)}}`); `overrides` maps a method to the facts to change on its route
    (`POST={"status": 200}`).
    """
    more_problems = more_problems or {}
    unknown = (set(overrides) | set(more_problems)) - set(methods)
    if unknown:
        raise ValueError(f"overrides for methods not declared: {sorted(unknown)}")
    package = package or path.strip("/").split("/")[0]
    item_path = f"{path}/{{{entity.id_field}}}"
    bodies = {"POST": f"Create{entity.title}", "PATCH": f"Update{entity.title}"}
    routes: list[Route] = []
    for method in methods:
        route = entity_route(
            entity,
            method=method,
            path=path if method == "POST" else item_path,
            handler=f"{package}.{CRUD_VERBS[method]}_{entity.kind}",
            body=bodies.get(method),
        )
        if method in more_problems:
            route = route.replaced(problems=_merged(route.problems, more_problems[method]))
        routes.append(route.replaced(**overrides[method]) if method in overrides else route)
    return tuple(routes)
