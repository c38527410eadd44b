"""REST API (API Gateway v1) wired from the route table: one Lambda proxy method per route.

The API itself (its path resources, the 405 mocks, gateway responses, authorizer, stage) lives in the parent stack;
each route's method lives beside its function in the nested stack of its route group (infra/route_stacks.py),
attached to the imported API as CDK documents for splitting a REST API's methods over nested stacks. The stage's
deployment depends on every route group and hashes their methods, so a changed method is redeployed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from aws_cdk import Acknowledgment, Duration, NestedStack, RemovalPolicy, Validations
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra import constants, naming, retention, settings
from infra.functions import RouteFunction
from infra.gateway_problems import gateway_problem_body
from routes import Route

PROBLEM_JSON = "application/problem+json"

# CORS (off unless `corsAllowedOrigins` is set, in config/<env>.json or with -c). The header lists repeat
# functions/layer/python/ddbguard_api/http/cors.py on purpose (infra imports no runtime code); a test keeps them equal.
CORS_CONTEXT_KEY = settings.CORS_ALLOWED_ORIGINS.name
CORS_ORIGINS_ENV = "CORS_ALLOWED_ORIGINS"
CORS_ALLOWED_HEADERS = ("Authorization", "Content-Type", "Idempotency-Key", "If-Match")
CORS_EXPOSED_HEADERS = ("ETag", "Location", "Retry-After", "Idempotent-Replayed")
CORS_MAX_AGE_S = 600


def cors_allowed_origins(scope: Construct) -> list[str]:
    """The origins from CDK context: a comma-separated string (`-c`) or a list (config file)."""
    return settings.text_list(scope, settings.CORS_ALLOWED_ORIGINS)


# Each 405 (and preflight) mock gets this fixed share of the stage budget; the routes split the rest.
MOCK_RATE_LIMIT = 1.0
MOCK_BURST_LIMIT = 2


@dataclass(frozen=True)
class Throttle:
    """Per-method limits whose sum over every method of the stage is the stated stage budget.

    API Gateway applies a stage's method setting to each method separately, so a stage-wide number set on `*/*`
    multiplies by the number of methods; here the budget is divided instead.
    """

    route_rate: float
    route_burst: int
    mock_rate: float
    mock_burst: int

    @classmethod
    def split(cls, rate: float, burst: int, *, routes: int, mocks: int) -> Throttle:
        route_rate = math.floor((rate - mocks * MOCK_RATE_LIMIT) / routes * 100) / 100
        route_burst = (burst - mocks * MOCK_BURST_LIMIT) // routes
        if route_rate <= 0 or route_burst < 1:
            raise ValueError(
                f"context {settings.API_STAGE_RATE_LIMIT.name}/{settings.API_STAGE_BURST_LIMIT.name}: {rate}/{burst} "
                f"leaves nothing for {routes} routes after {mocks} mock methods"
            )
        return cls(route_rate, route_burst, MOCK_RATE_LIMIT, MOCK_BURST_LIMIT)

    def total(self, *, routes: int, mocks: int) -> tuple[float, int]:
        """(rate, burst) of the whole stage: what every method's own limit adds up to."""
        return routes * self.route_rate + mocks * self.mock_rate, routes * self.route_burst + mocks * self.mock_burst

    def route_concurrency_ceiling(self, timeout_seconds: float) -> float:
        """The most concurrent executions one route's function can reach: a burst, then the rate for a timeout."""
        return self.route_burst + self.route_rate * timeout_seconds


def method_not_allowed_body() -> str:
    """The 405 problem the ANY mock of each resource answers (velocity template: the request's method and path)."""
    return gateway_problem_body(
        405, "method_not_allowed", "$context.httpMethod is not allowed on $context.resourcePath."
    )


