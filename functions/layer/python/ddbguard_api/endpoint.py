"""The Lambda entry of one API operation: the same short stack for every route.

Powertools event handler (routing, Response), Logger / Tracer / Metrics, and Powertools
idempotency around every POST / PATCH / DELETE that carries an Idempotency-Key. The operation
itself is a plain function `Request -> Reply` that calls the domain once. Parsing lives in
`ddbguard_api.request`, idempotency in `ddbguard_api.idempotency`, error mapping in
`ddbguard_api.error_responses`.
"""

from __future__ import annotations

import contextvars
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.logging import correlation_paths

from ddbguard.errors import DomainError
from ddbguard.guards import replays
from ddbguard.observability import logger, metrics, metrics_lock, tracer
from ddbguard_api import error_responses
from ddbguard_api.cors import cors_config
from ddbguard_api.idempotency import IdempotentExecution
from ddbguard_api.replies import Reply
from ddbguard_api.request import Request, RouteSpec, parse_request

if TYPE_CHECKING:  # pydantic is imported with the first model used (ddbguard_api.lazy_models)
    from pydantic import BaseModel

Operation = Callable[[Request[Any]], Reply]
# This invocation's event (see Endpoint._resolve).
_current_event: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("ddbguard_event")
# Stripe's name for it: the response is the first attempt's, given again.
REPLAYED_HEADER = "Idempotent-Replayed"
LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def _json_response(reply: Reply) -> dict[str, Any]:
    headers = dict(reply.headers)
    if reply.body is None:
        return {"statusCode": reply.status, "headers": headers, "body": ""}
    headers.setdefault("Content-Type", "application/json")
    # Sorted keys: a replay (read back from the request marker, whose maps DynamoDB returns in any order) is
    # byte for byte the first response.
    body = json.dumps(reply.body, ensure_ascii=False, sort_keys=True)
    return {"statusCode": reply.status, "headers": headers, "body": body}


def _as_response(result: dict[str, Any]) -> Response:
    return Response(
        status_code=result["statusCode"], body=result.get("body") or None, headers=result.get("headers") or {}
    )


class Endpoint:
    """Build with the route-table entry, register the operation, export `lambda_handler()`."""

    def __init__(self, route: RouteSpec, *, body: type[BaseModel] | None = None, query: type[BaseModel] | None = None):
        self.route = route
        self.body_model = body
        self.query_model = query
        self._operation: Operation | None = None
        self.app = APIGatewayRestResolver(cors=cors_config())  # None unless CORS_ALLOWED_ORIGINS lists origins
        resolver_path = re.sub(r"\{(\w+)\}", r"<\1>", self.route.path)
        self._path_pattern = re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.route.path)) + "/?")
        self.app.route(resolver_path, method=self.route.method)(self._resolve)
        self.idempotency = IdempotentExecution(route.operation, self._execute) if route.idempotency != "none" else None

    def operation(self, function: Operation) -> Operation:
        self._operation = function
        return function

    def _execute(self, request: Request[Any]) -> dict[str, Any]:
        """Run the operation; domain refusals become problem responses, Busy propagates (the client
        retries). A response given again from an earlier attempt's record says so in a header."""
        assert self._operation is not None, f"{self.route.handler}: no operation registered"
        replays.begin_request()
        try:
            response = _json_response(self._operation(request))
        except DomainError as error:
            return error_responses.refusal(error, self.route.key)
        if replays.was_replayed():
            response["headers"][REPLAYED_HEADER] = "true"
        return response

    def _own_path(self, event: dict[str, Any]) -> dict[str, str] | None:
        """The path parameters of `event` if it is a request for this endpoint's route, else None."""
        if str(event.get("httpMethod", "")).upper() != self.route.method:
            return None
        match = self._path_pattern.fullmatch(str(event.get("path") or ""))
        return match.groupdict() if match else None

    def _resolve(self, **_matched: str) -> Response:
        # The event and its path come from this invocation, not from the resolver: Powertools keeps the
        # current event on a class attribute, shared by every resolver of the process (harmless in Lambda,
        # one invocation per process; the local server runs invocations on threads).
        event = _current_event.get()
        path = self._own_path(event) or {}
        try:
            request = parse_request(self.route, event, path, body_model=self.body_model, query_model=self.query_model)
            if request.identity is not None and self.idempotency is not None:
                result = self.idempotency.run(request)
            else:
                result = self._execute(request)
        except error_responses.EXPECTED as error:
            result = error_responses.failure(error)
        return _as_response(result)

    def _unexpected(self, error: Exception) -> Response:
        if isinstance(error, NotFoundError):
            if self._own_path(_current_event.get()) is not None:
                return self._resolve()  # the resolver matched a concurrent invocation's event (see _resolve)
            return _as_response(error_responses.no_route())  # the path did not fit this function's route
        return _as_response(error_responses.unexpected())

    def lambda_handler(self) -> LambdaHandler:
        app, idempotency = self.app, self.idempotency
        app.exception_handler(Exception)(self._unexpected)

        @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
        # Responses and errors carry personal data (emails, usernames): the trace records neither.
        @tracer.capture_lambda_handler(capture_response=False, capture_error=False)
        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            if idempotency is not None:
                idempotency.register_lambda_context(context)
            token = _current_event.set(event)
            try:
                return app.resolve(event, context)
            finally:
                _current_event.reset(token)
                with metrics_lock:
                    if metrics.metric_set:
                        metrics.flush_metrics()

        return handler
