"""One Lambda function per route plus the lock audit, all on the same runtime, layers and settings."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from infra import constants
from infra.settlement import SWEEPER_HANDLER
from routes import ROUTES

if TYPE_CHECKING:
    from conftest import Synth

ROUTE_HANDLERS = [f"{route.handler}.handler" for route in ROUTES]
ALL_HANDLERS = [*ROUTE_HANDLERS, constants.AUDIT_HANDLER, constants.SETTLEMENT_HANDLER, SWEEPER_HANDLER]


def test_one_function_per_route_plus_the_audit_and_the_settlement(synth: Synth) -> None:
    handlers = sorted(props["Properties"]["Handler"] for props in synth.of_type("AWS::Lambda::Function").values())
    assert handlers == sorted(ALL_HANDLERS)
    assert len(set(ROUTE_HANDLERS)) == len(ROUTES)


def test_handler_strings_follow_the_module_layout() -> None:
    # `ledger.withdraw` lives in functions/ledger/withdraw.py and is invoked as ledger.withdraw.handler.
    assert "ledger.withdraw.handler" in ROUTE_HANDLERS
    assert constants.AUDIT_HANDLER == "audit.audit_locks.handler"


@pytest.mark.parametrize("handler", ALL_HANDLERS)
def test_function_settings(synth: Synth, handler: str) -> None:
    _logical_id, props = synth.functions_by_handler()[handler]
    assert props["Runtime"] == "python3.13"
    assert props["Architectures"] == ["arm64"]
    assert props["TracingConfig"] == {"Mode": "Active"}
    variables = props["Environment"]["Variables"]
    (table_id,) = synth.of_type("AWS::DynamoDB::Table")
    assert variables["TABLE_NAME"] == {"Ref": table_id}
    assert variables["POWERTOOLS_SERVICE_NAME"] == "ddbguard"
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == "ddbguard"
    assert variables["POWERTOOLS_LOG_LEVEL"] == "INFO"
    assert "LogGroup" in props["LoggingConfig"]


@pytest.mark.parametrize("handler", ROUTE_HANDLERS)
def test_route_function_size(synth: Synth, handler: str) -> None:
    _logical_id, props = synth.functions_by_handler()[handler]
    assert props["MemorySize"] == 256
    assert props["Timeout"] == 10


@pytest.mark.parametrize("handler", ALL_HANDLERS)
def test_function_has_the_dependency_layer_then_the_shared_layer(synth: Synth, handler: str) -> None:
    _logical_id, props = synth.functions_by_handler()[handler]
    (dependencies,) = [
        key for key in synth.of_type("AWS::Lambda::LayerVersion") if key.startswith("FunctionsDependency")
    ]
    (shared,) = [key for key in synth.of_type("AWS::Lambda::LayerVersion") if key.startswith("FunctionsShared")]
    assert props["Layers"] == [{"Ref": dependencies}, {"Ref": shared}]


def test_layers_are_python313_arm64(synth: Synth) -> None:
    for layer in synth.of_type("AWS::Lambda::LayerVersion").values():
        assert layer["Properties"]["CompatibleRuntimes"] == ["python3.13"]
        assert layer["Properties"]["CompatibleArchitectures"] == ["arm64"]


def test_every_function_logs_to_its_own_retained_for_a_month_log_group(synth: Synth) -> None:
    functions = synth.of_type("AWS::Lambda::Function").values()
    log_groups = [fn["Properties"]["LoggingConfig"]["LogGroup"]["Ref"] for fn in functions]
    assert len(set(log_groups)) == len(log_groups)
    for log_group in log_groups:
        assert synth.resources[log_group]["Properties"]["RetentionInDays"] == 30


def test_audit_runs_daily_in_working_hours_as_a_state_machine_started_by_a_schedule(synth: Synth) -> None:
    (machine_id,) = synth.of_type("AWS::StepFunctions::StateMachine")
    (schedule,) = [
        schedule["Properties"]
        for schedule in synth.of_type("AWS::Scheduler::Schedule").values()
        if schedule["Properties"]["Target"]["Arn"] == {"Ref": machine_id}
    ]
    # auditHour 9 in auditTimeZone UTC by default: an unrepaired finding pages when someone is at work.
    assert schedule["ScheduleExpression"] == "cron(17 9 * * ? *)"
    assert schedule["ScheduleExpressionTimezone"] == "UTC"
    segments = json.loads(schedule["Target"]["Input"])["segments"]
    assert segments == [{"segment": n, "totalSegments": len(segments)} for n in range(len(segments))]
    assert json.loads(synth.json["Outputs"]["AuditRunInput"]["Value"]) == {"segments": segments}


def test_nothing_but_the_state_machine_invokes_the_audit(synth: Synth) -> None:
    audit_id, _props = synth.functions_by_handler()[constants.AUDIT_HANDLER]
    permissions = [
        p["Properties"]
        for p in synth.of_type("AWS::Lambda::Permission").values()
        if p["Properties"]["FunctionName"] == {"Fn::GetAtt": [audit_id, "Arn"]}
    ]
    assert permissions == []  # no resource policy: EventBridge starts the state machine, not the function
