"""REST API (API Gateway v1) wired from the route table: one Lambda proxy method per route."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from aws_cdk import Acknowledgment, Duration, RemovalPolicy, Validations
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra import constants
from infra.functions import RouteFunction
from routes import gateway_problem_body

PROBLEM_JSON = "application/problem+json"

# CORS (off unless `cdk deploy -c corsAllowedOrigins=https://a.example,https://b.example`). The header lists repeat
# functions/layer/python/ddbguard_api/cors.py on purpose (infra imports no runtime code); a test keeps them equal.
CORS_CONTEXT_KEY = "corsAllowedOrigins"
CORS_ORIGINS_ENV = "CORS_ALLOWED_ORIGINS"
CORS_ALLOWED_HEADERS = ("Authorization", "Content-Type", "Idempotency-Key", "If-Match")
CORS_EXPOSED_HEADERS = ("ETag", "Location", "Retry-After", "Idempotent-Replayed")
CORS_MAX_AGE_S = 600


def cors_allowed_origins(scope: Construct) -> list[str]:
    """The origins from CDK context: a comma-separated string (`-c`) or a list (cdk.json)."""
    raw = scope.node.try_get_context(CORS_CONTEXT_KEY)
    items = raw if isinstance(raw, list) else str(raw or "").split(",")
    return [str(origin).strip() for origin in items if str(origin).strip()]


def method_not_allowed_body() -> str:
    """The 405 problem the ANY mock of each resource answers (velocity template: the request's method and path)."""
    return gateway_problem_body(
        405, "method_not_allowed", "$context.httpMethod is not allowed on $context.resourcePath."
    )


# One JSON line per request. `sub` is the caller as the Cognito authorizer saw it; `errorType` names the gateway
# response (UNAUTHORIZED, THROTTLED, ...) when API Gateway answered without reaching a handler.
ACCESS_LOG_FORMAT = json.dumps(
    {
        "requestId": "$context.requestId",
        "requestTime": "$context.requestTime",
        "ip": "$context.identity.sourceIp",
        "httpMethod": "$context.httpMethod",
        "resourcePath": "$context.resourcePath",
        "path": "$context.path",
        "status": "$context.status",
        "protocol": "$context.protocol",
        "responseLength": "$context.responseLength",
        "responseLatency": "$context.responseLatency",
        "integrationLatency": "$context.integrationLatency",
        "sub": "$context.authorizer.claims.sub",
        "errorType": "$context.error.responseType",
        "xrayTraceId": "$context.xrayTraceId",
    }
)


@dataclass(frozen=True)
class Problem:
    """An API Gateway-generated error, answered as RFC 9457 problem details like the handlers' own errors."""

    response_type: apigw.ResponseType
    construct_id: str
    status: int
    title: str
    code: str
    detail: str

    def body(self) -> str:
        return gateway_problem_body(self.status, self.code, self.detail)


# Errors API Gateway answers before a handler runs. Each one that has its own status gets its own entry, because a
# status set on DEFAULT_4XX/DEFAULT_5XX applies to every response type that is not customised: the body's `status`
# must never disagree with the HTTP status.
GATEWAY_PROBLEMS: tuple[Problem, ...] = (
    Problem(
        apigw.ResponseType.UNAUTHORIZED,
        "Unauthorized",
        401,
        "Unauthorized",
        "unauthorized",
        "A valid Cognito token is required in the Authorization header.",
    ),
    Problem(
        apigw.ResponseType.ACCESS_DENIED,
        "AccessDenied",
        403,
        "Forbidden",
        "forbidden",
        "The token does not grant access to this resource.",
    ),
    # Unknown paths and methods: API Gateway calls them MISSING_AUTHENTICATION_TOKEN (403); answer 404 as the
    # local server does, so clients see the same thing in both places.
    Problem(
        apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN,
        "NoSuchRoute",
        404,
        "Not Found",
        "not_found",
        "No route matches this method and path.",
    ),
    Problem(
        apigw.ResponseType.RESOURCE_NOT_FOUND,
        "ResourceNotFound",
        404,
        "Not Found",
        "not_found",
        "No route matches this method and path.",
    ),
    Problem(
        apigw.ResponseType.REQUEST_TOO_LARGE,
        "RequestTooLarge",
        413,
        "Content Too Large",
        "payload_too_large",
        "The request body is too large.",
    ),
    Problem(
        apigw.ResponseType.UNSUPPORTED_MEDIA_TYPE,
        "UnsupportedMediaType",
        415,
        "Unsupported Media Type",
        "unsupported_media_type",
        "Bodies must be application/json.",
    ),
    Problem(
        apigw.ResponseType.THROTTLED,
        "Throttled",
        429,
        "Too Many Requests",
        "throttled",
        "Too many requests; retry later.",
    ),
    Problem(
        apigw.ResponseType.QUOTA_EXCEEDED,
        "QuotaExceeded",
        429,
        "Too Many Requests",
        "throttled",
        "Request quota exceeded; retry later.",
    ),
    Problem(
        apigw.ResponseType.INTEGRATION_TIMEOUT,
        "IntegrationTimeout",
        504,
        "Gateway Timeout",
        "gateway_timeout",
        "The request took too long to process.",
    ),
    Problem(
        apigw.ResponseType.DEFAULT_4_XX,
        "Default4xx",
        400,
        "Bad Request",
        "bad_request",
        "The request could not be accepted.",
    ),
    Problem(
        apigw.ResponseType.DEFAULT_5_XX,
        "Default5xx",
        500,
        "Internal Server Error",
        "internal_error",
        "The service could not process the request.",
    ),
)


class Api(Construct):
    """The `ddbguard` REST API, stage `v1`."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        routes: Sequence[RouteFunction],
        user_pool: cognito.IUserPool,
    ) -> None:
        super().__init__(scope, construct_id)
        self.access_logs = logs.LogGroup(
            self,
            "AccessLogs",
            retention=constants.LOG_RETENTION,
            removal_policy=RemovalPolicy.DESTROY,
        )
        self.rest_api = apigw.RestApi(
            self,
            "RestApi",
            rest_api_name=constants.API_NAME,
            description="ddbguard: data-integrity patterns on DynamoDB",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            # Execution logging (ERROR level) needs the account-level CloudWatch role API Gateway writes with.
            cloud_watch_role=True,
            deploy_options=apigw.StageOptions(
                stage_name=constants.API_STAGE,
                access_log_destination=apigw.LogGroupLogDestination(self.access_logs),
                access_log_format=apigw.AccessLogFormat.custom(ACCESS_LOG_FORMAT),
                logging_level=apigw.MethodLoggingLevel.ERROR,
                # Request/response bodies carry personal data (emails); keep them out of execution logs.
                data_trace_enabled=False,
                metrics_enabled=True,
                tracing_enabled=True,
                throttling_rate_limit=constants.API_THROTTLE_RATE_LIMIT,
                throttling_burst_limit=constants.API_THROTTLE_BURST_LIMIT,
            ),
        )
        self.authorizer = apigw.CognitoUserPoolsAuthorizer(
            self,
            "Authorizer",
            cognito_user_pools=[user_pool],
            identity_source=apigw.IdentitySource.header("Authorization"),
        )
        # Path parameters are checked at the edge. Bodies and headers are not: the handlers validate them strictly
        # and answer with the API's documented statuses (422 with field errors, 428 for a missing If-Match, 400
        # idempotency_key_required, ...), which API Gateway's validator cannot reproduce.
        self.parameter_validator = self.rest_api.add_request_validator(
            "PathParameterValidator",
            request_validator_name="path-parameters",
            validate_request_parameters=True,
            validate_request_body=False,
        )
        self.cors_origins = cors_allowed_origins(self)
        self.methods: dict[str, apigw.Method] = {}
        for item in routes:
            self.methods[item.route.key] = self._add_route(item)
            if self.cors_origins:  # the handlers add Access-Control-* headers to their own responses
                item.function.add_environment(CORS_ORIGINS_ENV, ",".join(self.cors_origins))
        methods_by_path: dict[str, list[str]] = {}
        for item in routes:
            methods_by_path.setdefault(item.route.path, []).append(item.route.method)
        for path, methods in methods_by_path.items():
            self._add_method_not_allowed(path, methods)
        gateway_headers = {"Content-Type": f"'{PROBLEM_JSON}'"}
        if self.cors_origins:
            # API Gateway's own errors (401 before any handler runs) must be readable by the browser app too.
            gateway_headers["Access-Control-Allow-Origin"] = f"'{self.cors_origins[0]}'"
            gateway_headers["Access-Control-Expose-Headers"] = f"'{','.join(CORS_EXPOSED_HEADERS)}'"
        for problem in GATEWAY_PROBLEMS:
            self.rest_api.add_gateway_response(
                problem.construct_id,
                type=problem.response_type,
                status_code=str(problem.status),
                response_headers=gateway_headers,
                templates={"application/json": problem.body()},
            )

        # Each acknowledgement sits on the one resource its finding is about, so the same finding anywhere else fails.
        Validations.of(cast(apigw.CfnRestApi, self.rest_api.node.default_child)).acknowledge(
            Acknowledgment(
                id="AwsSolutions-APIG2",
                reason="Request validation is partial by design: path parameters are validated by API Gateway, "
                "bodies and headers by the handlers, which must answer with the contract's problem details "
                "(422 field errors, 428, 413, idempotency codes) identically locally and deployed.",
            ),
        )
        Validations.of(self.rest_api.deployment_stage).acknowledge(
            Acknowledgment(
                id="AwsSolutions-APIG3",
                reason="No WAF web ACL: every route but /health needs a Cognito token and the stage is throttled; "
                "a web ACL's fixed monthly cost is out of proportion for this demo service.",
            ),
        )
        Validations.of(self.rest_api.node.find_child("CloudWatchRole")).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                "AmazonAPIGatewayPushToCloudWatchLogs]",
                reason="The account-level role API Gateway uses for execution logs; AWS's managed policy is the "
                "documented way to grant it, and only apigateway.amazonaws.com can assume the role.",
            ),
        )

    @property
    def url(self) -> str:
        return self.rest_api.url

    def _add_method_not_allowed(self, path: str, methods: list[str]) -> None:
        """A wrong method on a known path: 405 `method_not_allowed` with `Allow`, as the local server answers.

        Without this, API Gateway answers MISSING_AUTHENTICATION_TOKEN (mapped to 404 below), whose gateway
        response cannot know the path's methods. An ANY method catches every method the resource does not
        define (an explicit method, OPTIONS included, takes precedence); it is a mock: no Lambda, no token.
        """
        resource = self.rest_api.root.resource_for_path(path)
        allowed = [*methods, "OPTIONS"] if self.cors_origins else list(methods)
        headers = {"Allow": f"'{', '.join(allowed)}'", "Content-Type": f"'{PROBLEM_JSON}'"}
        if self.cors_origins:
            headers["Access-Control-Allow-Origin"] = f"'{self.cors_origins[0]}'"
        method = resource.add_method(
            "ANY",
            apigw.MockIntegration(
                request_templates={"application/json": '{"statusCode": 405}'},
                passthrough_behavior=apigw.PassthroughBehavior.WHEN_NO_TEMPLATES,
                integration_responses=[
                    apigw.IntegrationResponse(
                        status_code="405",
                        response_parameters={f"method.response.header.{k}": v for k, v in headers.items()},
                        response_templates={"application/json": method_not_allowed_body()},
                    )
                ],
            ),
            authorization_type=apigw.AuthorizationType.NONE,
            method_responses=[
                apigw.MethodResponse(
                    status_code="405", response_parameters={f"method.response.header.{k}": True for k in headers}
                )
            ],
        )
        if self.cors_origins:
            resource.add_cors_preflight(
                allow_origins=self.cors_origins,
                allow_methods=[*methods, "OPTIONS"],
                allow_headers=list(CORS_ALLOWED_HEADERS),
                expose_headers=list(CORS_EXPOSED_HEADERS),
                max_age=Duration.seconds(CORS_MAX_AGE_S),
                status_code=204,
            )
            preflight = resource.node.find_child("OPTIONS")
            Validations.of(preflight).acknowledge(*_public_mock_acknowledgments(f"OPTIONS {path} (CORS preflight)"))
        Validations.of(method).acknowledge(*_public_mock_acknowledgments(f"ANY {path} (405 for other methods)"))

    def _add_route(self, item: RouteFunction) -> apigw.Method:
        route = item.route
        resource = self.rest_api.root.resource_for_path(route.path)
        parameters = {f"method.request.path.{name}": True for name in route.path_parameters}
        method = resource.add_method(
            route.method,
            # Proxy integration: handlers receive the REST v1 proxy event the local server also builds.
            # No test-invoke permission: it would double the Lambda permissions for a console-only feature.
            apigw.LambdaIntegration(item.function, proxy=True, allow_test_invoke=False),
            operation_name=route.operation,
            authorization_type=apigw.AuthorizationType.COGNITO if route.auth else apigw.AuthorizationType.NONE,
            authorizer=self.authorizer if route.auth else None,
            request_parameters=parameters or None,
            request_validator=self.parameter_validator if parameters else None,
        )
        if not route.auth:
            Validations.of(method).acknowledge(
                Acknowledgment(
                    id="AwsSolutions-APIG4",
                    reason=f"{route.key} is the public liveness check (contract: no token needed); its function "
                    "returns a constant and has no table permission.",
                ),
                Acknowledgment(
                    id="AwsSolutions-COG4",
                    reason=f"{route.key} is deliberately unauthenticated (contract section 2); every other route "
                    "uses the Cognito user-pool authorizer.",
                ),
            )
        return method


def _public_mock_acknowledgments(what: str) -> tuple[Acknowledgment, Acknowledgment]:
    reason = (
        f"{what} is a mock integration answering a constant (no Lambda, no data): a browser's preflight and a wrong "
        "method carry no token, and the answer reveals only the path's methods, which the OpenAPI document lists."
    )
    return Acknowledgment(id="AwsSolutions-APIG4", reason=reason), Acknowledgment(id="AwsSolutions-COG4", reason=reason)
