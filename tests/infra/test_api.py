"""The REST API is wired from the route table: paths, methods, authorizers, stage and gateway responses."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from aws_cdk.assertions import Match, Template

from ddbguard_api.http.problems import problem_document
from routes import ROUTES

if TYPE_CHECKING:
    from conftest import Synth


def test_exactly_the_routes_are_methods_plus_one_405_mock_per_path(synth: Synth) -> None:
    assert set(synth.methods()) == {(route.method, route.path) for route in ROUTES} | {
        ("ANY", route.path) for route in ROUTES
    }


@pytest.mark.parametrize("path", sorted({route.path for route in ROUTES}))
def test_wrong_method_on_a_known_path_is_405_with_allow(synth: Synth, path: str) -> None:
    """The ANY mock answers what the local server answers: 405 method_not_allowed, Allow = the path's methods."""
    method = synth.methods()[("ANY", path)]
    assert method["AuthorizationType"] == "NONE"
    integration = method["Integration"]
    assert integration["Type"] == "MOCK"
    (response,) = integration["IntegrationResponses"]
    assert response["StatusCode"] == "405"
    allowed = ", ".join(route.method for route in ROUTES if route.path == path)
    assert response["ResponseParameters"]["method.response.header.Allow"] == f"'{allowed}'"
    body = json.loads(response["ResponseTemplates"]["application/json"])
    assert (body["status"], body["code"]) == (405, "method_not_allowed")
    assert body == problem_document(405, "method_not_allowed", body["detail"])  # the handlers' `type` URIs too
    from local.server import allow_header, find_route

    assert allow_header(find_route("PUT", path.replace("{", "x").replace("}", ""))[2]) == allowed


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.key)
def test_route_method(synth: Synth, route: Any) -> None:
    method = synth.methods()[(route.method, route.path)]
    (authorizer_id,) = synth.of_type("AWS::ApiGateway::Authorizer")
    if route.auth:
        assert method["AuthorizationType"] == "COGNITO_USER_POOLS"
        assert method["AuthorizerId"] == {"Ref": authorizer_id}
    else:
        assert method["AuthorizationType"] == "NONE"
        assert "AuthorizerId" not in method
    integration = method["Integration"]
    assert integration["Type"] == "AWS_PROXY"
    assert integration["IntegrationHttpMethod"] == "POST"
    function_id, _props = synth.functions_by_handler()[f"{route.handler}.handler"]
    assert {"Fn::GetAtt": [function_id, "Arn"]} in integration["Uri"]["Fn::Join"][1]
    for name in route.path_parameters:
        assert method["RequestParameters"][f"method.request.path.{name}"] is True


def test_health_is_the_only_public_route(synth: Synth) -> None:
    public = [
        key
        for key, method in synth.methods().items()
        if method["AuthorizationType"] == "NONE" and method["Integration"]["Type"] != "MOCK"
    ]
    assert public == [("GET", "/health")]


def test_authorizer_is_the_user_pool(template: Template, synth: Synth) -> None:
    (pool_id,) = synth.of_type("AWS::Cognito::UserPool")
    template.has_resource_properties(
        "AWS::ApiGateway::Authorizer",
        {
            "Type": "COGNITO_USER_POOLS",
            "IdentitySource": "method.request.header.Authorization",
            "ProviderARNs": [{"Fn::GetAtt": [pool_id, "Arn"]}],
        },
    )


def test_user_pool_has_admin_group_and_public_client(template: Template) -> None:
    template.has_resource_properties("AWS::Cognito::UserPoolGroup", {"GroupName": "admin"})
    template.has_resource_properties("AWS::Cognito::UserPoolClient", {"GenerateSecret": False})
    template.has_resource_properties(
        "AWS::Cognito::UserPool",
        {
            "AdminCreateUserConfig": {"AllowAdminCreateUserOnly": True},
            "Policies": {"PasswordPolicy": Match.any_value()},
        },
    )


def test_path_parameters_are_validated(synth: Synth) -> None:
    (validator_id, validator) = next(iter(synth.of_type("AWS::ApiGateway::RequestValidator").items()))
    assert validator["Properties"]["ValidateRequestParameters"] is True
    for (verb, path), method in synth.methods().items():
        if "{" in path and verb != "ANY":  # the 405 mock reads no parameter
            assert method["RequestValidatorId"] == {"Ref": validator_id}


