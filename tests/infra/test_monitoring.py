"""Dashboard, alarms and the encrypted alarm topic."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from aws_cdk.assertions import Match, Template

from infra import constants

if TYPE_CHECKING:
    from conftest import Synth


def _dashboard_body(synth: Synth) -> str:
    (dashboard,) = synth.of_type("AWS::CloudWatch::Dashboard").values()
    # DashboardBody is an Fn::Join of literal JSON fragments and references; the literals are what we check.
    return json.dumps(dashboard["Properties"]["DashboardBody"])


def test_dashboard_shows_api_functions_table_and_custom_metrics(synth: Synth) -> None:
    body = _dashboard_body(synth)
    for metric in ("4XXError", "5XXError", "Latency", "Errors", "Throttles", "Duration"):
        assert f'\\"{metric}\\"' in body, metric
    for metric in ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ThrottledRequests", "SystemErrors"):
        assert metric in body, metric
    for metric in constants.CUSTOM_METRICS:
        assert f'[\\"ddbguard\\",\\"{metric}\\",\\"service\\",\\"ddbguard\\"' in body, metric
    for _handler, (logical_id, _props) in synth.functions_by_handler().items():
        assert logical_id in body


def _alarms(synth: Synth) -> dict[str, dict[str, Any]]:
    return {key: value["Properties"] for key, value in synth.of_type("AWS::CloudWatch::Alarm").items()}


def test_every_alarm_fires_above_zero_and_notifies_the_topic(synth: Synth) -> None:
    (topic_id,) = synth.of_type("AWS::SNS::Topic")
    alarms = _alarms(synth)
    assert alarms
    for alarm in alarms.values():
        assert alarm["Threshold"] == 0
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold"
        assert alarm["AlarmActions"] == [{"Ref": topic_id}]
        assert alarm["TreatMissingData"] == "notBreaching"


def test_api_5xx_alarm(synth: Synth) -> None:
    assert any(
        alarm.get("MetricName") == "5XXError" and alarm.get("Namespace") == "AWS/ApiGateway"
        for alarm in _alarms(synth).values()
    )


def test_each_function_has_an_errors_alarm(synth: Synth) -> None:
    alarmed = {
        alarm["Dimensions"][0]["Value"]["Ref"]
        for alarm in _alarms(synth).values()
        if alarm.get("MetricName") == "Errors" and alarm.get("Namespace") == "AWS/Lambda"
    }
    assert alarmed == set(synth.of_type("AWS::Lambda::Function"))


def test_table_throttle_and_system_error_alarms(synth: Synth) -> None:
    names = set()
    for alarm in _alarms(synth).values():
        for query in alarm.get("Metrics", []):
            stat = query.get("MetricStat")
            if stat and stat["Metric"]["Namespace"] == "AWS/DynamoDB":
                names.add(stat["Metric"]["MetricName"])
    assert {"ThrottledRequests", "SystemErrors"} <= names


def test_busy_alarm(template: Template) -> None:
    template.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "Namespace": "ddbguard",
            "MetricName": "Busy",
            "Dimensions": [{"Name": "service", "Value": "ddbguard"}],
            "Statistic": "Sum",
        },
    )


def test_alarm_topic_is_encrypted_and_requires_tls(template: Template, synth: Synth) -> None:
    (key_id,) = synth.of_type("AWS::KMS::Key")
    template.has_resource_properties("AWS::KMS::Key", {"EnableKeyRotation": True})
    template.has_resource_properties("AWS::SNS::Topic", {"KmsMasterKeyId": {"Fn::GetAtt": [key_id, "Arn"]}})
    template.has_resource_properties(
        "AWS::SNS::TopicPolicy",
        {
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [
                        Match.object_like({"Effect": "Deny", "Condition": {"Bool": {"aws:SecureTransport": "false"}}}),
                        Match.object_like({"Effect": "Allow", "Principal": {"Service": "cloudwatch.amazonaws.com"}}),
                    ]
                )
            }
        },
    )


def test_cloudwatch_may_use_the_topic_key(template: Template) -> None:
    template.has_resource_properties(
        "AWS::KMS::Key",
        {
            "KeyPolicy": {
                "Statement": Match.array_with(
                    [
                        Match.object_like(
                            {
                                "Principal": {"Service": "cloudwatch.amazonaws.com"},
                                "Action": ["kms:Decrypt", "kms:GenerateDataKey*"],
                            }
                        )
                    ]
                )
            }
        },
    )


def test_dashboard_metrics_are_exactly_the_ones_the_layer_emits() -> None:
    from ddbguard.observability import MetricName

    emitted = {value for name, value in vars(MetricName).items() if name.isupper()}
    assert set(constants.CUSTOM_METRICS) == emitted


def test_lock_audit_unrepaired_findings_alarm(synth: Synth) -> None:
    alarms = _alarms(synth)
    assert any(a.get("MetricName") == constants.LOCK_AUDIT_UNREPAIRED_METRIC for a in alarms.values())
