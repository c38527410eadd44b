"""The `Route` type: what one API route is at runtime, and what the stack derives from it.

A route states its method, path, handler, table access, entity, success status and models, the refusals it documents
and its flags (If-Match, money, authorizer, ETag, Location, 404 codes, domain rules). Nothing else: how the route is
described to readers (OpenAPI wording, sample bodies, the walk-through) is keyed by operation in local/, which ships
in no Lambda function.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ddbguard.guards.entity import Entity

MUTATING = frozenset({"POST", "PATCH", "DELETE"})
GENERIC_HANDLERS = "crud"  # functions/crud/: the handler modules of generic routes, built from the route table

# DynamoDB actions (IAM names without `dynamodb:`) mapped to the partition-key patterns they reach
# (table_patterns.py). A transaction is authorised action by action: Put -> PutItem, Update -> UpdateItem,
# Delete -> DeleteItem, ConditionCheck -> ConditionCheckItem; TransactWriteItems itself is no IAM action.
TableAccess = Mapping[str, tuple[str, ...]]
Problems = Mapping[int, tuple[str, ...]]  # status -> the route's own refusal codes (the edge's follow from its flags)


class Route(NamedTuple):
    method: str
    path: str  # API Gateway resource path, with {placeholders}
    handler: str  # "<package>.<module>" under functions/
    if_match: bool = False  # updates/deletes of a versioned resource
    moves_money: bool = False  # Idempotency-Key required
    auth: bool = True  # Cognito authorizer in the cloud, bearer stand-in locally
    # What the operation does to the table. Idempotency has no access of its own: its record is the request
    # marker (`REQ#*`) the operation's own write puts, declared with the operation.
    access: TableAccess = MappingProxyType({})
    entity: Entity | None = None  # the one item the route acts on, if any
    status: int = 200  # the success status
    response: str | None = None  # its model in ddbguard_api.schemas (None: no body)
    location: str | None = None  # the created resource's path, with the response's fields as {placeholders}
    etag: bool | None = None  # the reply carries the version as ETag; None: when it is its versioned entity
    not_found: Mapping[str, str] = MappingProxyType({})  # path parameter -> 404 code
    problems: Problems = MappingProxyType({})
    # The request's body and query models in ddbguard_api.models, by name (infra/ imports this table, not pydantic).
    body: str | None = None
    query: str | None = None
    # A generic route's domain rules: the module (by name, so infra/ imports no domain code) whose `update_rules` /
    # `delete_rules` add a condition and an explanation to the generic write (ddbguard_api.entity_endpoints).
    rules: str | None = None

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
    def is_generic(self) -> bool:
        """Served by its entity's generic operation (functions/crud/), with no handler module of its own."""
        return self.handler.split(".")[0] == GENERIC_HANDLERS

    @property
    def table_access(self) -> dict[str, tuple[str, ...]]:
        """Every DynamoDB action this route's function performs -> the partition-key patterns it reaches."""
        return {action: tuple(patterns) for action, patterns in self.access.items()}

    @property
    def tag(self) -> str:
        """The group the route is listed under (OpenAPI tags): its handler's package, or for a generic route, which
        has no package of its own, the first segment of its path (`teams`)."""
        return self.path.strip("/").split("/")[0] if self.is_generic else self.handler.split(".")[0]

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
