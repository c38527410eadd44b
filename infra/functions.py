"""One Lambda function per route of `functions/routes/`, plus the scheduled lock audit.

Each function gets its own role holding exactly the DynamoDB actions its route declares, each limited to the
partition-key patterns it reaches (`dynamodb:LeadingKeys`), write access to its own log group, and X-Ray.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from ddbguard_cdk.functions import ARCHITECTURE, RUNTIME, acknowledge_pinned_runtime, function_role, tracing_policy
from ddbguard_cdk.settlement import settle_from_stream
from infra import constants, dependency_layer, function_runtime, naming, retention, settings, staged_assets
from routes import Route
from routes.job_access import AUDIT_TABLE_ACCESS, SETTLEMENT_TABLE_ACCESS

__all__ = ["ARCHITECTURE", "RUNTIME", "Functions", "RouteFunction", "handler_string", "powertools_layer_parameter"]


def handler_string(handler: str) -> str:
    """`ledger.withdraw` -> `ledger.withdraw.handler` (module `functions/ledger/withdraw.py`)."""
    return f"{handler}.handler"


def powertools_layer_parameter(version: str) -> str:
    """The public SSM parameter AWS publishes per Powertools release; its value is the layer ARN in each region.

    Documented by Powertools as `/aws/service/powertools/python/{arch}/{python_version}/{version}`.
    """
    return f"/aws/service/powertools/python/arm64/python{dependency_layer.LAMBDA_PYTHON_VERSION}/{version}"


@dataclass(frozen=True)
class RouteFunction:
    route: Route
    function: lambda_.Function
    target: lambda_.IFunction  # what the API invokes: the function, or its SnapStart alias


class Functions(Construct):
    """Layers, the background functions (audit, settlement), and the builder of every function.

    Route functions are built in the nested stack of their route group (infra/route_stacks.py) through
    `route_function`, the same way as the ones here: one builder, one shape.
    """

    def __init__(self, scope: Construct, construct_id: str, *, table: dynamodb.ITable) -> None:
        super().__init__(scope, construct_id)
        self._table = table
        self.shared_layer = lambda_.LayerVersion(
            self,
            "SharedLayer",
            # functions/layer staged with its bytecode compiled (infra/staged_assets.py), not the source tree itself.
            code=lambda_.Code.from_asset(str(staged_assets.layer_root())),
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
                code=lambda_.Code.from_asset(
                    str(
                        dependency_layer.layer_root(with_xray_sdk=function_runtime.tracing_provider(self) == "xray-sdk")
                    )
                ),
                compatible_runtimes=[RUNTIME],
                compatible_architectures=[ARCHITECTURE],
                description="Pinned runtime requirements (requirements.txt): Powertools, pydantic, boto3/botocore "
                "(the X-Ray SDK only with tracing=xray-sdk)",
            )
        # One asset for every function: handlers share modules, and one upload keeps deployments fast. CDK binds an
        # asset object to one stack, so each (nested) stack gets its own object of the same content: one upload.
        self._code: dict[str, lambda_.Code] = {}

        self._targets: dict[str, lambda_.IFunction] = {}
        self.audit_function = self._function(
            "AuditLocks",
            handler=constants.AUDIT_HANDLER,
            description="Daily uniqueness-lock audit (reports and repairs broken locks)",
            access=AUDIT_TABLE_ACCESS,
            memory_mb=constants.AUDIT_MEMORY_MB,
            timeout_seconds=constants.AUDIT_TIMEOUT_SECONDS,
            reserved=settings.count(self, settings.AUDIT_RESERVED_CONCURRENCY),
        )
        # A run is the Step Functions state machine of infra/audit.py: it invokes this function once per step of
        # each Scan segment; the function itself invokes nothing.

        # The table's stream -> the settlement (functions/streams/settle_entries.py): exact availableCentsAfter onto
        # each new entry, off the request's critical path. Partial batch responses: retried from the failed record on.
        self.settlement_function = self._function(
            "SettleEntries",
            handler=constants.SETTLEMENT_HANDLER,
            description="Settles new ledger entries from the table stream (availableCentsAfter off the critical path)",
            access=SETTLEMENT_TABLE_ACCESS,
            memory_mb=constants.FUNCTION_MEMORY_MB,
            timeout_seconds=constants.SETTLEMENT_TIMEOUT_SECONDS,
            reserved=settings.count(self, settings.SETTLEMENT_RESERVED_CONCURRENCY),
        )
        # The stream's mapping, read policy and filter: the construct package's (src/ddbguard_cdk/settlement.py).
        settle_from_stream(self, self.settlement_function, table)

    def code(self, scope: Construct) -> lambda_.Code:
        """The functions' code asset, as the stack holding `scope` may use it."""
        stack = Stack.of(scope)
        if stack.node.path not in self._code:
            # functions/ staged with its bytecode (infra/staged_assets.py), not the source tree itself.
            self._code[stack.node.path] = lambda_.Code.from_asset(str(staged_assets.code_root()))
        return self._code[stack.node.path]

    def route_function(self, scope: Construct, route: Route) -> RouteFunction:
        """The function serving `route`, built in `scope` (its route group's nested stack)."""
        function = self._function(
            route.construct_id,
            scope=scope,
            handler=handler_string(route.handler),
            description=f"{route.key} ({route.handler})",
            access=route.table_access,
            memory_mb=constants.FUNCTION_MEMORY_MB,
            timeout_seconds=constants.FUNCTION_TIMEOUT_SECONDS,
            invoked_through_alias=True,
        )
        return RouteFunction(route=route, function=function, target=self._targets[route.construct_id])

    def _function(
        self,
        construct_id: str,
        *,
        scope: Construct | None = None,
        handler: str,
        description: str,
        access: Mapping[str, tuple[str, ...]],
        memory_mb: int,
        timeout_seconds: int,
        reserved: int = 0,
        invoked_through_alias: bool = False,
    ) -> lambda_.Function:
        scope = scope or self
        name = naming.function_name(scope, construct_id)
        log_group = logs.LogGroup(
            scope,
            f"{construct_id}Logs",
            log_group_name=naming.function_log_group(name),
            retention=retention.function_logs(scope),
            # Logs are operational data, not records: they go with the stack (the table does not).
            removal_policy=RemovalPolicy.DESTROY,
        )
        # An explicit role instead of the default one: no AWS managed policy, logs only to this log group; X-Ray in a
        # policy of its own (src/ddbguard_cdk/functions.py says why).
        role = function_role(
            scope,
            construct_id,
            table_arn=self._table.table_arn,
            access=access,
            log_group=log_group,
            description=f"ddbguard {construct_id}: least-privilege table access",
        )
        tracing = tracing_policy(scope, construct_id, role)
        function = lambda_.Function(
            scope,
            f"{construct_id}Function",
            function_name=name,
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=handler,
            code=self.code(scope),
            layers=[self.dependency_layer, self.shared_layer],
            role=role,
            log_group=log_group,
            memory_size=memory_mb,
            timeout=Duration.seconds(timeout_seconds),
            # Reserved: a traffic burst on the routes cannot starve settlement or the audit (0: none).
            reserved_concurrent_executions=reserved or None,
            description=description,
            environment={
                "TABLE_NAME": self._table.table_name,
                "POWERTOOLS_SERVICE_NAME": constants.SERVICE_NAME,
                "POWERTOOLS_METRICS_NAMESPACE": naming.metrics_namespace(self),
                "POWERTOOLS_LOG_LEVEL": constants.LOG_LEVEL,
            },
        )
        # Tracing provider and SnapStart from context (infra/function_runtime.py).
        self._targets[construct_id] = function_runtime.apply(
            scope, construct_id, function, invoked_through_alias=invoked_through_alias
        )
        function.node.add_dependency(tracing)  # traces from the first invocation on
        acknowledge_pinned_runtime(function)
        return function
