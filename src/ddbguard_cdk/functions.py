"""The parts every function of the guards is built from: a role of its own (its log group, exactly its table
access), X-Ray in a policy of its own (the one acknowledged wildcard), and the pinned runtime; plus
`guarded_function`, which puts them together (a background job, or a team's own handler). The product's
infra/functions.py builds every route function from the same parts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Acknowledgment, Duration, RemovalPolicy, Validations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from ddbguard_cdk.grants import XRAY_ACTIONS, table_statements
from ddbguard_cdk.layer_bytecode import LAMBDA_PYTHON_VERSION

__all__ = [
    "ARCHITECTURE",
    "RUNTIME",
    "acknowledge_pinned_runtime",
    "function_role",
    "guarded_function",
    "tracing_policy",
]


RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64
assert RUNTIME.name == f"python{LAMBDA_PYTHON_VERSION}", "the layers' bytecode is compiled for the runtime's minor"


def function_role(
    scope: Construct,
    construct_id: str,
    *,
    table_arn: str,
    access: Mapping[str, tuple[str, ...]],
    log_group: logs.ILogGroup,
    description: str,
) -> iam.Role:
    """`<construct_id>Role`: no AWS managed policy, logs only to `log_group`, exactly `access` on the table."""
    role = iam.Role(
        scope,
        f"{construct_id}Role",
        assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
        description=description,
    )
    log_group.grant_write(role)
    for statement in table_statements(access, table_arn):
        role.add_to_policy(statement)
    return role


def tracing_policy(scope: Construct, construct_id: str, role: iam.IRole) -> iam.Policy:
    """`<construct_id>TracingPolicy`: X-Ray's two actions, which support no resource-level permission, alone in a
    policy of their own, the only place that finding is acknowledged: any other wildcard (in the role's default policy
    or anywhere else) stays an open cdk-nag finding and fails synthesis. Set active tracing on the function's L1, since
    the L2's Tracing.ACTIVE would add these actions to the default policy."""
    policy = iam.Policy(
        scope,
        f"{construct_id}TracingPolicy",
        roles=[role],
        statements=[iam.PolicyStatement(actions=list(XRAY_ACTIONS), resources=["*"])],
    )
    Validations.of(policy).acknowledge(
        Acknowledgment(
            id="AwsSolutions-IAM5[Resource::*]",
            reason="xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions; "
            "this policy holds only them, and table and log permissions are scoped to the table and log group.",
        )
    )
    return policy


def acknowledge_pinned_runtime(function: lambda_.Function) -> None:
    Validations.of(function).acknowledge(
        Acknowledgment(
            id="AwsSolutions-L1",
            reason="Pinned to python3.13 on purpose: the local venv, the dependencies layer (cp313 wheels) "
            "and the shared layer are built and tested for 3.13.",
        )
    )


def guarded_function(
    scope: Construct,
    construct_id: str,
    *,
    handler: str,
    code: lambda_.Code,
    layers: Sequence[lambda_.ILayerVersion],
    table_arn: str,
    access: Mapping[str, tuple[str, ...]],
    environment: Mapping[str, str],
    description: str,
    memory_mb: int,
    timeout_seconds: int,
    log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH,
) -> lambda_.Function:
    """A function of the guards (`<construct_id>Function`: a background job, or a team's own handler), with its log
    group, its own role holding exactly `access` on the table, active tracing and its policy."""
    log_group = logs.LogGroup(
        scope,
        f"{construct_id}Logs",
        retention=log_retention,
        # Logs are operational data, not records: they go with the stack (the table does not).
        removal_policy=RemovalPolicy.DESTROY,
    )
    role = function_role(
        scope, construct_id, table_arn=table_arn, access=access, log_group=log_group, description=description
    )
    tracing = tracing_policy(scope, construct_id, role)
    function = lambda_.Function(
        scope,
        f"{construct_id}Function",
        runtime=RUNTIME,
        architecture=ARCHITECTURE,
        handler=handler,
        code=code,
        layers=list(layers),
        role=role,
        log_group=log_group,
        memory_size=memory_mb,
        timeout=Duration.seconds(timeout_seconds),
        description=description,
        environment=dict(environment),
    )
    cfn_function = function.node.default_child
    assert isinstance(cfn_function, lambda_.CfnFunction)
    cfn_function.tracing_config = lambda_.CfnFunction.TracingConfigProperty(mode="Active")
    function.node.add_dependency(tracing)  # traces from the first invocation on
    acknowledge_pinned_runtime(function)
    return function
