"""One API operation as a Lambda handler: the same short stack for every route.

Powertools event handler (routing, Response), Logger / Tracer / Metrics, and Powertools
idempotency around every POST / PATCH / DELETE that carries an Idempotency-Key. The operation
itself is a plain function `Request -> Reply` that calls the domain once.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer, IdempotencyConfig, idempotent_function
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyPersistenceLayerError,
    IdempotencyValidationError,
)
from pydantic import BaseModel, ValidationError

from ddbguard import replays
from ddbguard.dynamodb import client, table_name
from ddbguard.errors import Busy, DomainError, NotFound
from ddbguard.observability import logger, metrics, metrics_lock, tracer
from ddbguard.request_identity import RequestIdentity
from ddbguard.schema import PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE
from ddbguard_api import problems
from ddbguard_api.bodies import field_errors, parse_body
from ddbguard_api.caller import Caller, caller_from_event
from ddbguard_api.edge_errors import EdgeError
from ddbguard_api.headers import parse_idempotency_key, parse_if_match, single_header
from ddbguard_api.replies import Reply

IDEMPOTENCY_TTL_S = 24 * 3600
REPLAYED_HEADER = "Idempotent-Replayed"  # Stripe's name for "this is the first attempt's answer"
_PATH_PARAMETER = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_FOUND_BY_PARAMETER = {"accountId": "account_not_found", "orderId": "order_not_found", "holdId": "hold_not_found"}


class RouteSpec(Protocol):
    """What the edge needs of a route-table entry (functions/routes.py's Route)."""

    method: str
    path: str
    handler: str
    if_match: bool
    auth: bool

    @property
    def operation(self) -> str: ...

    @property
    def key(self) -> str: ...

    @property
    def idempotency(self) -> str: ...


@dataclass(frozen=True)
class Request:
    route: RouteSpec
    caller: Caller
    path: dict[str, str]
    query: BaseModel | None
    body: BaseModel | None
    if_match: int | None
    identity: RequestIdentity | None  # present when the client sent an Idempotency-Key


Operation = Callable[[Request], Reply]


def _json_response(reply: Reply) -> dict[str, Any]:
    headers = dict(reply.headers)
    if reply.body is None:
        return {"statusCode": reply.status, "headers": headers, "body": ""}
    headers.setdefault("Content-Type", "application/json")
    return {"statusCode": reply.status, "headers": headers, "body": json.dumps(reply.body, ensure_ascii=False)}


def _with_replayed_header(response: dict[str, Any], *_: Any) -> dict[str, Any]:
    """Powertools' response hook (a cached response) and the edge's own (a replay the domain recognised)."""
    return {**response, "headers": {**(response.get("headers") or {}), REPLAYED_HEADER: "true"}}


class _UncachedRefusal(Exception):
    """A refusal that must not be stored under the Idempotency-Key (Powertools deletes the record)."""

    def __init__(self, response: dict[str, Any]):
        super().__init__("uncached refusal")
        self.response = response


def not_found_code(route: RouteSpec, parameter: str) -> str:
    """A malformed id names nothing: answer what the route answers for an absent one of that kind.

    The ledger routes address the account's ledger (`ledger_not_found`), except opening it,
    which needs the account itself (`account_not_found`).
    """
    if parameter == "accountId" and "/ledger" in route.path:
        opens_ledger = route.method == "POST" and route.path.endswith("/ledger")
        return "account_not_found" if opens_ledger else "ledger_not_found"
    return _NOT_FOUND_BY_PARAMETER.get(parameter, "not_found")


def _fingerprint(path: dict[str, str], query: dict[str, Any], document: Any) -> str:
    canonical = json.dumps({"path": path, "query": query, "body": document}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class Endpoint:
    """Build with the route-table entry, register the operation, export `lambda_handler()`."""

    def __init__(self, route: RouteSpec, *, body: type[BaseModel] | None = None, query: type[BaseModel] | None = None):
        self.route = route
        self.body_model = body
        self.query_model = query
        self._operation: Operation | None = None
        self.app = APIGatewayRestResolver()
        resolver_path = re.sub(r"\{(\w+)\}", r"<\1>", self.route.path)
        self.app.route(resolver_path, method=self.route.method)(self._resolve)
        self._idempotency_config: IdempotencyConfig | None = None
        self.persistence: DynamoDBPersistenceLayer | None = None
        self._idempotent: Callable[..., dict[str, Any]] | None = None
        if self.route.idempotency != "none":
            self._setup_idempotency()

    def _setup_idempotency(self) -> None:
        operation = self.route.operation
        # One persistence layer per function: a shared instance keeps the first function's config.
        self.persistence = persistence = DynamoDBPersistenceLayer(
            table_name=table_name(),
            key_attr=PARTITION_KEY,
            sort_key_attr=SORT_KEY,
            static_pk_value=f"IDEMPOTENCY#{operation}",
            expiry_attr=TTL_ATTRIBUTE,
            boto3_client=client(),
        )
        self._idempotency_config = IdempotencyConfig(
            # The key is built in code (caller + route + header, header read case-insensitively),
            # so JMESPath only picks it out of the data we hand over.
            event_key_jmespath="key",
            payload_validation_jmespath="fingerprint",
            raise_on_no_idempotency_key=True,
            expires_after_seconds=IDEMPOTENCY_TTL_S,
            response_hook=_with_replayed_header,
        )
        self._idempotent = idempotent_function(
            data_keyword_argument="data",
            persistence_store=persistence,
            config=self._idempotency_config,
            key_prefix=operation,
        )(self._execute_for_idempotency)

    def operation(self, function: Operation) -> Operation:
        self._operation = function
        return function

    # --- the request pipeline -------------------------------------------------------------

    def _request(self, event: dict[str, Any], path: dict[str, str]) -> tuple[Request, str | None]:
        route = self.route
        caller = caller_from_event(event) if route.auth else Caller(sub="anonymous", groups=frozenset())
        if caller is None:
            raise EdgeError(401, "unauthorized", "Send a valid bearer token.")
        for name, value in path.items():
            if not _PATH_PARAMETER.fullmatch(value):
                raise EdgeError(404, not_found_code(route, name), "No such resource.")
        key = parse_idempotency_key(single_header(event, "Idempotency-Key", "invalid_idempotency_key"))
        if key is None and route.idempotency == "required":
            raise EdgeError(400, "idempotency_key_required", "This route moves money: send an Idempotency-Key header.")
        raw_query = event.get("queryStringParameters") or {}
        if any(len(v) > 1 for v in (event.get("multiValueQueryStringParameters") or {}).values()):
            raise EdgeError(400, "invalid_query", "Send each query parameter once.")
        query = None
        if self.query_model is not None:
            try:
                query = self.query_model.model_validate(raw_query, strict=False)
            except ValidationError as error:
                raise EdgeError(422, "validation_failed", "The query is not valid.", field_errors(error)) from None
        elif raw_query:
            raise EdgeError(422, "validation_failed", "This route takes no query parameters.")
        body, document = parse_body(event, self.body_model)
        if_match = None
        if route.if_match:
            if_match = parse_if_match(single_header(event, "If-Match", "invalid_if_match"))
            if if_match is None:
                raise EdgeError(428, "precondition_required", 'Send If-Match: "<version>" from the ETag you read.')
        identity = None
        if key is not None:
            identity = RequestIdentity(caller.sub, route.key, key, _fingerprint(path, raw_query, document))
        return Request(route, caller, path, query, body, if_match, identity), key

    def _execute(self, request: Request, *, cached: bool = False) -> dict[str, Any]:
        """Run the operation; domain refusals become problem responses, Busy propagates.

        Under an Idempotency-Key (`cached`), a refusal is stored like a success, except a
        NotFound: a missing resource (the recipient's ledger, the order) may exist later, so
        the same key must be able to try again (docs/decisions.md, "Which refusals are cached").
        Busy is never stored either: the client should retry.
        """
        assert self._operation is not None, f"{self.route.handler}: no operation registered"
        try:
            return _json_response(self._operation(request))
        except DomainError as error:
            logger.info("refused", extra={"code": error.code, "route": self.route.key})
            if cached and isinstance(error, NotFound):
                raise _UncachedRefusal(problems.from_domain_error(error)) from None
            return problems.from_domain_error(error)

    def _execute_for_idempotency(self, data: dict[str, Any], request: Request) -> dict[str, Any]:
        return self._execute(request, cached=True)

    def _resolve(self, **path: str) -> Response:
        event = self.app.current_event.raw_event
        replays.reset()
        try:
            request, key = self._request(event, path)
            if request.identity is not None and self._idempotent is not None:
                identity = request.identity
                data = {"key": f"{identity.caller}\x1f{identity.route}\x1f{key}", "fingerprint": identity.fingerprint}
                result = self._idempotent(data=data, request=request)
            else:
                result = self._execute(request)
            if replays.was_replayed():
                result = _with_replayed_header(result)
        except _UncachedRefusal as refusal:
            result = refusal.response
        except EdgeError as error:
            result = problems.problem(error.status, error.code, error.detail, field_errors=error.errors)
        except IdempotencyValidationError:
            result = problems.problem(
                422, "idempotency_key_reused", "This Idempotency-Key was already used with a different request."
            )
        except IdempotencyAlreadyInProgressError:
            result = problems.problem(
                409,
                "request_in_progress",
                "A request with this Idempotency-Key is still running.",
                headers={"Retry-After": "1"},
            )
        except (Busy, IdempotencyPersistenceLayerError) as error:
            logger.warning("busy", extra={"reason": str(error)})
            detail = (
                "The store did not answer in time; retry with the same Idempotency-Key."
                if getattr(error, "outcome_unknown", False)
                else "The store is busy; nothing was written. Retry later."
            )
            retry_after = str(getattr(error, "retry_after_s", 1))
            result = problems.problem(503, "busy", detail, headers={"Retry-After": retry_after})
        return Response(
            status_code=result["statusCode"],
            body=result.get("body") or None,
            headers=result.get("headers") or {},
        )

    def _unexpected(self, error: Exception) -> Response:
        if isinstance(error, NotFoundError):  # the path did not fit this function's route
            result = problems.problem(404, "not_found", "No such resource.")
            return Response(status_code=404, body=result["body"], headers=result["headers"])
        logger.exception("unexpected error")
        result = problems.problem(500, "internal_error", "Something went wrong on our side.")
        return Response(status_code=500, body=result["body"], headers=result["headers"])

    # --- the Lambda entry point -----------------------------------------------------------

    def lambda_handler(self) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        app, config = self.app, self._idempotency_config
        app.exception_handler(Exception)(self._unexpected)

        @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True)
        @tracer.capture_lambda_handler
        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            if config is not None:
                # In-progress records expire with this invocation, not after the default hour.
                config.register_lambda_context(context)
            try:
                return app.resolve(event, context)
            finally:
                with metrics_lock:
                    if metrics.metric_set:
                        metrics.flush_metrics()

        return handler
