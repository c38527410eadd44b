"""Tracing provider and SnapStart come from context alone: the layer reads DDBGUARD_TRACING, the API invokes the
SnapStart alias when there is one."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from aws_cdk import App

from infra import function_runtime
from routes import ROUTES

if TYPE_CHECKING:
    from conftest import Synth

OTEL_LAYER = "arn:aws-cn:lambda:cn-north-1:111122223333:layer:AWSOpenTelemetryDistroPython:99"


def _integration_targets(synth: Synth) -> list[object]:
    return [
        method["Integration"]["Uri"]
        for method in synth.methods().values()
        if method["Integration"]["Type"] == "AWS_PROXY"
    ]


def test_default_is_active_tracing_alone_without_snapstart(synth: Synth) -> None:
    functions = synth.of_type("AWS::Lambda::Function")
    for props in functions.values():
        properties = props["Properties"]
        assert properties["TracingConfig"] == {"Mode": "Active"}
        assert properties["Environment"]["Variables"]["DDBGUARD_TRACING"] == "active"
        assert "AWS_LAMBDA_EXEC_WRAPPER" not in properties["Environment"]["Variables"]
        assert "SnapStart" not in properties
    assert synth.of_type("AWS::Lambda::Alias") == {}
    text = str(_integration_targets(synth))
    assert "Alias" not in text and len(_integration_targets(synth)) == len(ROUTES)


def test_otel_adds_the_adot_layer_and_wrapper_and_snapstart_routes_through_the_alias(custom_synth: Synth) -> None:
    functions = custom_synth.of_type("AWS::Lambda::Function")
    for props in functions.values():
        properties = props["Properties"]
        variables = properties["Environment"]["Variables"]
        assert variables["DDBGUARD_TRACING"] == "otel"
        assert variables["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/otel-instrument"
        assert OTEL_LAYER in properties["Layers"]
        assert properties["TracingConfig"] == {"Mode": "Active"}
    # SnapStart only where the caller invokes the alias: the route functions. The stream mapping, the schedules and
    # the audit's self-invocation call their functions unqualified, where a snapshot is never restored.
    aliases = custom_synth.of_type("AWS::Lambda::Alias")
    assert {a["Properties"]["Name"] for a in aliases.values()} == {"live"}
    aliased = {alias["Properties"]["FunctionName"]["Ref"] for alias in aliases.values()}
    snap_started = {key for key, props in functions.items() if "SnapStart" in props["Properties"]}
    assert aliased == snap_started
    assert len(aliases) == len(ROUTES)
    for key in snap_started:
        assert functions[key]["Properties"]["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    background = {"streams.settle_entries.handler", "streams.sweep_pending.handler", "audit.audit_locks.handler"}
    for handler in background:
        (key,) = [k for k, props in functions.items() if props["Properties"]["Handler"] == handler]
        assert key not in snap_started, handler
    # Every route's integration invokes its function's alias (the Ref of an alias is its ARN).
    targets = _integration_targets(custom_synth)
    assert len(targets) == len(ROUTES)
    for uri in targets:
        assert any(key in str(uri) for key in aliases), uri


def test_tracing_provider_is_checked() -> None:
    assert function_runtime.tracing_provider(App(context={"tracing": "xray-sdk"})) == "xray-sdk"
    assert function_runtime.tracing_provider(App()) == "active"
    with pytest.raises(ValueError, match="tracing='bogus'"):
        function_runtime.tracing_provider(App(context={"tracing": "bogus"}))
