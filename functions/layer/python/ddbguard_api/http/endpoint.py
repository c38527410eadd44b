"""The Lambda entry of one API operation: an API Gateway proxy event in, a proxy response out.

`Endpoint.respond` is the whole request path, the same for every route: the event must be for this function's
route (API Gateway already routed it: method and resource, path parameters decoded), `ddbguard_api.http.request`
parses it, the operation (a plain function `Request -> Reply` calling the domain once) runs, under the replay
cache where the route takes an Idempotency-Key (`ddbguard_api.http.idempotency`), and its reply becomes the proxy
response once, with `ETag` and `Location` as the route declares them. Every failure becomes problem+json
(`ddbguard_api.http.problems`), and every request logs one INFO line with its outcome (`ddbguard_api.http.request_log`).
Powertools does what it does well around it: Logger (Lambda context, correlation id), Tracer (by configuration)
and Metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.logging import correlation_paths

from ddbguard.errors import Busy, DomainError, SettlementBehind
from ddbguard.observability import logger, metrics, tracer
from ddbguard.store.call_log import counting
from ddbguard_api.http import problems
from ddbguard_api.http.cors import allowed_origins, cors_headers
from ddbguard_api.http.problems import EdgeError
from ddbguard_api.http.replies import Reply, add_header, etag, proxy_response
from ddbguard_api.http.request import AnyRequest, Request, parse_request
from ddbguard_api.http.request_log import Outcome, log_request
from ddbguard_api.models.body_validation import build_before_snapshot
from ddbguard_api.models.request_bodies import BODIES

if TYPE_CHECKING:
    from ddbguard_api.http.idempotency import EnvironmentReplayCache
    from ddbguard_api.http.proxy_events import ProxyEvent, ProxyResponse
    from ddbguard_api.http.route import Route
    from ddbguard_api.models.body import Body

# `Request` is exported for the handlers' annotations (`Request[Amount, None]`).
__all__ = ["Endpoint", "LambdaHandler", "Operation", "Request", "route_headers"]

type Operation = Callable[[AnyRequest], Reply]
type LambdaHandler = Callable[[ProxyEvent, Any], ProxyResponse]


def _body_class(name: str | None) -> type[Body] | None:
    """The route's body or query class (ddbguard_api.models.request_bodies); its validator is built at the first
    request that uses it, or before a SnapStart snapshot."""
    if name is None:
        return None
    body = BODIES[name]
    build_before_snapshot(body)
    return body


def _replay_cache(route: Route, execute: Callable[[AnyRequest], ProxyResponse]) -> EnvironmentReplayCache | None:
    """The route's replay cache, where the route takes an Idempotency-Key. Imported only then: a read-only function
    never loads Powertools idempotency or the request-marker code (nor, for /health, boto3)."""
    if route.idempotency == "none":
        return None
    from ddbguard_api.http.idempotency import EnvironmentReplayCache

    return EnvironmentReplayCache(route.operation, execute)


def route_headers(route: Route, reply: Reply, path: Mapping[str, str]) -> dict[str, str]:
    """`ETag` and `Location` of a success reply, from the route's facts (the ones OpenAPI documents): the ETag is
    the body's version, the Location the route's template filled from the body and the path."""
    headers: dict[str, str] = {}
    if not 200 <= reply.status < 300 or reply.body is None:
        return headers
    if route.returns_etag:
        headers["ETag"] = etag(reply.body["version"])
    if route.location is not None:
        headers["Location"] = route.location_of({**reply.body, **path})
    return headers


class Endpoint:
    """Build with the route-table entry, register the operation, export `lambda_handler()`."""

    def __init__(self, route: Route):
        self.route = route
        self.body_model = _body_class(route.body)  # the route table names the classes
        self.query_model = _body_class(route.query)
        self._operation: Operation | None = None
        self.idempotency = _replay_cache(route, self._execute)
        self.cors_origins = allowed_origins()  # none unless CORS_ALLOWED_ORIGINS lists origins

    def operation(self, function: Operation) -> Operation:
        self._operation = function
        return function

    def _execute(self, request: AnyRequest) -> ProxyResponse:
        """Run the operation. Refusals (DomainError) and Busy propagate, so the replay cache keeps nothing for
        them."""
        assert self._operation is not None, f"{self.route.handler}: no operation registered"
        reply = self._operation(request)
        return proxy_response(
            Reply(reply.status, reply.body, {**route_headers(self.route, reply, request.path), **reply.headers})
        )

    def _path(self, event: ProxyEvent) -> dict[str, str] | None:
        """The path parameters, in the route's order; None when the event is not for this route."""
        if str(event.get("httpMethod") or "").upper() != self.route.method or event.get("resource") != self.route.path:
            return None
        given = event.get("pathParameters") or {}
        path = {name: given.get(name) for name in self.route.path_parameters}
        if not all(isinstance(value, str) and value for value in path.values()):
            return None
        return {name: str(value) for name, value in path.items()}

    def _answer(self, event: ProxyEvent, outcome: Outcome) -> ProxyResponse:
        path = self._path(event)
        if path is None:
            outcome.code = "not_found"
            return proxy_response(problems.no_route())
        try:
            request = parse_request(self.route, event, path, body_model=self.body_model, query_model=self.query_model)
            if request.identity is not None and self.idempotency is not None:
                return self.idempotency.run(request)
            return self._execute(request)
        except DomainError as error:
            outcome.refused(error.code, error)
            return proxy_response(problems.from_domain_error(error))
        except EdgeError as error:
            outcome.refused(error.code, error)
            return proxy_response(problems.from_edge_error(error))
        except Busy as error:
            outcome.refused(getattr(error, "code", "busy"), error)
            if not isinstance(error, SettlementBehind):  # counted where it is raised (SettlementBehind metric)
                logger.warning("busy", extra={"reason": str(error)})
            return proxy_response(problems.from_busy(error))
        except Exception as error:
            outcome.refused("internal_error", error)
            logger.exception("unexpected error")
            return proxy_response(problems.unexpected())

    def respond(self, event: ProxyEvent) -> ProxyResponse:
        """The proxy response to `event`, with the CORS headers its Origin earns; logs the request's one INFO line."""
        outcome = Outcome()
        with counting() as calls:
            response = self._answer(event, outcome)
        for name, value in cors_headers(event, self.cors_origins).items():
            response = add_header(response, name, value)
        log_request(self.route.key, response, outcome, calls[0])
        return response

    def lambda_handler(self) -> LambdaHandler:
        idempotency = self.idempotency

        @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
        # Responses and errors carry personal data (emails, usernames): the trace records neither.
        @tracer.capture_lambda_handler(capture_response=False, capture_error=False)
        def handler(event: ProxyEvent, context: Any) -> ProxyResponse:
            if idempotency is not None:
                idempotency.register_lambda_context(context)
            try:
                return self.respond(event)
            finally:
                if metrics.metric_set:
                    metrics.flush_metrics()

        return handler
