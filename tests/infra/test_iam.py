"""Least privilege: each function may call only the DynamoDB actions its route needs, on this table only."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

import routes
from infra import constants
from routes import ROUTES, job_access, table_patterns

if TYPE_CHECKING:
    from conftest import Synth

AUDIT = "audit_locks"


def _declared(function: str) -> dict[str, set[str]]:
    """dynamodb:<Action> -> LeadingKeys patterns, as the route table declares them (or the audit's)."""
    access = job_access.AUDIT_TABLE_ACCESS if function == AUDIT else routes.by_operation(function).table_access
    return {f"dynamodb:{action}": set(patterns) for action, patterns in access.items()}


def _handler(function: str) -> str:
    return constants.AUDIT_HANDLER if function == AUDIT else f"{routes.by_operation(function).handler}.handler"


FUNCTIONS = [route.operation for route in ROUTES] + [AUDIT]


def _granted(synth: Synth, function: str) -> dict[str, set[str]]:
    """dynamodb:<Action> -> LeadingKeys patterns its statements allow (an empty set: unconditioned)."""
    _logical_id, props = synth.functions_by_handler()[_handler(function)]
    granted: dict[str, set[str]] = {}
    for statement in synth.role_statements(props):
        assert statement["Effect"] == "Allow"
        actions = [action for action in synth.as_list(statement["Action"]) if action.startswith("dynamodb:")]
        condition = statement.get("Condition", {})
        patterns = set(
            synth.as_list(condition.get(constants.LEADING_KEYS_OPERATOR, {}).get(constants.LEADING_KEYS, []))
        )
        for action in actions:
            assert action not in granted, f"{function}: {action} granted by two statements"
            granted[action] = patterns
    return granted


@pytest.mark.parametrize("function", FUNCTIONS)
def test_granted_actions_and_key_patterns_equal_the_declared_ones(synth: Synth, function: str) -> None:
    assert _granted(synth, function) == _declared(function)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_statement_that_can_carry_leading_keys_does(synth: Synth, function: str) -> None:
    _logical_id, props = synth.functions_by_handler()[_handler(function)]
    for statement in synth.role_statements(props):
        actions = {a.removeprefix("dynamodb:") for a in synth.as_list(statement["Action"]) if a.startswith("dynamodb:")}
        if not actions:
            continue
        if actions <= constants.LEADING_KEYS_ACTIONS:
            leading = statement["Condition"][constants.LEADING_KEYS_OPERATOR][constants.LEADING_KEYS]
            assert leading and "*" not in synth.as_list(leading), statement
        else:
            # Only Scan names no partition; it never shares a statement with an action that does.
            assert actions == {"Scan"} and "Condition" not in statement, statement


def test_request_markers_are_reachable_only_by_functions_that_take_a_key(synth: Synth) -> None:
    for route in ROUTES:
        patterns = (
            set().union(*_granted(synth, route.operation).values()) if route.operation != "check_health" else set()
        )
        if table_patterns.REQUEST_MARKERS in patterns:
            assert route.idempotency != "none", route.operation
        elif route.idempotency != "none":
            # A keyed route without markers records its request as a stamp on the one item it updates.
            assert set(_granted(synth, route.operation)) == {"dynamodb:UpdateItem"}, route.operation


def test_get_functions_are_read_only(synth: Synth) -> None:
    for route in ROUTES:
        if route.method == "GET":
            assert set(_granted(synth, route.operation)) <= {
                "dynamodb:GetItem",
                "dynamodb:Query",
                "dynamodb:BatchGetItem",
            }


def test_health_has_no_table_access(synth: Synth) -> None:
    # GET /health answers without touching the table, so its function may not call DynamoDB at all.
    assert _granted(synth, "check_health") == {}


def test_only_the_audit_may_scan(synth: Synth) -> None:
    for route in ROUTES:
        assert "dynamodb:Scan" not in _granted(synth, route.operation)
    assert _granted(synth, AUDIT)["dynamodb:Scan"] == set()


def test_no_dynamodb_wildcard_anywhere(synth: Synth) -> None:
    assert '"dynamodb:*"' not in json.dumps(synth.json)
    actions = _all_policy_actions(synth)
    assert actions
    for action in actions:
        assert action != "*" and not action.endswith(":*"), action


STREAM_ACTIONS = {"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}


def test_table_access_is_scoped_to_the_table(synth: Synth) -> None:
    (table_id,) = synth.of_type("AWS::DynamoDB::Table")
    for _handler, (_logical_id, props) in synth.functions_by_handler().items():
        for statement in synth.role_statements(props):
            actions = set(synth.as_list(statement["Action"]))
            if actions & STREAM_ACTIONS:  # the settlement's event source mapping reads the table's stream
                assert actions <= STREAM_ACTIONS, statement
                assert synth.as_list(statement["Resource"]) in ([{"Fn::GetAtt": [table_id, "StreamArn"]}], ["*"])
            elif synth.index_patterns(statement):  # a Query of a secondary index: that index of this table only
                table_arn = {"Fn::GetAtt": [table_id, "Arn"]}
                indexes = sorted(synth.index_patterns(statement))
                assert synth.as_list(statement["Resource"]) == [
                    {"Fn::Join": ["", [table_arn, f"/{pattern}"]]} for pattern in indexes
                ]
            elif any(action.startswith("dynamodb:") for action in actions):
                assert synth.as_list(statement["Resource"]) == [{"Fn::GetAtt": [table_id, "Arn"]}]


def test_the_only_wildcard_resource_is_xray_alone_in_its_own_policy(synth: Synth) -> None:
    for _handler, (_logical_id, props) in synth.functions_by_handler().items():
        role = {"Ref": props["Role"]["Fn::GetAtt"][0]}
        for logical_id, policy in synth.of_type("AWS::IAM::Policy").items():
            if role not in policy["Properties"]["Roles"]:
                continue
            statements = policy["Properties"]["PolicyDocument"]["Statement"]
            wildcards = [s for s in statements if "*" in synth.as_list(s["Resource"])]
            if not wildcards:
                continue
            if "StreamPolicy" in logical_id:  # ListStreams has no resource-level permission
                assert [set(synth.as_list(s["Action"])) for s in wildcards] == [{"dynamodb:ListStreams"}]
            else:
                assert "TracingPolicy" in logical_id
                assert [set(synth.as_list(s["Action"])) for s in statements] == [set(constants.XRAY_ACTIONS)]


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


def test_a_declaration_that_cannot_be_granted_exactly_fails_synthesis() -> None:
    from ddbguard_cdk.grants import table_statements

    with pytest.raises(ValueError, match="declare the key patterns"):
        table_statements({"GetItem": ()}, "arn:aws:dynamodb:us-east-1:000000000000:table/t")
    with pytest.raises(ValueError, match="cannot be limited"):
        table_statements({"Scan": ("ACCT#*",)}, "arn:aws:dynamodb:us-east-1:000000000000:table/t")
