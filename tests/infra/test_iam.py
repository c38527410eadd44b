"""Least privilege: each function may call only the DynamoDB actions its route needs, on this table only."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from infra import constants
from routes import ROUTES

if TYPE_CHECKING:
    from conftest import Synth

WRITE_ACTIONS = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}
READ_ACTIONS = {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem"}
GET_ROUTES = [route for route in ROUTES if route.method == "GET" and route.operation != "check_health"]
MUTATING_ROUTES = [route for route in ROUTES if route.method != "GET"]


def _dynamodb_actions(synth: Synth, handler: str) -> set[str]:
    _logical_id, props = synth.functions_by_handler()[handler]
    actions: set[str] = set()
    for statement in synth.role_statements(props):
        assert statement["Effect"] == "Allow"
        actions.update(action for action in synth.as_list(statement["Action"]) if action.startswith("dynamodb:"))
    return actions


@pytest.mark.parametrize("route", GET_ROUTES, ids=lambda route: route.key)
def test_get_functions_are_read_only(synth: Synth, route: Any) -> None:
    actions = _dynamodb_actions(synth, f"{route.handler}.handler")
    assert actions >= READ_ACTIONS
    assert not actions & WRITE_ACTIONS


def test_health_has_no_table_access(synth: Synth) -> None:
    # GET /health answers without touching the table, so its function may not call DynamoDB at all.
    assert _dynamodb_actions(synth, "health.check_health.handler") == set()


@pytest.mark.parametrize("route", MUTATING_ROUTES, ids=lambda route: route.key)
def test_mutating_functions_read_and_write_items(synth: Synth, route: Any) -> None:
    actions = _dynamodb_actions(synth, f"{route.handler}.handler")
    assert actions == READ_ACTIONS | {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}


def test_only_the_audit_may_scan(synth: Synth) -> None:
    for route in ROUTES:
        assert "dynamodb:Scan" not in _dynamodb_actions(synth, f"{route.handler}.handler")
    audit = _dynamodb_actions(synth, constants.AUDIT_HANDLER)
    assert audit == READ_ACTIONS | {"dynamodb:Scan", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}


def test_no_dynamodb_wildcard_anywhere(synth: Synth) -> None:
    assert '"dynamodb:*"' not in json.dumps(synth.json)
    actions = _all_policy_actions(synth)
    assert actions
    for action in actions:
        assert action != "*" and not action.endswith(":*"), action


def test_table_access_is_scoped_to_the_table(synth: Synth) -> None:
    (table_id,) = synth.of_type("AWS::DynamoDB::Table")
    for _handler, (_logical_id, props) in synth.functions_by_handler().items():
        for statement in synth.role_statements(props):
            if any(action.startswith("dynamodb:") for action in synth.as_list(statement["Action"])):
                assert synth.as_list(statement["Resource"]) == [{"Fn::GetAtt": [table_id, "Arn"]}]


def test_the_only_wildcard_resource_is_xray(synth: Synth) -> None:
    for _handler, (_logical_id, props) in synth.functions_by_handler().items():
        for statement in synth.role_statements(props):
            if "*" in synth.as_list(statement["Resource"]):
                assert set(synth.as_list(statement["Action"])) == {"xray:PutTraceSegments", "xray:PutTelemetryRecords"}


def test_function_roles_use_no_managed_policies(synth: Synth) -> None:
    for _handler, (_logical_id, props) in synth.functions_by_handler().items():
        role = synth.resources[props["Role"]["Fn::GetAtt"][0]]["Properties"]
        assert "ManagedPolicyArns" not in role
        assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "lambda.amazonaws.com"}


def test_each_function_writes_logs_only_to_its_own_log_group(synth: Synth) -> None:
    for _handler, (_logical_id, props) in synth.functions_by_handler().items():
        log_group = props["LoggingConfig"]["LogGroup"]["Ref"]
        log_statements = [
            statement
            for statement in synth.role_statements(props)
            if any(action.startswith("logs:") for action in synth.as_list(statement["Action"]))
        ]
        assert log_statements
        for statement in log_statements:
            assert synth.as_list(statement["Resource"]) == [{"Fn::GetAtt": [log_group, "Arn"]}]


def _all_policy_actions(synth: Synth) -> list[str]:
    """Actions of every IAM policy (identity policies; the KMS key's admin statement is not one)."""
    actions: list[str] = []
    iam_types = {"AWS::IAM::Policy", "AWS::IAM::Role", "AWS::IAM::ManagedPolicy"}
    for resource in synth.resources.values():
        if resource["Type"] not in iam_types:
            continue
        props = resource["Properties"]
        documents = [props.get("PolicyDocument")]
        documents += [policy.get("PolicyDocument") for policy in props.get("Policies", [])]
        for document in filter(None, documents):
            for statement in document["Statement"]:
                actions.extend(synth.as_list(statement.get("Action", [])))
    return actions
