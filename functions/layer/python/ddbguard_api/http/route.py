"""The `Route` type: what one API route is at runtime, and what the stack derives from it.

A route states its method, path, handler, table access, entity, success status and models, the refusals it documents
and its flags (If-Match, money, authorizer, ETag, Location, 404 codes). Nothing else: how the route is described to
readers (OpenAPI wording, sample bodies, the walk-through) is keyed by operation in local/, which ships in no Lambda
function. The route table (functions/routes/) holds one per route; the edge, infra/ and local/ read them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ddbguard.records import Record

if TYPE_CHECKING:
    from ddbguard.guards.entity import Entity

__all__ = ["MUTATING", "Problems", "Route", "TableAccess"]

MUTATING = frozenset({"POST", "PATCH", "DELETE"})

# DynamoDB actions (IAM names without `dynamodb:`) mapped to the partition-key patterns they reach
# (functions/routes/table_patterns.py). A transaction is authorised action by action: Put -> PutItem, Update ->
# UpdateItem, Delete -> DeleteItem, ConditionCheck -> ConditionCheckItem; TransactWriteItems itself is no IAM action.
type TableAccess = Mapping[str, tuple[str, ...]]
type Problems = Mapping[int, tuple[str, ...]]  # status -> the route's own refusal codes (the edge's follow its flags)


class Route(Record):
    """One route of the table, built by keyword only: `Route(method="GET", path="/health", handler=...)`.

    A record with named fields (`ddbguard.records.Record`: not a tuple, so never compared with or unpacked as one;
    `replaced(...)` copies it with changes, as `crud_routes` overrides a derived route); its mappings are read-only
    views, so no reader of the table can change a route another reads.
    """

    __slots__ = (
        "access",
        "auth",
        "body",
        "entity",
        "etag",
        "generic",
        "handler",
        "if_match",
        "location",
        "method",
        "moves_money",
        "not_found",
        "path",
        "problems",
        "query",
        "response",
        "status",
    )

    method: str
    path: str  # API Gateway resource path, with {placeholders}
    handler: str  # "<package>.<module>" under functions/: a file that exists (tests/unit/test_route_facts.py)
    generic: bool  # served by its entity's generic operation (ddbguard_api.http.entity_endpoints)
    if_match: bool  # updates/deletes of a versioned resource
    moves_money: bool  # Idempotency-Key required
    auth: bool  # Cognito authorizer in the cloud, bearer stand-in locally
    # What the operation does to the table. Idempotency has no access of its own: its record is the request
    # marker (`REQ#*`) the operation's own write puts, declared with the operation.
    access: Mapping[str, tuple[str, ...]]
    entity: Entity | None  # the one item the route acts on, if any
    status: int  # the success status
    response: str | None  # its model in ddbguard_api.models.response_models (None: no body)
    location: str | None  # the created resource's path, with the response's fields as {placeholders}
    etag: bool | None  # the reply carries the version as ETag; None: when it is its versioned entity
    not_found: Mapping[str, str]  # path parameter -> 404 code
    problems: Mapping[int, tuple[str, ...]]
    # The request's body and query classes in ddbguard_api.models.request_bodies, by name (infra/ reads this table
    # and never imports a model).
    body: str | None
    query: str | None

    def __init__(
        self,
        *,
        method: str,
        path: str,
        handler: str,
        generic: bool = False,
        if_match: bool = False,
        moves_money: bool = False,
        auth: bool = True,
        access: TableAccess | None = None,
        entity: Entity | None = None,
        status: int = 200,
        response: str | None = None,
        location: str | None = None,
        etag: bool | None = None,
        not_found: Mapping[str, str] | None = None,
        problems: Problems | None = None,
        body: str | None = None,
        query: str | None = None,
    ) -> None:
        self.method = method
        self.path = path
        self.handler = handler
        self.generic = generic
        self.if_match = if_match
        self.moves_money = moves_money
        self.auth = auth
        self.access = MappingProxyType({action: tuple(patterns) for action, patterns in (access or {}).items()})
        self.entity = entity
        self.status = status
        self.response = response
        self.location = location
        self.etag = etag
        self.not_found = MappingProxyType(dict(not_found or {}))
        self.problems = MappingProxyType(dict(problems or {}))
        self.body = body
        self.query = query

    def __repr__(self) -> str:
        return f"Route({self.key} -> {self.handler})"

    @property
    def operation(self) -> str:
        return self.handler.rsplit(".", 1)[-1]

    @property
    def key(self) -> str:
        """`METHOD /path/{param}`: the route's identity (idempotency scope, logs, metrics)."""
        return f"{self.method} {self.path}"

    @property
    def idempotency(self) -> str:
        """required | optional | none: every POST/PATCH/DELETE accepts a key; money needs one."""
        if self.moves_money:
            return "required"
        return "optional" if self.method in MUTATING else "none"

    @property
    def table_access(self) -> dict[str, tuple[str, ...]]:
        """Every DynamoDB action this route's function performs -> the partition-key patterns it reaches."""
        return dict(self.access)

    @property
    def tag(self) -> str:
        """The group the route is listed under (OpenAPI tags): its handler's package, or for a generic route the first
        segment of its path (`teams`), wherever its handler module lives."""
        return self.path.strip("/").split("/")[0] if self.generic else self.handler.split(".")[0]

    @property
    def construct_id(self) -> str:
        return "".join(part.capitalize() for part in self.operation.split("_"))

    @property
    def path_parameters(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))

    @property
    def returns_etag(self) -> bool:
        if self.etag is not None:
            return self.etag
        return self.entity is not None and self.entity.versioned and self.response is not None

    def not_found_code(self, parameter: str) -> str:
        """The 404 code for an absent (or malformed) `parameter`: the route's own, else that of its entity when the
        parameter is the entity's id (tests/unit/test_route_facts.py: no route falls through to `not_found`)."""
        if parameter in self.not_found:
            return self.not_found[parameter]
        if self.entity is not None and self.entity.id_field == parameter:
            return self.entity.not_found
        return "not_found"

    def location_of(self, values: Mapping[str, Any]) -> str:
        """The `Location` of a created resource, from the response's (or the path's) values."""
        if self.location is None:
            raise ValueError(f"{self.key} creates nothing with a Location")
        return self.location.format_map(values)
