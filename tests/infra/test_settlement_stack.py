"""Settlement in the stack: the stream mapping's limits and on-failure queue, the sweeper's schedule and exact IAM,
and the falling-behind alarms."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from ddbguard_cdk import settlement as settlement_parts
from infra import constants
from infra import settlement as settlement_infra
from routes import job_access, table_patterns

if TYPE_CHECKING:
    from conftest import Synth

# The event source mapping's stream read, in its own policy (tests/infra/test_iam.py checks it).
STREAM_ACTIONS = {"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}


def _granted(synth: Synth, handler: str) -> dict[str, set[str]]:
    _logical_id, props = synth.functions_by_handler()[handler]
    granted: dict[str, set[str]] = {}
    for statement in synth.role_statements(props):
        condition = statement.get("Condition", {})
        patterns = set(
            synth.as_list(condition.get(constants.LEADING_KEYS_OPERATOR, {}).get(constants.LEADING_KEYS, []))
        ) | synth.index_patterns(statement)
        for action in synth.as_list(statement["Action"]):
            if action.startswith("dynamodb:") and action not in STREAM_ACTIONS:
                assert action not in granted, action
                granted[action] = patterns
    return granted


@pytest.mark.parametrize(
    ("handler", "access"),
    [
        (settlement_infra.SWEEPER_HANDLER, job_access.SWEEPER_TABLE_ACCESS),
        (constants.SETTLEMENT_HANDLER, job_access.SETTLEMENT_TABLE_ACCESS),
    ],
    ids=["sweeper", "settlement"],
)
def test_table_access_is_exactly_the_declared_one(synth: Synth, handler: str, access) -> None:
    assert _granted(synth, handler) == {f"dynamodb:{action}": set(patterns) for action, patterns in access.items()}


def test_the_sweeper_writes_nothing_but_settlement_updates(synth: Synth) -> None:
    granted = _granted(synth, settlement_infra.SWEEPER_HANDLER)
    assert set(granted) == {"dynamodb:Query", "dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:UpdateItem"}
    assert granted["dynamodb:UpdateItem"] == {table_patterns.ACCOUNTS, table_patterns.REQUEST_MARKERS}


def test_the_sweeper_queries_the_unsettled_index_only_and_never_scans(synth: Synth) -> None:
    _logical_id, props = synth.functions_by_handler()[settlement_infra.SWEEPER_HANDLER]
    (query,) = [s for s in synth.role_statements(props) if "dynamodb:Query" in synth.as_list(s["Action"])]
    assert synth.as_list(query["Action"]) == ["dynamodb:Query"]
    (resource,) = synth.as_list(query["Resource"])
    assert synth.index_patterns(query) == {job_access.UNSETTLED_BALANCES} and "Condition" not in query
    assert json.dumps(resource).endswith('"/index/unsettled"]]}')  # the index's ARN, not the table's
    assert all("dynamodb:Scan" not in synth.as_list(s["Action"]) for s in synth.role_statements(props))


def test_the_stream_mapping_gives_up_to_an_encrypted_queue_after_a_bounded_age(synth: Synth) -> None:
    (mapping,) = synth.of_type("AWS::Lambda::EventSourceMapping").values()
    props = mapping["Properties"]
    (queue_id,) = synth.of_type("AWS::SQS::Queue")
    assert props["MaximumRecordAgeInSeconds"] == settlement_parts.MAX_RECORD_AGE.to_seconds()
    assert props["DestinationConfig"] == {"OnFailure": {"Destination": {"Fn::GetAtt": [queue_id, "Arn"]}}}
    assert props["BisectBatchOnFunctionError"] is True
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    queue = synth.resources[queue_id]["Properties"]
    assert queue["SqsManagedSseEnabled"] is True
    assert queue["MessageRetentionPeriod"] == settlement_parts.FAILURE_RETENTION.to_seconds()


def test_only_the_settlement_may_send_to_the_failure_queue(synth: Synth) -> None:
    (queue_id,) = synth.of_type("AWS::SQS::Queue")
    senders = []
    for handler, (_logical_id, props) in synth.functions_by_handler().items():
        for statement in synth.role_statements(props):
            if any(str(action).startswith("sqs:") for action in synth.as_list(statement["Action"])):
                assert synth.as_list(statement["Resource"]) == [{"Fn::GetAtt": [queue_id, "Arn"]}]
                senders.append(handler)
    assert senders == [constants.SETTLEMENT_HANDLER]


def test_the_sweeper_runs_on_a_schedule_with_its_age_bound(synth: Synth) -> None:
    sweeper_id, props = synth.functions_by_handler()[settlement_infra.SWEEPER_HANDLER]
    (rule,) = [
        rule
        for rule in synth.of_type("AWS::Events::Rule").values()
        if rule["Properties"]["Targets"][0]["Arn"] == {"Fn::GetAtt": [sweeper_id, "Arn"]}
    ]
    assert rule["Properties"]["ScheduleExpression"] == "rate(5 minutes)"
    assert rule["Properties"]["Targets"][0]["Input"] == '{"minAgeSeconds":60}'
    assert props["Timeout"] == settlement_infra.SWEEPER_TIMEOUT_SECONDS


def test_falling_behind_alarms_exist(synth: Synth) -> None:
    names = {
        alarm["Properties"]["AlarmName"]: alarm["Properties"]
        for alarm in synth.of_type("AWS::CloudWatch::Alarm").values()
    }
    prefix = f"{constants.STACK_ID}-{settlement_infra.ALARM_GROUP}"
    iterator = names[f"{prefix}-IteratorAge-Critical"]
    assert iterator["MetricName"] == "IteratorAge" and iterator["Statistic"] == "Maximum"
    queue = names[f"{prefix}-FailureQueue-Critical"]
    assert queue["MetricName"] == "ApproximateNumberOfMessagesVisible" and queue["Threshold"] == 0
    oldest = names[f"{prefix}-OldestUnsettled-Critical"]
    assert oldest["MetricName"] == "OldestUnsettledAgeSeconds" and oldest["TreatMissingData"] == "breaching"
