"""One Lambda function per route of `functions/routes.py`, plus the scheduled lock audit.

Each function gets its own role holding only the DynamoDB actions its route needs, write access to its own
log group, and (through active tracing) X-Ray.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from aws_cdk import Acknowledgment, Duration, RemovalPolicy, Validations
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from functions.routes import ROUTES, Route
from infra import constants, dependency_layer, settings

RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64


def handler_string(handler: str) -> str:
    """`ledger.withdraw` -> `ledger.withdraw.handler` (module `functions/ledger/withdraw.py`)."""
    return f"{handler}.handler"


def actions_for(route: Route) -> tuple[str, ...]:
    """The DynamoDB actions a route's function may call: GET routes read, every other route reads and writes."""
    if route.operation in constants.TABLELESS_OPERATIONS:
        return ()
    if route.method == "GET":
        return constants.READ_ACTIONS
    return constants.READ_ACTIONS + constants.WRITE_ACTIONS


def powertools_layer_parameter(version: str) -> str:
    """The public SSM parameter AWS publishes per Powertools release; its value is the layer ARN in each region.

    Documented by Powertools as `/aws/service/powertools/python/{arch}/{python_version}/{version}`.
    """
    return f"/aws/service/powertools/python/arm64/python{dependency_layer.LAMBDA_PYTHON_VERSION}/{version}"


@dataclass(frozen=True)
class RouteFunction:
    route: Route
    function: lambda_.Function


class Functions(Construct):
    """Layers, route functions and the audit function."""

    def __init__(self, scope: Construct, construct_id: str, *, table: dynamodb.ITable) -> None:
        super().__init__(scope, construct_id)
        self._table = table
        self.shared_layer = lambda_.LayerVersion(
            self,
            "SharedLayer",
            code=lambda_.Code.from_asset(str(constants.LAYER_DIR), exclude=list(constants.LAYER_EXCLUDES)),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            description="ddbguard and ddbguard_api packages shared by every handler",
        )
        # Third-party code: by default the pinned requirements as a plain asset (infra/dependency_layer.py); with
        # `-c powertoolsPublicLayer=true`, AWS's Powertools layer for the pinned version, looked up in SSM at deploy
        # time (no layer version number in the code), and the runtime's own boto3.
        self.dependency_layer: lambda_.ILayerVersion
        if settings.flag(self, settings.POWERTOOLS_PUBLIC_LAYER):
            version = dependency_layer.pinned_version("aws-lambda-powertools")
            self.dependency_layer = lambda_.LayerVersion.from_layer_version_arn(
                self,
                "PowertoolsLayer",
                ssm.StringParameter.value_for_string_parameter(self, powertools_layer_parameter(version)),
            )
        else:
            self.dependency_layer = lambda_.LayerVersion(
                self,
                "DependencyLayer",
                code=lambda_.Code.from_asset(str(dependency_layer.layer_root())),
                compatible_runtimes=[RUNTIME],
                compatible_architectures=[ARCHITECTURE],
                description="Pinned runtime requirements (requirements.txt): Powertools, pydantic, boto3/botocore",
            )
        # One asset for every function: handlers share modules, and one upload keeps deployments fast.
        self._code = lambda_.Code.from_asset(str(constants.FUNCTIONS_DIR), exclude=list(constants.CODE_EXCLUDES))

        self.routes: list[RouteFunction] = [
            RouteFunction(route=route, function=self._route_function(route)) for route in ROUTES
        ]
        self.audit_function = self._function(
            "AuditLocks",
            handler=constants.AUDIT_HANDLER,
            description="Daily uniqueness-lock audit (reports and repairs broken locks)",
            actions=constants.READ_ACTIONS + constants.AUDIT_EXTRA_ACTIONS + constants.WRITE_ACTIONS,
            memory_mb=constants.AUDIT_MEMORY_MB,
            timeout_seconds=constants.AUDIT_TIMEOUT_SECONDS,
        )
        self.audit_rule = events.Rule(
            self,
            "AuditLocksSchedule",
            description="Runs the uniqueness-lock audit once a day",
            schedule=events.Schedule.cron(minute=constants.AUDIT_SCHEDULE_MINUTE, hour=constants.AUDIT_SCHEDULE_HOUR),
            targets=[targets.LambdaFunction(self.audit_function, retry_attempts=2)],
        )

        Validations.of(self).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM5[Resource::*]",
                reason="Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords, which support no "
                "resource-level permissions; DynamoDB and log permissions are scoped to the table and log group.",
            ),
            Acknowledgment(
                id="AwsSolutions-L1",
                reason="Pinned to python3.13 on purpose: the local venv, the dependencies layer (cp313 wheels) "
                "and the shared layer are built and tested for 3.13.",
            ),
        )

    @property
    def all_functions(self) -> list[lambda_.Function]:
        return [item.function for item in self.routes] + [self.audit_function]

    def _route_function(self, route: Route) -> lambda_.Function:
        return self._function(
            route.construct_id,
            handler=handler_string(route.handler),
            description=f"{route.key} ({route.handler})",
            actions=actions_for(route),
            memory_mb=constants.FUNCTION_MEMORY_MB,
            timeout_seconds=constants.FUNCTION_TIMEOUT_SECONDS,
        )

    def _function(
        self,
        construct_id: str,
        *,
        handler: str,
        description: str,
        actions: Sequence[str],
        memory_mb: int,
        timeout_seconds: int,
    ) -> lambda_.Function:
        log_group = logs.LogGroup(
            self,
            f"{construct_id}Logs",
            retention=constants.LOG_RETENTION,
            # Logs are operational data, not records: they go with the stack (the table does not).
            removal_policy=RemovalPolicy.DESTROY,
        )
        # An explicit role instead of the default one: no AWS managed policy, logs only to this log group.
        role = iam.Role(
            self,
            f"{construct_id}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"ddbguard {construct_id}: least-privilege table access",
        )
        log_group.grant_write(role)
        if actions:
            role.add_to_policy(iam.PolicyStatement(actions=sorted(_unique(actions)), resources=[self._table.table_arn]))
        return lambda_.Function(
            self,
            f"{construct_id}Function",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=handler,
            code=self._code,
            layers=[self.dependency_layer, self.shared_layer],
            role=role,
            log_group=log_group,
            memory_size=memory_mb,
            timeout=Duration.seconds(timeout_seconds),
            tracing=lambda_.Tracing.ACTIVE,
            description=description,
            environment={
                "TABLE_NAME": self._table.table_name,
                "POWERTOOLS_SERVICE_NAME": constants.SERVICE_NAME,
                "POWERTOOLS_METRICS_NAMESPACE": constants.METRICS_NAMESPACE,
                "POWERTOOLS_LOG_LEVEL": constants.LOG_LEVEL,
            },
        )


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