def test_stage_v1_logs_traces_and_throttles(template: Template, synth: Synth) -> None:
    (access_logs_id,) = [
        logical_id for logical_id in synth.of_type("AWS::Logs::LogGroup") if logical_id.startswith("ApiAccessLogs")
    ]
    template.has_resource_properties(
        "AWS::ApiGateway::Stage",
        {
            "StageName": "v1",
            "TracingEnabled": True,
            "AccessLogSetting": {
                "DestinationArn": Match.object_like({"Fn::Join": ["", Match.array_with([{"Ref": access_logs_id}])]}),
                "Format": Match.string_like_regexp(r"\$context\.requestId"),
            },
            "MethodSettings": Match.array_with(
                [
                    Match.object_like(
                        {
                            "HttpMethod": "*",
                            "ResourcePath": "/*",
                            "LoggingLevel": "ERROR",
                            "DataTraceEnabled": False,
                            "MetricsEnabled": True,
                            "ThrottlingRateLimit": Match.any_value(),
                            "ThrottlingBurstLimit": Match.any_value(),
                        }
                    )
                ]
            ),
        },
    )


def test_access_log_format_is_json(synth: Synth) -> None:
    (stage,) = synth.of_type("AWS::ApiGateway::Stage").values()
    fields = json.loads(stage["Properties"]["AccessLogSetting"]["Format"])
    assert {"requestId", "status", "resourcePath", "sub"} <= set(fields)


REQUIRED_RESPONSES = {
    "UNAUTHORIZED": (401, "unauthorized", "Unauthorized"),
    "ACCESS_DENIED": (403, "forbidden", "Forbidden"),
    "DEFAULT_4XX": (400, "bad_request", "Bad Request"),
    "DEFAULT_5XX": (500, "internal_error", "Internal Server Error"),
}


def _gateway_responses(synth: Synth) -> dict[str, dict[str, Any]]:
    return {
        props["Properties"]["ResponseType"]: props["Properties"]
        for props in synth.of_type("AWS::ApiGateway::GatewayResponse").values()
    }


@pytest.mark.parametrize("response_type", sorted(REQUIRED_RESPONSES))
def test_required_gateway_responses_are_problem_json(synth: Synth, response_type: str) -> None:
    status, code, title = REQUIRED_RESPONSES[response_type]
    response = _gateway_responses(synth)[response_type]
    assert response["StatusCode"] == str(status)
    assert response["ResponseParameters"] == {"gatewayresponse.header.Content-Type": "'application/problem+json'"}
    body = json.loads(response["ResponseTemplates"]["application/json"])
    # Same renderer, same `type` URIs as the handlers' own problems.
    assert body == problem_document(status, code, body["detail"])
    assert body["title"] == title
    assert body["detail"]


def test_every_gateway_response_body_agrees_with_its_status(synth: Synth) -> None:
    responses = _gateway_responses(synth)
    assert set(REQUIRED_RESPONSES) <= set(responses)
    for response in responses.values():
        body = json.loads(response["ResponseTemplates"]["application/json"])
        assert set(body) == {"type", "title", "status", "detail", "code"}
        assert str(body["status"]) == response["StatusCode"]
        assert response["ResponseParameters"]["gatewayresponse.header.Content-Type"] == "'application/problem+json'"


def test_unknown_routes_answer_404_not_403(synth: Synth) -> None:
    response = _gateway_responses(synth)["MISSING_AUTHENTICATION_TOKEN"]
    assert response["StatusCode"] == "404"
    assert json.loads(response["ResponseTemplates"]["application/json"])["code"] == "not_found"


def test_each_route_function_may_be_invoked_by_its_method_only(synth: Synth) -> None:
    permissions = [
        props["Properties"]
        for props in synth.of_type("AWS::Lambda::Permission").values()
        if props["Properties"]["Principal"] == "apigateway.amazonaws.com"
    ]
    assert len(permissions) == len(ROUTES)
    for permission in permissions:
        source = json.dumps(permission["SourceArn"])
        assert "/*/*" not in source
