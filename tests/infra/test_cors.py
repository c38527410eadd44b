"""CORS from CDK context: off by default; with origins, API Gateway answers preflight and handlers add headers."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from infra import api as infra_api
from infra.stack import build_app
from routes import ROUTES

from .stack_templates import flat_template

if TYPE_CHECKING:
    from conftest import Synth

ORIGINS = ["https://app.example.com", "https://admin.example.com"]


@pytest.fixture(scope="module")
def cors_template() -> dict:
    app, stack = build_app(context={infra_api.CORS_CONTEXT_KEY: ",".join(ORIGINS)})
    return flat_template(app, stack)  # cdk-nag runs here: the preflight mocks are acknowledged


def _methods(resources: dict, http_method: str) -> list[dict]:
    return [
        r["Properties"]
        for r in resources.values()
        if r["Type"] == "AWS::ApiGateway::Method" and r["Properties"]["HttpMethod"] == http_method
    ]


def test_default_has_no_cors_at_all(synth: Synth) -> None:
    assert _methods(synth.resources, "OPTIONS") == []
    for _logical_id, props in synth.of_type("AWS::Lambda::Function").items():
        assert infra_api.CORS_ORIGINS_ENV not in props["Properties"]["Environment"]["Variables"]


def test_preflight_is_answered_by_api_gateway_on_every_path(cors_template: dict) -> None:
    preflights = _methods(cors_template["Resources"], "OPTIONS")
    assert len(preflights) == len({route.path for route in ROUTES})
    for method in preflights:
        assert method["AuthorizationType"] == "NONE"
        assert method["Integration"]["Type"] == "MOCK"
        (response,) = method["Integration"]["IntegrationResponses"]
        assert response["StatusCode"] == "204"
        headers = response["ResponseParameters"]
        assert headers["method.response.header.Access-Control-Allow-Headers"] == (
            "'" + ",".join(infra_api.CORS_ALLOWED_HEADERS) + "'"
        )
        assert "ETag" in headers["method.response.header.Access-Control-Expose-Headers"]
        assert "Location" in headers["method.response.header.Access-Control-Expose-Headers"]
        # Several origins: the first is the static answer, CDK's template echoes the others when they ask.
        assert headers["method.response.header.Access-Control-Allow-Origin"] == f"'{ORIGINS[0]}'"
        assert ORIGINS[1] in response["ResponseTemplates"]["application/json"]


def test_handlers_get_the_origins_and_gateway_errors_carry_cors(cors_template: dict) -> None:
    route_functions = [
        r["Properties"]
        for r in cors_template["Resources"].values()
        if r["Type"] == "AWS::Lambda::Function"
        and r["Properties"].get("Description", "").endswith(")")
        and r["Properties"]["Handler"] not in ("audit.audit_locks.handler", "streams.settle_entries.handler")
    ]
    assert len(route_functions) == len(ROUTES)
    for props in route_functions:
        assert props["Environment"]["Variables"][infra_api.CORS_ORIGINS_ENV] == ",".join(ORIGINS)
    for r in cors_template["Resources"].values():
        if r["Type"] == "AWS::ApiGateway::GatewayResponse":
            headers = r["Properties"]["ResponseParameters"]
            assert headers["gatewayresponse.header.Access-Control-Allow-Origin"] == f"'{ORIGINS[0]}'"


def test_wrong_method_allow_header_includes_options_when_cors_is_on(cors_template: dict) -> None:
    for method in _methods(cors_template["Resources"], "ANY"):
        (response,) = method["Integration"]["IntegrationResponses"]
        assert response["ResponseParameters"]["method.response.header.Allow"].endswith(", OPTIONS'")
        assert json.loads(response["ResponseTemplates"]["application/json"])["status"] == 405


def test_header_lists_equal_the_runtime_ones() -> None:
    import local  # noqa: F401 - the layer on sys.path
    from ddbguard_api.http import cors

    assert infra_api.CORS_ALLOWED_HEADERS == cors.ALLOWED_HEADERS
    assert infra_api.CORS_EXPOSED_HEADERS == cors.EXPOSED_HEADERS
    assert infra_api.CORS_MAX_AGE_S == cors.MAX_AGE_S
    assert infra_api.CORS_ORIGINS_ENV == cors.ORIGINS_ENV
