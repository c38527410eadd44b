"""ddbguard's answers for a team's own handlers under Powertools' REST resolver (`APIGatewayRestResolver`).

A team keeps its framework: its routes are Powertools routes, and `Guard(app)` gives them what ddbguard's own edge
gives the product's handlers:

- every refusal as RFC 9457 problem+json: a domain refusal (404, 409 naming the taken fields, 412 with the current
  item and its ETag, 422), an edge refusal (400 bad header or JSON, 401, 428 If-Match missing), 503 busy with
  Retry-After; pydantic's validation of a body as 422 `validation_failed`, field by field;
- `identity()`: the request's Idempotency-Key as a `RequestIdentity` (caller, route, key, and the fingerprint of
  path, query and body), which the write carries into its own transaction (a retry answers the first response, the
  same key with another request is 422);
- `expected_version()`: the `If-Match` version a versioned write asserts;
- `create_values(entity)`, `update_values(entity)`: the body checked against the entity's declared fields;
- `created`, `ok`, `no_content`: the answer with its ETag, and `Idempotent-Replayed: true` when it is a replay.

Needs the `edge` extra (pydantic).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import ApiGatewayResolver
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from pydantic import ValidationError

from ddbguard.errors import Busy, DomainError
from ddbguard.guards import replays
from ddbguard.guards.entity import Entity, PublicItem
from ddbguard.guards.request_identity import RequestIdentity
from ddbguard_api.http.bodies import check_depth, field_errors, parse_json, raw_body
from ddbguard_api.http.caller import caller_from_event
from ddbguard_api.http.headers import parse_idempotency_key, parse_if_match, single_header
from ddbguard_api.http.json_documents import JsonObject
from ddbguard_api.http.problems import EdgeError, from_busy, from_domain_error, from_edge_error
from ddbguard_api.http.proxy_events import ProxyEvent
from ddbguard_api.http.replies import JSON, REPLAYED_HEADER, Reply, etag, json_body
from ddbguard_api.http.request import fingerprint
from ddbguard_api.models.entity_models import request_models_of

__all__ = ["Guard"]


class Guard:
    """ddbguard's edge on a Powertools resolver: its refusals, its headers and its answers (see the module)."""

    def __init__(self, app: ApiGatewayResolver) -> None:
        self.app = app
        app.use(middlewares=[_begin_request])
        app.exception_handler(DomainError)(lambda error: _response(from_domain_error(error)))
        app.exception_handler(EdgeError)(lambda error: _response(from_edge_error(error)))
        app.exception_handler(Busy)(lambda error: _response(from_busy(error)))
        app.exception_handler(ValidationError)(
            lambda error: _response(
                from_edge_error(EdgeError(422, "validation_failed", "The body is not valid.", field_errors(error)))
            )
        )

    @property
    def _event(self) -> ProxyEvent:
        return cast(ProxyEvent, self.app.current_event.raw_event)

    def caller(self) -> str:
        """The caller's `sub`, as API Gateway's Cognito authorizer put it in the event; 401 without one."""
        found = caller_from_event(self._event)
        if found is None:
            raise EdgeError(401, "unauthorized", "Send a valid bearer token.")
        return found.sub

    def document(self) -> JsonObject:
        """The JSON object the request sent; 400 for what is not JSON, 422 for what is not an object."""
        data = raw_body(self._event)
        check_depth(data)
        document = parse_json(data) if data.strip() else None
        if not isinstance(document, dict):
            raise EdgeError(422, "validation_failed", "The body must be a JSON object.")
        return document

    def identity(self) -> RequestIdentity | None:
        """The request's identity under its Idempotency-Key, or None when it sent none."""
        event = self._event
        key = parse_idempotency_key(single_header(event, "Idempotency-Key", "invalid_idempotency_key"))
        if key is None:
            return None
        body = self.document() if raw_body(event).strip() else None
        path, query = event.get("pathParameters") or {}, event.get("queryStringParameters") or {}
        route = f"{event.get('httpMethod')} {event.get('resource')}"
        return RequestIdentity(caller=self.caller(), route=route, key=key, fingerprint=fingerprint(path, query, body))

    def expected_version(self) -> int:
        """The version `If-Match` names; 428 when absent (a versioned write never goes without it)."""
        version = parse_if_match(single_header(self._event, "If-Match", "invalid_if_match"))
        if version is None:
            raise EdgeError(428, "precondition_required", 'Send If-Match: "<version>" from the ETag you read.')
        return version

    def create_values(self, entity: Entity) -> dict[str, object]:
        """The create body, checked against the entity's fields (422 field by field)."""
        create, _ = request_models_of(entity)
        return create.model_validate(self.document()).model_dump(exclude_none=True)

    def update_values(self, entity: Entity) -> dict[str, object]:
        """The update body: the updatable fields sent (at least one), checked (422 field by field)."""
        _, update = request_models_of(entity)
        return update.model_validate(self.document()).model_dump(exclude_none=True)

    def created(self, item: PublicItem, location: str) -> Response[str]:
        return _response(Reply(201, item, {"Location": location, **_etag(item)}))

    def ok(self, item: PublicItem) -> Response[str]:
        return _response(Reply(200, item, _etag(item)))

    def no_content(self) -> Response[str]:
        return _response(Reply(204))


def _begin_request(app: ApiGatewayResolver, next_middleware: NextMiddleware) -> Response:
    replays.begin_request()  # nothing replayed yet in this request
    return next_middleware(app)


def _etag(item: Mapping[str, object]) -> dict[str, str]:
    version = item.get("version")
    return {"ETag": etag(version)} if isinstance(version, int) else {}


def _response(reply: Reply) -> Response[str]:
    headers = dict(reply.headers)
    if reply.status < 300 and replays.was_replayed():
        headers[REPLAYED_HEADER] = "true"
    content_type = headers.pop("Content-Type", JSON)
    # Sorted, as the product's answers are: a replay (read back from the request marker) is byte for byte the first.
    body = None if reply.body is None else json_body(reply.body, sort_keys=content_type == JSON)
    return Response(reply.status, content_type if body is not None else None, body, headers)