# One JSON line per request. `sub` is the caller as the Cognito authorizer saw it (a pseudonymous id); `errorType`
# names the gateway response (UNAUTHORIZED, THROTTLED, ...) when API Gateway answered without reaching a handler,
# `integrationError` why the Lambda integration failed. No source IP and no raw path (it
# carries account and order ids): the resource template says which route was hit. infra/monitoring.py counts
# statuses from these lines with metric filters.
ACCESS_LOG_FORMAT = json.dumps(
    {
        "requestId": "$context.requestId",
        "requestTime": "$context.requestTime",
        "httpMethod": "$context.httpMethod",
        "resourcePath": "$context.resourcePath",
        "status": "$context.status",
        "protocol": "$context.protocol",
        "responseLength": "$context.responseLength",
        "responseLatency": "$context.responseLatency",
        "integrationLatency": "$context.integrationLatency",
        "sub": "$context.authorizer.claims.sub",
        "errorType": "$context.error.responseType",
        "integrationError": "$context.integrationErrorMessage",
        "integrationStatus": "$context.integration.status",
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
    # A request the stage's WAF web ACL blocked (a managed rule matched; infra/edge.py): it reached no handler.
    Problem(
        apigw.ResponseType.WAF_FILTERED,
        "WafFiltered",
        403,
        "Forbidden",
        "forbidden",
        "The request was refused by the API's web application firewall.",
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
        routes: Sequence[Route],
        user_pool: cognito.IUserPool,
    ) -> None:
        super().__init__(scope, construct_id)
        # Who called what, when and with which answer: kept as configured (a year in prod) and kept when the stack
        # goes, as the payments' own records are.
        self.access_logs = logs.LogGroup(
            self,
            "AccessLogs",
            retention=retention.access_logs(self),
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self.cors_origins = cors_allowed_origins(self)
        paths = {route.path for route in routes}
        mocks = len(paths) * (2 if self.cors_origins else 1)  # the 405 ANY mock, and the CORS preflight
        self.stage_rate = settings.number(self, settings.API_STAGE_RATE_LIMIT)
        self.stage_burst = settings.whole_number(self, settings.API_STAGE_BURST_LIMIT)
        self.throttle = Throttle.split(self.stage_rate, self.stage_burst, routes=len(routes), mocks=mocks)
        self.domain_name = settings.text(self, settings.API_DOMAIN_NAME)
        certificate_arn = settings.text(self, settings.API_CERTIFICATE_ARN)
        if self.domain_name and not certificate_arn:
            names = (settings.API_CERTIFICATE_ARN.name, settings.API_DOMAIN_NAME.name)
            raise ValueError("context {} is required with {}".format(*names))
        self.rest_api = apigw.RestApi(
            self,
            "RestApi",
            rest_api_name=naming.api_name(self),
            description="ddbguard: data-integrity patterns on DynamoDB",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            # With a custom domain (TLS 1.2) the execute-api endpoint is switched off; without one, it is held to
            # TLS 1.2 by the API's own security policy (below).
            disable_execute_api_endpoint=bool(self.domain_name),
            # Execution logging (ERROR level) needs the account-level CloudWatch role API Gateway writes with.
            cloud_watch_role=True,
            # A rolled-back first deploy deletes it; once created, it stays (see docs/infra.md, "Destroy").
            cloud_watch_role_removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
            deploy_options=apigw.StageOptions(
                stage_name=constants.API_STAGE,
                access_log_destination=apigw.LogGroupLogDestination(self.access_logs),
                access_log_format=apigw.AccessLogFormat.custom(ACCESS_LOG_FORMAT),
                logging_level=apigw.MethodLoggingLevel.ERROR,
                # Request/response bodies carry personal data (emails); keep them out of execution logs.
                data_trace_enabled=False,
                metrics_enabled=True,
                tracing_enabled=True,
                # `*/*` is a per-method setting: it gives each mock its share; each route gets its own below.
                throttling_rate_limit=self.throttle.mock_rate,
                throttling_burst_limit=self.throttle.mock_burst,
                method_options={
                    # An override replaces the whole `*/*` entry for its method, so it repeats the other settings.
                    f"{route.path}/{route.method}": apigw.MethodDeploymentOptions(
                        logging_level=apigw.MethodLoggingLevel.ERROR,
                        data_trace_enabled=False,
                        metrics_enabled=True,
                        throttling_rate_limit=self.throttle.route_rate,
                        throttling_burst_limit=self.throttle.route_burst,
                    )
                    for route in routes
                },
            ),
        )
        # REST APIs take a security policy of their own (the L2 does not expose it yet): the legacy TLS_1_2 policy
        # turns TLS 1.0 and 1.1 off on the default endpoint; the enhanced `SecurityPolicy_*` ones would also need an
        # endpoint access mode.
        cfn_rest_api = self.rest_api.node.default_child
        assert isinstance(cfn_rest_api, apigw.CfnRestApi)
        cfn_rest_api.security_policy = apigw.SecurityPolicy.TLS_1_2.value
        # API Gateway would create the execution log group itself, on first use, kept forever; created here first
        # (the stage waits for it), it has a retention and goes with the stack.
        self.execution_logs = logs.LogGroup(
            self,
            "ExecutionLogs",
            log_group_name=f"API-Gateway-Execution-Logs_{self.rest_api.rest_api_id}/{constants.API_STAGE}",
            retention=retention.function_logs(self),
            removal_policy=RemovalPolicy.DESTROY,
        )
        self.rest_api.deployment_stage.node.add_dependency(self.execution_logs)
        self.custom_domain: apigw.DomainName | None = None
        if self.domain_name:
            self.custom_domain = apigw.DomainName(
                self,
                "Domain",
                domain_name=self.domain_name,
                certificate=acm.Certificate.from_certificate_arn(self, "Certificate", certificate_arn),
                endpoint_type=apigw.EndpointType.REGIONAL,
                security_policy=apigw.SecurityPolicy.TLS_1_2,
                mapping=self.rest_api,
            )
        identity_source = apigw.IdentitySource.header("Authorization")
        self.authorizer = apigw.CognitoUserPoolsAuthorizer(
            self, "Authorizer", cognito_user_pools=[user_pool], identity_source=identity_source
        )
        # The methods using it are on the route groups' imported API, so CDK never adds the authorizer to the stage
        # deployment's hash; added here, a change to it still deploys the stage.
        deployment = self.rest_api.latest_deployment
        assert deployment is not None
        deployment.add_to_logical_id(
            {"authorizer": {"identitySource": identity_source, "userPool": user_pool.user_pool_arn}}
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
        # Every path resource is the parent's (routes of several groups share `/accounts/{accountId}`); the route
        # groups attach their methods to them by id.
        methods_by_path: dict[str, list[str]] = {}
        for route in routes:
            methods_by_path.setdefault(route.path, []).append(route.method)
        self.resources: dict[str, apigw.IResource] = {}
        for path, methods in methods_by_path.items():
            self.resources[path] = self.rest_api.root.resource_for_path(path)
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
                "bodies and headers by the handlers, which answer with the API's problem details (docs/api.md) "
                "(422 field errors, 428, 413, idempotency codes) identically locally and deployed.",
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
        return f"https://{self.domain_name}/" if self.domain_name else self.rest_api.url

    def _add_method_not_allowed(self, path: str, methods: list[str]) -> None:
        """A wrong method on a known path: 405 `method_not_allowed` with `Allow`, as the local server answers.

        Without this, API Gateway answers MISSING_AUTHENTICATION_TOKEN (mapped to 404 below), whose gateway
        response cannot know the path's methods. An ANY method catches every method the resource does not
        define (an explicit method, OPTIONS included, takes precedence); it is a mock: no Lambda, no token.
        No request template, so whatever the body and its type, the mock answers its default (only) integration
        response, 405; a template for one content type would make every other type a 415.
        """
        resource = self.rest_api.root.resource_for_path(path)
        allowed = [*methods, "OPTIONS"] if self.cors_origins else list(methods)
        headers = {"Allow": f"'{', '.join(allowed)}'", "Content-Type": f"'{PROBLEM_JSON}'"}
        if self.cors_origins:
            headers["Access-Control-Allow-Origin"] = f"'{self.cors_origins[0]}'"
        method = resource.add_method(
            "ANY",
            apigw.MockIntegration(
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

    def add_routes(self, group: NestedStack, items: Sequence[RouteFunction]) -> list[apigw.Method]:
        """The methods of one route group, in its nested stack, on the API imported there; the stage's deployment
        waits for the group and changes with its methods."""
        imported = apigw.RestApi.from_rest_api_attributes(
            group,
            "RestApi",
            rest_api_id=self.rest_api.rest_api_id,
            root_resource_id=self.rest_api.rest_api_root_resource_id,
        )
        methods = []
        for item in items:
            resource = apigw.Resource.from_resource_attributes(
                group,
                f"{item.route.construct_id}Resource",
                resource_id=self.resources[item.route.path].resource_id,
                rest_api=imported,
                path=item.route.path,
            )
            methods.append(self._add_route(resource, item))
            if self.cors_origins:  # the handlers add Access-Control-* headers to their own responses
                item.function.add_environment(CORS_ORIGINS_ENV, ",".join(self.cors_origins))
        deployment = self.rest_api.latest_deployment
        assert deployment is not None
        deployment.node.add_dependency(group.nested_stack_resource)
        # A method of an imported API does not reach the deployment's hash (CDK adds only its own API's methods),
        # so the group's methods are added here: a changed route, authorizer use or integration target redeploys.
        deployment.add_to_logical_id({"routeGroup": group.node.id, "methods": [method_fingerprint(i) for i in items]})
        return methods

    def _add_route(self, resource: apigw.IResource, item: RouteFunction) -> apigw.Method:
        route = item.route
        parameters = {f"method.request.path.{name}": True for name in route.path_parameters}
        method = resource.add_method(
            route.method,
            # Proxy integration: handlers receive the REST v1 proxy event the local server also builds.
            # No test-invoke permission: it would double the Lambda permissions for a console-only feature.
            apigw.LambdaIntegration(item.target, proxy=True, allow_test_invoke=False),
            operation_name=route.operation,
            authorization_type=apigw.AuthorizationType.COGNITO if route.auth else apigw.AuthorizationType.NONE,
            authorizer=self.authorizer if route.auth else None,
            request_parameters=parameters or None,
            request_validator=self.parameter_validator if parameters else None,
        )
        # An imported API has no stage object, so the integration's permission would name every stage (`*`);
        # it is held to the API's one stage, as when the method lived in the API's own stack.
        for child in method.node.children:
            if isinstance(child, lambda_.CfnPermission):
                child.source_arn = self.rest_api.arn_for_execute_api(
                    route.method, re.sub(r"\{[^}]+\}", "*", route.path), constants.API_STAGE
                )
        if not route.auth:
            Validations.of(method).acknowledge(
                Acknowledgment(
                    id="AwsSolutions-APIG4",
                    reason=f"{route.key} is the public liveness check (docs/api.md: no token needed); its function "
                    "returns a constant and has no table permission.",
                ),
                Acknowledgment(
                    id="AwsSolutions-COG4",
                    reason=f"{route.key} is deliberately unauthenticated (docs/api.md, caller identity); "
                    "every other route uses the Cognito user-pool authorizer.",
                ),
            )
        return method


def method_fingerprint(item: RouteFunction) -> dict[str, object]:
    """What the deployed stage snapshots of a route's method: its route facts and its integration's target."""
    route = item.route
    return {
        # The function's name is in the integration's URI: a renamed function needs a new deployment of the stage.
        "function": naming.function_name(item.function, route.construct_id),
        "key": route.key,
        "operation": route.operation,
        "auth": route.auth,
        "parameters": list(route.path_parameters),
        "target": item.target.node.path,
    }


def _public_mock_acknowledgments(what: str) -> tuple[Acknowledgment, Acknowledgment]:
    reason = (
        f"{what} is a mock integration answering a constant (no Lambda, no data): a browser's preflight and a wrong "
        "method carry no token, and the answer reveals only the path's methods, which the OpenAPI document lists."
    )
    return Acknowledgment(id="AwsSolutions-APIG4", reason=reason), Acknowledgment(id="AwsSolutions-COG4", reason=reason)
