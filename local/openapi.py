"""docs/openapi.json: the API's OpenAPI 3.1 description, generated from the code.

`make openapi` rewrites it; tests/unit/test_openapi.py fails when the committed file differs.

Powertools' event handler writes the document. A documentation-only resolver (validation on, which
is what makes Powertools produce OpenAPI) gets every route of functions/routes/ with an
operation whose signature names the route's path parameters, its Idempotency-Key / If-Match
headers (from the route's flags), and the query and body models its handler module really
validates with (`endpoint.query_model`, `endpoint.body_model`: the pydantic models those body classes are generated
from, local/api_models.py); its summary is its handler's docstring; its responses are the route's own facts
(success status, response model of local/api_models.py, ETag, Location) and, per status, the problem
`code` values the route can answer (the edge's from its flags, the domain's from `Route.problems`).

Why a separate resolver: the handlers' own resolvers route every request to one generic
`_resolve(**path) -> Response` (the edge parses bodies itself, strictly), and Powertools cannot
build a schema from that signature (PydanticSchemaGenerationError on `Response`).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, cast

import local  # noqa: F401 - functions/ and the layer on sys.path
from ddbguard.release import VERSION
from local.openapi_links import add_links
from local.openapi_titles import make_titles_readable
from local.paths import ROOT

OPENAPI_PATH = ROOT / "docs" / "openapi.json"
TITLE = "ddbguard API"
PROBLEM_REF = "#/components/schemas/Problem"
PATH_PARAMETER_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
# 1-255 visible ASCII characters, without the comma and double quote a header list would split on.
IDEMPOTENCY_KEY_PATTERN = r"^[!#-+\--~]{1,255}$"
STRONG_ETAG_PATTERN = r'^"(0|[1-9][0-9]{0,15})"$'
HEADER_NAMES = {"idempotency-key": "Idempotency-Key", "if-match": "If-Match"}

DESCRIPTION = """\
Data integrity on DynamoDB: unique emails and usernames, money that never goes negative, updates that
are never lost. The human guide, with a curl walk-through and the error catalogue, is docs/api.md.

Every route but `GET /health` needs `Authorization: Bearer <token>`: a Cognito user-pool ID token when
deployed; locally (`make run`) a JWT signed RS256 with the local key, checked as Cognito's would be
(`make token SUB=alice`).
Errors are RFC 9457 problem details (`application/problem+json`) whose `code` is the machine-readable
reason; each response below lists the codes it can carry. A method a path does not have answers
405 `method_not_allowed` with `Allow`; an unknown path 404 `not_found`. Locally, `GET /openapi.json`
serves this document and `GET /docs` a Swagger UI, both without a token."""

STATUS_DESCRIPTIONS = {
    400: "Malformed request: a header, the JSON or the media type.",
    401: "No usable identity: send `Authorization: Bearer <token>`.",
    404: "Not found, or not yours (both answer alike).",
    409: "Conflict with the current state; nothing changed.",
    412: "Stale `If-Match`: `current` is the resource now, `ETag` its version.",
    413: "The body is over 64 KiB.",
    415: "Deployed only (API Gateway): a body that is not JSON.",
    422: "Well-formed but invalid: `errors` lists the fields.",
    428: "`If-Match` is required: send the ETag you read.",
    429: "Deployed only (API Gateway stage throttling): retry later.",
    503: "DynamoDB stayed busy after bounded retries, or the ledger's settlement is behind; nothing was written. "
    "Retry after `Retry-After`.",
    504: "Deployed only (API Gateway): the handler took too long; retry with the same Idempotency-Key.",
}

# Statuses API Gateway itself answers before any handler runs (infra/api.py GATEWAY_PROBLEMS).
GATEWAY_ONLY: dict[int, list[str]] = {
    415: ["unsupported_media_type"],
    429: ["throttled"],
    504: ["gateway_timeout"],
}


def _problem_codes(route: Any, body_model: Any) -> dict[int, list[str]]:
    """Every problem a route can answer: the edge's (from the route's flags) plus its domain's."""
    codes: dict[int, list[str]] = {
        400: [
            "invalid_query",
            "malformed_body",
            "malformed_json",
            "body_too_deep",
            "duplicate_key",
            "unsupported_media_type",
        ],
        404: ["not_found"],
        413: ["payload_too_large"],
        422: ["validation_failed"],
    }
    codes[400].append("invalid_content_type")
    if body_model is not None:
        codes[400].append("body_required")
    if route.auth:
        codes[401] = ["unauthorized"]
        codes[503] = ["busy", "settlement_behind"] if route.moves_money else ["busy"]
    if route.idempotency != "none":
        codes[400].append("invalid_idempotency_key")
        codes.setdefault(409, []).append("request_in_progress")
        codes[422].append("idempotency_key_reused")
    if route.idempotency == "required":
        codes[400].append("idempotency_key_required")
    if route.if_match:
        codes[400].append("invalid_if_match")
        codes[412] = ["version_conflict"]
        codes[428] = ["precondition_required"]
    for status, more in route.problems.items():
        codes.setdefault(status, [])
        codes[status] += [code for code in more if code not in codes[status]]
    if route.auth:
        for status, more in GATEWAY_ONLY.items():
            codes[status] = list(more)
    return dict(sorted(codes.items()))


