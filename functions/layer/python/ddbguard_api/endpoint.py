"""The Lambda entry of one API operation: the same short stack for every route.

Powertools event handler (routing, Response), Logger / Tracer / Metrics, and Powertools
idempotency around every POST / PATCH / DELETE that carries an Idempotency-Key. The operation
itself is a plain function `Request -> Reply` that calls the domain once. Parsing lives in
`ddbguard_api.request`, idempotency in `ddbguard_api.idempotency`, error mapping in
`ddbguard_api.error_responses`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.logging import correlation_paths

from ddbguard.errors import DomainError
from ddbguard.guards import replays
from ddbguard.observability import logger, metrics, tracer
from ddbguard_api import error_responses
from ddbguard_api.cors import cors_config
from ddbguard_api.idempotency import REPLAYED_HEADER, IdempotentExecution
from ddbguard_api.lazy_models import lazy_model
from ddbguard_api.replies import Reply, json_body
from ddbguard_api.request import Request, RouteSpec, parse_request

if TYPE_CHECKING:  # pydantic is imported with the first model used (ddbguard_api.lazy_models)
    from pydantic import BaseModel

Operation = Callable[[Request[Any]], Reply]
LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def _json_response(reply: Reply) -> dict[str, Any]:
    headers = dict(reply.headers)
    if reply.body is None:
        return {"statusCode": reply.status, "headers": headers, "body": ""}
    headers.setdefault("Content-Type", "application/json")
    # Sorted keys: a replay (read back from the request marker, whose maps DynamoDB returns in any order) is
    # byte for byte the first response.
    body = json_body(reply.body, sort_keys=True)
    return {"statusCode": reply.status, "headers": headers, "body": body}


def _as_response(result: dict[str, Any]) -> Response:
    return Response(
        status_code=result["statusCode"], body=result.get("body") or None, headers=result.get("headers") or {}
    )


def _model(name: str | None) -> type[BaseModel] | None:
    """The route's model by name, imported (with pydantic) at the first request that uses it."""
    return None if name is None else lazy_model(name)


class Endpoint:
    """Build with the route-table entry, register the operation, export `lambda_handler()`."""

    def __init__(self, route: RouteSpec, *, body: type[BaseModel] | None = None, query: type[BaseModel] | None = None):
        self.route = route
        # The route table names the models; a handler may still pass them (tests, one-offs).
        self.body_model = body or _model(route.body)
        self.query_model = query or _model(route.query)
        self._operation: Operation | None = None
        self.app = APIGatewayRestResolver(cors=cors_config())  # None unless CORS_ALLOWED_ORIGINS lists origins
        self.app.route(re.sub(r"\{(\w+)\}", r"<\1>", self.route.path), method=self.route.method)(self._resolve)
        self.idempotency = IdempotentExecution(route.operation, self._execute) if route.idempotency != "none" else None

    def operation(self, function: Operation) -> Operation:
        self._operation = function
        return function

    def _execute(self, request: Request[Any]) -> dict[str, Any]:
        """Run the operation. Refusals (DomainError) and Busy propagate, so Powertools idempotency keeps
        nothing for them; a response given again from an earlier attempt's marker says so in a header."""
        assert self._operation is not None, f"{self.route.handler}: no operation registered"
        replays.begin_request()
        response = _json_response(self._operation(request))
        if replays.was_replayed():
            response["headers"][REPLAYED_HEADER] = "true"
        return response

    def _resolve(self, **path: str) -> Response:
        event = self.app.current_event.raw_event
        try:
            request = parse_request(self.route, event, path, body_model=self.body_model, query_model=self.query_model)
            if request.identity is not None and self.idempotency is not None:
                result = self.idempotency.run(request)
            else:
                result = self._execute(request)
        except DomainError as error:
            result = error_responses.refusal(error, self.route.key)
        except error_responses.EXPECTED as error:
            result = error_responses.failure(error)
        return _as_response(result)

    def _unexpected(self, error: Exception) -> Response:
        if isinstance(error, NotFoundError):
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
            try:
                return app.resolve(event, context)
            finally:
                if metrics.metric_set:
                    metrics.flush_metrics()

        return handler
