"""Tracing provider and SnapStart of each function, from context (`-c tracing=...`, `-c snapStart=true`).

The layer reads the provider from `DDBGUARD_TRACING` (functions/layer/python/ddbguard/tracing.py), so switching
is a deployment change only. Every provider keeps Lambda active tracing on: it opens the trace the others add to.
"""

from __future__ import annotations

from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra import settings

TRACING_ENV = "DDBGUARD_TRACING"
PROVIDERS = ("active", "xray-sdk", "otel")
# ADOT's wrapper script: it starts the OpenTelemetry SDK and instruments the handler before Lambda imports it.
OTEL_WRAPPER = "/opt/otel-instrument"
LIVE_ALIAS = "live"


def tracing_provider(scope: Construct) -> str:
    provider = settings.text(scope, settings.TRACING)
    if provider not in PROVIDERS:
        raise ValueError(f"context {settings.TRACING.name}={provider!r}: one of {', '.join(PROVIDERS)} is required")
    return provider


def apply(
    scope: Construct, construct_id: str, function: lambda_.Function, *, invoked_through_alias: bool
) -> lambda_.IFunction:
    """Set tracing and SnapStart on `function`; returns what callers should invoke (the function, or its alias).

    SnapStart restores published versions only, so it goes only on functions whose caller invokes the alias (the
    API's route functions). A stream mapping or a schedule that invokes the function unqualified never restores a
    snapshot: SnapStart there would only cost snapshot storage."""
    provider = tracing_provider(scope)
    cfn_function = function.node.default_child
    assert isinstance(cfn_function, lambda_.CfnFunction)
    cfn_function.tracing_config = lambda_.CfnFunction.TracingConfigProperty(mode="Active")
    function.add_environment(TRACING_ENV, provider)
    if provider == "otel":
        arn = settings.text(scope, settings.OTEL_LAYER_ARN)
        if not arn:
            raise ValueError(f"context tracing=otel needs {settings.OTEL_LAYER_ARN.name} (the ADOT Python layer ARN)")
        function.add_layers(lambda_.LayerVersion.from_layer_version_arn(scope, f"{construct_id}OtelLayer", arn))
        function.add_environment("AWS_LAMBDA_EXEC_WRAPPER", OTEL_WRAPPER)
    if not invoked_through_alias or not settings.flag(scope, settings.SNAP_START):
        return function
    # SnapStart restores published versions only: the alias points at this deployment's version.
    cfn_function.snap_start = lambda_.CfnFunction.SnapStartProperty(apply_on="PublishedVersions")
    return lambda_.Alias(scope, f"{construct_id}Live", alias_name=LIVE_ALIAS, version=function.current_version)