def _problem_response(status: int, codes: list[str], route: Any) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": f"{STATUS_DESCRIPTIONS[status]} Codes: {', '.join(f'`{c}`' for c in codes)}.",
        "content": {
            "application/problem+json": {"schema": {"$ref": PROBLEM_REF, "properties": {"code": {"enum": codes}}}}
        },
    }
    headers: dict[str, Any] = {}
    if status == 412:
        headers["ETag"] = {"description": "The current version, quoted.", "schema": {"type": "string"}}
    if status == 503 or (status == 409 and route.idempotency != "none"):
        headers["Retry-After"] = {
            "description": "Seconds to wait (503 busy; 409 request_in_progress).",
            "schema": {"type": "string", "pattern": "^[0-9]+$"},
        }
    if headers:
        response["headers"] = headers
    return response


def _success_response(route: Any) -> tuple[int, dict[str, Any]]:
    from local.api_models import response_model
    from local.route_stories import story_of

    response: dict[str, Any] = {"description": story_of(route).reply}
    if route.response is not None:
        response["content"] = {"application/json": {"model": response_model(route.response)}}
    headers: dict[str, Any] = {}
    if route.returns_etag:
        headers["ETag"] = {
            "description": 'The version, as a strong entity-tag (`"3"`): send it back as `If-Match`.',
            "required": True,
            "schema": {"type": "string", "pattern": STRONG_ETAG_PATTERN},
        }
    if route.location is not None:
        headers["Location"] = {
            "description": "Where the new resource is.",
            "required": True,
            "schema": {"type": "string"},
        }
    if route.idempotency != "none":
        headers["Idempotent-Replayed"] = {
            "description": "`true` when this is the first response to this Idempotency-Key, given again.",
            "required": False,
            "schema": {"type": "string", "enum": ["true"]},
        }
    if headers:
        response["headers"] = headers
    return route.status, response


def _signature(route: Any, body_model: Any, query_model: Any) -> inspect.Signature:
    """The documented inputs, in Powertools' terms (Path / Header / Query / Body annotations)."""
    from aws_lambda_powertools.event_handler.openapi.params import Body, Header, Path, Query

    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        inspect.Parameter(
            name,
            keyword,
            annotation=Annotated[str, Path(pattern=PATH_PARAMETER_PATTERN, description=f"The {name[:-2]}'s id.")],
        )
        for name in route.path_parameters
    ]
    if route.idempotency != "none":
        required = route.idempotency == "required"
        header = Header(
            alias="Idempotency-Key",
            pattern=IDEMPOTENCY_KEY_PATTERN,
            description=("Required: this route moves money. " if required else "Optional. ")
            + "A repeat with the same key and body answers the first response and changes nothing; "
            "scoped to the caller and the route.",
        )
        parameters.append(
            inspect.Parameter(
                "idempotency_key",
                keyword,
                annotation=Annotated[str, header] if required else Annotated[str | None, header],
                **({} if required else {"default": None}),
            )
        )
    if route.if_match:
        parameters.append(
            inspect.Parameter(
                "if_match",
                keyword,
                annotation=Annotated[
                    str,
                    Header(
                        alias="If-Match",
                        pattern=STRONG_ETAG_PATTERN,
                        description='The ETag you read (`"3"`); missing -> 428, stale -> 412.',
                    ),
                ],
            )
        )
    if query_model is not None:
        for name, field in query_model.model_fields.items():
            parameters.append(
                inspect.Parameter(
                    name,
                    keyword,
                    annotation=Annotated[field.rebuild_annotation(), Query(description=field.description)],
                    default=field.default,
                )
            )
    if body_model is not None:
        parameters.append(inspect.Parameter("body", keyword, annotation=Annotated[body_model, Body()]))
    return inspect.Signature(parameters)


