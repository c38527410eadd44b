"""Request parsing: an API Gateway event becomes a typed Request, or an EdgeError (4xx)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ddbguard.guards.request_identity import RequestIdentity
from ddbguard.limits import RESOURCE_ID_PATTERN
from ddbguard_api.http.bodies import field_errors, parse_body
from ddbguard_api.http.caller import Caller, caller_from_event
from ddbguard_api.http.headers import parse_idempotency_key, parse_if_match, single_header
from ddbguard_api.http.problems import EdgeError
from ddbguard_api.models.body import Body as BodyClass
from ddbguard_api.models.body_validation import validate

if TYPE_CHECKING:
    from ddbguard_api.http.json_documents import JsonObject
    from ddbguard_api.http.proxy_events import ProxyEvent
    from ddbguard_api.http.route import Route

__all__ = ["ANONYMOUS", "AnyRequest", "Body", "Query", "Request", "fingerprint", "parse_request"]

_PATH_PARAMETER = re.compile(RESOURCE_ID_PATTERN)
ANONYMOUS = Caller(sub="anonymous", groups=frozenset())

# The route's body and query classes (`Request[Amount, None]`, `Request[None, StatementQuery]`), from
# ddbguard_api.models.request_bodies: the classes the edge validates into, so the ones the handler receives.
Body = TypeVar("Body", bound=BodyClass | None)
Query = TypeVar("Query", bound=BodyClass | None)


class Request(Generic[Body, Query]):
    """A request the edge accepted: who, which route, its path, typed query and body, If-Match, identity."""

    __slots__ = ("body", "caller", "idempotency_key", "identity", "if_match", "path", "query", "route")

    def __init__(
        self,
        *,
        route: Route,
        caller: Caller,
        path: dict[str, str],
        query: Query,
        body: Body,
        if_match: int | None,
        identity: RequestIdentity | None,
        idempotency_key: str | None = None,
    ) -> None:
        self.route = route
        self.caller = caller
        self.path = path
        self.query = query
        self.body = body
        self.if_match = if_match
        self.identity = identity  # present when the client sent an Idempotency-Key
        self.idempotency_key = idempotency_key

    @property
    def money_identity(self) -> RequestIdentity:
        """The request's identity on a route that requires an Idempotency-Key (checked while parsing)."""
        if self.identity is None:
            raise ValueError(f"{self.route.key} does not require an Idempotency-Key")
        return self.identity

    @property
    def expected_version(self) -> int:
        """The If-Match version; present on every route that requires If-Match (checked while parsing)."""
        if self.if_match is None:
            raise ValueError(f"{self.route.key} does not require If-Match")
        return self.if_match


# What the edge passes around before an operation looks at the types (endpoint, replay cache).
type AnyRequest = Request[Any, Any]


def fingerprint(path: Mapping[str, str], query: Mapping[str, str], document: JsonObject | None) -> str:
    """What the request asks, hashed: the same Idempotency-Key with another fingerprint is a reused key."""
    canonical = json.dumps({"path": path, "query": query, "body": document}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _query(event: ProxyEvent, model: type[BodyClass] | None) -> tuple[BodyClass | None, dict[str, str]]:
    raw_query = event.get("queryStringParameters") or {}
    if any(len(v) > 1 for v in (event.get("multiValueQueryStringParameters") or {}).values()):
        raise EdgeError(400, "invalid_query", "Send each query parameter once.")
    if model is None:
        if raw_query:
            raise EdgeError(422, "validation_failed", "This route takes no query parameters.")
        return None, raw_query
    from pydantic_core import ValidationError  # pydantic's own; loaded with the validator by now

    try:
        return validate(model, raw_query, strict=False), raw_query
    except ValidationError as error:
        raise EdgeError(422, "validation_failed", "The query is not valid.", field_errors(error)) from None


def parse_request(
    route: Route,
    event: ProxyEvent,
    path: dict[str, str],
    *,
    body_model: type[BodyClass] | None,
    query_model: type[BodyClass] | None,
) -> AnyRequest:
    """Every check the edge makes before the domain is asked anything, in the order clients see them."""
    caller = caller_from_event(event) if route.auth else ANONYMOUS
    if caller is None:
        raise EdgeError(401, "unauthorized", "Send a valid bearer token.")
    for name, value in path.items():
        if not _PATH_PARAMETER.fullmatch(value):
            # A malformed id names nothing: answered as an absent one of that kind (the route table's code).
            raise EdgeError(404, route.not_found_code(name), "No such resource.")
    key = parse_idempotency_key(single_header(event, "Idempotency-Key", "invalid_idempotency_key"))
    if key is None and route.idempotency == "required":
        raise EdgeError(400, "idempotency_key_required", "This route moves money: send an Idempotency-Key header.")
    query, raw_query = _query(event, query_model)
    body, document = parse_body(event, body_model)
    if_match = None
    if route.if_match:
        if_match = parse_if_match(single_header(event, "If-Match", "invalid_if_match"))
        if if_match is None:
            raise EdgeError(428, "precondition_required", 'Send If-Match: "<version>" from the ETag you read.')
    identity = None
    if key is not None:
        identity = RequestIdentity(
            caller=caller.sub, route=route.key, key=key, fingerprint=fingerprint(path, raw_query, document)
        )
    return Request(
        route=route,
        caller=caller,
        path=path,
        query=query,
        body=body,
        if_match=if_match,
        identity=identity,
        idempotency_key=key,
    )
