"""The edge's own steps, route by route: the event must be for the route, a reply becomes one proxy response whose
ETag and Location are the ones the OpenAPI document promises, a warm retry is the first response given again, and
CORS headers are the ones Powertools' CORSConfig writes.

The operation here is a plain function returning a reply: what the edge does around the domain call is the subject
(the domain calls themselves run against DynamoDB Local in tests/integration and tests/http).
"""

from __future__ import annotations

import json
import uuid
from typing import Any, cast

import pytest
from aws_lambda_powertools.event_handler import CORSConfig

import routes
from ddbguard_api.http import cors
from ddbguard_api.http.endpoint import Endpoint
from ddbguard_api.http.proxy_events import ProxyEvent
from ddbguard_api.http.replies import Reply
from local.apigw_events import build_event
from local.lambda_context import LambdaContext
from local.paths import ROOT
from local.route_stories import sample_body

OPENAPI = json.loads((ROOT / "docs" / "openapi.json").read_text())
IDS = {"accountId": "acct-1", "orderId": "ord-1", "holdId": "hold-1"} | {e.id_field: "id-1" for e in routes.ENTITIES}
EDGE_HEADERS = ("ETag", "Location")


def _event(route: routes.Route, *, key: str | None = None, origin: str | None = None, **changes: Any) -> dict:
    path = route.path
    for name in route.path_parameters:
        path = path.replace("{" + name + "}", IDS[name])
    headers = [("Content-Type", "application/json")]
    if route.idempotency != "none":
        headers.append(("Idempotency-Key", key or str(uuid.uuid4())))
    if route.if_match:
        headers.append(("If-Match", '"4"'))
    if origin:
        headers.append(("Origin", origin))
    sample = sample_body(route)
    body = json.dumps(sample).encode() if sample is not None else None
    event = build_event(
        method=route.method,
        resource=route.path,
        raw_path=path,
        headers=headers,
        body=body,
        path_parameters={name: IDS[name] for name in route.path_parameters},
        claims={"sub": "alice"},
    )
    return {**event, **changes}


def _endpoint(route: routes.Route, calls: list[Any]) -> Endpoint:
    endpoint = Endpoint(route)

    @endpoint.operation
    def answer(request: Any) -> Reply:
        calls.append(request)
        body = None if route.status == 204 else {"version": 4, **IDS, "z": {"b": 1, "a": 2}}
        return Reply(route.status, body)

    return endpoint


def _call(endpoint: Endpoint, event: dict) -> dict:
    # Hand-made events: what a test sends need not be what API Gateway would (the edge must answer it anyway).
    response = endpoint.lambda_handler()(cast("ProxyEvent", event), LambdaContext(function_name="ddbguard-edge-test"))
    return dict(response)


def _documented_success_headers(route: routes.Route) -> set[str]:
    operation = OPENAPI["paths"][route.path][route.method.lower()]
    headers = operation["responses"][str(route.status)].get("headers", {})
    return {name for name, spec in headers.items() if spec.get("required")}


@pytest.mark.parametrize("route", routes.ROUTES, ids=lambda r: r.operation)
def test_a_success_carries_the_etag_and_location_the_document_promises(route: routes.Route) -> None:
    calls: list[Any] = []
    response = _call(_endpoint(route, calls), _event(route))

    assert response["statusCode"] == route.status and len(calls) == 1
    headers = response["multiValueHeaders"]
    assert {name for name in EDGE_HEADERS if name in headers} == _documented_success_headers(route)
    if route.returns_etag:
        assert headers["ETag"] == ['"4"']
    if route.location is not None:
        (location,) = headers["Location"]
        assert "{" not in location and location.startswith(route.path.split("{")[0].rstrip("/"))
    if route.status == 204:
        assert response["body"] is None and "Content-Type" not in headers
    else:
        assert headers["Content-Type"] == ["application/json"]
        assert response["body"] == json.dumps(json.loads(response["body"]), sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize(
    "changes",
    [{"httpMethod": "PUT"}, {"resource": "/elsewhere"}, {"pathParameters": None}],
    ids=["other-method", "other-resource", "no-path-parameters"],
)
def test_an_event_for_another_route_is_not_found_and_runs_nothing(changes: dict) -> None:
    route = routes.by_operation("withdraw")
    calls: list[Any] = []
    response = _call(_endpoint(route, calls), _event(route, **changes))

    assert response["statusCode"] == 404 and calls == []
    assert json.loads(response["body"])["code"] == "not_found"
    assert response["multiValueHeaders"]["Content-Type"] == ["application/problem+json"]


def test_a_warm_retry_is_the_first_response_given_again() -> None:
    route = routes.by_operation("deposit")
    calls: list[Any] = []
    endpoint = _endpoint(route, calls)
    key = str(uuid.uuid4())
    first = _call(endpoint, _event(route, key=key))
    again = _call(endpoint, _event(route, key=key))

    assert len(calls) == 1
    assert again["body"] == first["body"] and again["statusCode"] == first["statusCode"]
    assert again["multiValueHeaders"] == {**first["multiValueHeaders"], "Idempotent-Replayed": ["true"]}
    assert list(again) == list(first) == ["statusCode", "body", "isBase64Encoded", "multiValueHeaders"]

    other_body = _event(route, key=key, body=json.dumps({"amountCents": 1}))
    reused = _call(endpoint, other_body)
    assert reused["statusCode"] == 422 and json.loads(reused["body"])["code"] == "idempotency_key_reused"
    assert len(calls) == 1


ORIGINS = ["https://app.example.com", "https://admin.example.com"]


@pytest.mark.parametrize("allowed", [ORIGINS, ["*"], []], ids=["listed", "any", "none"])
@pytest.mark.parametrize("origin", [None, "", ORIGINS[0], ORIGINS[1], "https://evil.example.com"])
def test_cors_headers_are_the_ones_powertools_cors_config_writes(allowed: list[str], origin: str | None) -> None:
    event = _event(routes.by_operation("check_health"), origin=origin)
    if origin == "":
        event["multiValueHeaders"]["Origin"] = [""]
    expected: dict[str, str] = {}
    if allowed:
        config = CORSConfig(
            allow_origin=allowed[0],
            extra_origins=allowed[1:],
            allow_headers=list(cors.ALLOWED_HEADERS),
            expose_headers=list(cors.EXPOSED_HEADERS),
            max_age=cors.MAX_AGE_S,
        )
        granted = config.allowed_origin(origin) if origin is not None else None
        expected = config.to_dict(granted) if granted is not None else {}
    assert cors.cors_headers(event, allowed) == expected
    assert bool(expected) == (origin is not None and (origin in allowed or ("*" in allowed)))


def test_every_response_carries_the_cors_headers_when_an_origin_is_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cors.ORIGINS_ENV, ",".join(ORIGINS))
    route = routes.by_operation("withdraw")
    endpoint = _endpoint(route, [])
    for event in (_event(route, origin=ORIGINS[1]), _event(route, origin=ORIGINS[1], httpMethod="GET")):
        response = _call(endpoint, event)
        assert response["multiValueHeaders"]["Access-Control-Allow-Origin"] == [ORIGINS[1]]
    assert "Access-Control-Allow-Origin" not in _call(endpoint, _event(route))["multiValueHeaders"]