def _summary(module: Any) -> tuple[str, str]:
    """(summary, description): from the handler module's docstring (`METHOD /path: what it does`, then the
    description)."""
    doc = inspect.getdoc(module) or ""
    first, _, rest = doc.partition("\n")
    summary = first.split(": ", 1)[-1].rstrip(".")
    return summary[:1].upper() + summary[1:], rest.strip()


def _handler_modules() -> None:
    # Importing a handler builds its Endpoint (a boto3 client, no call): give it a harmless environment.
    for name, value in {
        "TABLE_NAME": "ddbguard",
        "AWS_DEFAULT_REGION": "us-east-1",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_SERVICE_NAME": "ddbguard",
        "POWERTOOLS_METRICS_NAMESPACE": "ddbguard",
    }.items():
        os.environ.setdefault(name, value)


def build_document() -> dict[str, Any]:
    from aws_lambda_powertools.event_handler import APIGatewayRestResolver
    from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer, License, Server, ServerVariable

    import routes
    from ddbguard_api.models import response_models as schemas
    from local.api_models import request_model

    _handler_modules()
    docs = APIGatewayRestResolver(enable_validation=True)
    public_operations: set[str] = set()
    for route in routes.ROUTES:
        module = importlib.import_module(route.handler)
        endpoint = module.endpoint
        body_model = None if endpoint.body_model is None else request_model(endpoint.body_model.__name__)
        query_model = None if endpoint.query_model is None else request_model(endpoint.query_model.__name__)

        def operation(**_: Any) -> None:
            return None

        operation.__signature__ = _signature(route, body_model, query_model)  # type: ignore[attr-defined]
        operation.__name__ = route.operation
        status, success = _success_response(route)
        responses = {status: success}
        for problem_status, codes in _problem_codes(route, body_model).items():
            responses[problem_status] = _problem_response(problem_status, codes, route)
        summary, description = _summary(module)
        docs.route(
            route.path.replace("{", "<").replace("}", ">"),
            method=route.method,
            summary=summary,
            description=description or None,
            responses=cast(Any, responses),  # plain dicts: Powertools accepts them as its TypedDicts
            tags=[route.tag],
            operation_id=route.operation,
        )(operation)
        if not route.auth:
            public_operations.add(route.operation)

    document = json.loads(
        docs.get_openapi_json_schema(
            title=TITLE,
            version=VERSION,
            openapi_version="3.1.0",
            license_info=License(name="MIT", identifier="MIT"),
            description=DESCRIPTION,
            servers=[
                # Relative: the server this document was fetched from (make run: http://127.0.0.1:$PORT).
                Server(url="/", description="The server that serves this document (make run)"),
                Server(
                    url="https://{apiId}.execute-api.{region}.amazonaws.com/v1",
                    description="cdk deploy",
                    variables={
                        "apiId": ServerVariable(default="abcdef1234"),
                        "region": ServerVariable(default="us-east-1"),
                    },
                ),
            ],
            security_schemes={
                "cognito": HTTPBearer(
                    bearerFormat="JWT",
                    description="Cognito user-pool ID token (deployed); locally RS256-signed, from `make token`.",
                )
            },
            security=[{"cognito": []}],
        )
    )
    return _finish(document, public_operations, schemas)


def _finish(document: dict[str, Any], public_operations: set[str], schemas: Any) -> dict[str, Any]:
    """What Powertools cannot say: public routes, bodiless 204s, the shared Problem schema, links between operations."""
    from pydantic.json_schema import models_json_schema

    import routes

    for item in document["paths"].values():
        for operation in item.values():
            if operation["operationId"] in public_operations:
                operation["security"] = []  # Powertools drops an empty list
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "header":  # Powertools lower-cases header names
                    parameter["name"] = HEADER_NAMES.get(parameter["name"], parameter["name"])
            responses = dict(sorted(operation["responses"].items()))
            responses.get("204", {}).pop("content", None)
            operation["responses"] = responses
    components = document.setdefault("components", {}).setdefault("schemas", {})
    for unused in (
        "HTTPValidationError",
        "ValidationError",
        "ResponseValidationError",
    ):  # Powertools' own 422 shape; ours is Problem
        components.pop(unused, None)
    _, problem_schemas = models_json_schema(
        [(schemas.Problem, "serialization")], ref_template="#/components/schemas/{model}"
    )
    components.update(problem_schemas["$defs"])
    document["components"]["schemas"] = dict(sorted(components.items()))
    add_links(document, routes.ROUTES)
    make_titles_readable(document)
    return document


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description="Write docs/openapi.json from the route table and the models.")
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/openapi.json is not up to date")
    parser.add_argument("--output", type=Path, default=OPENAPI_PATH)
    args = parser.parse_args()
    text = render(build_document())
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is stale: run `make openapi`", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
