"""Dashboard, alarms and the alarm topic (cdk-monitoring-constructs): every alarm notifies, every threshold and
evaluation window comes from CDK context, subscribers come from context, the dashboard covers API, functions, table.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest
from aws_cdk.assertions import Match, Template

from infra import constants, settings
from infra import settlement as settlement_infra
from infra.route_stacks import route_groups
from routes import ROUTES

from .conftest import CUSTOM_CONTEXT

if TYPE_CHECKING:
    from conftest import Synth

LOCK_AUDIT_PERIOD_S = 3600


def _alarms(synth: Synth) -> dict[str, dict[str, Any]]:
    return {
        value["Properties"]["AlarmName"]: value["Properties"]
        for value in synth.of_type("AWS::CloudWatch::Alarm").values()
    }


def _context(synth: Synth) -> dict[str, float]:
    """Each numeric context key as the stack saw it (the default unless the synth set it)."""
    values = {}
    for key in settings.ALL_KEYS:
        raw = synth.stack.node.try_get_context(key.name)
        if isinstance(key.default, (int, float)) and not isinstance(key.default, bool):
            values[key.name] = float(key.default if raw in (None, "") else raw)
    return values


def _metric_stats(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    if "MetricName" in alarm:
        return [{"Metric": {"MetricName": alarm["MetricName"], "Dimensions": alarm.get("Dimensions", [])}, **alarm}]
    return [query["MetricStat"] for query in alarm["Metrics"] if "MetricStat" in query]


def _function_timeouts_ms(synth: Synth) -> dict[str, int]:
    return {
        logical_id: props["Properties"]["Timeout"] * 1000
        for logical_id, props in synth.of_type("AWS::Lambda::Function").items()
    }


def _expected(synth: Synth, name: str, alarm: dict[str, Any]) -> tuple[float, int, int, int]:
    """(threshold, evaluation periods, datapoints to alarm, period in seconds) the context asks for."""
    ctx = _context(synth)
    n_of_m = (int(ctx["alarmEvaluationPeriods"]), int(ctx["alarmDatapointsToAlarm"]))
    period = int(ctx["alarmPeriodMinutes"]) * 60
    suffix = name.removeprefix(f"{constants.STACK_ID}-")
    if suffix.startswith("Integrity-LockAudit"):
        return 0, 1, 1, LOCK_AUDIT_PERIOD_S
    if suffix.startswith("LockAuditCoverage-"):  # one run a day reports it
        return 0, 1, 1, 86_400
    if suffix == f"{settlement_infra.ALARM_GROUP}-OldestUnsettled-Critical":  # one datapoint per sweep
        evaluation = (
            settlement_infra.OLDEST_UNSETTLED_EVALUATION_PERIODS,
            settlement_infra.OLDEST_UNSETTLED_DATAPOINTS,
        )
        return settlement_infra.OLDEST_UNSETTLED_S, *evaluation, int(settlement_infra.SWEEP_EVERY.to_seconds())
    if suffix.startswith("AuditLocks-"):
        n_of_m = (1, 1)  # the audit runs once a day: its one datapoint decides
    rules: list[tuple[str, float]] = [
        (r"^ApiStatus-ClientErrorRate-Warning$", ctx["api4xxRatePercent"] / 100),
        (r"^Api[A-Za-z]*-Fault-Rate-Critical$", ctx["api5xxRatePercent"] / 100),
        (r"^Api[A-Za-z]*-Latency-P99-Warning$", ctx["apiLatencyP99Ms"]),
        (r"^Table-(Read|Write)-Throttled-Events-Warning$", ctx["tableThrottleCount"]),
        (r"^TableGuards-TableSystemErrors-Critical$", ctx["tableSystemErrorCount"]),
        (r"^Integrity-BusyRate-Critical$", ctx["busyRatePercent"] / 100),
        (r"^Pager-Test-Critical$", 0),
        (r"^Integrity-TransactionRetry-Warning$", ctx["transactionRetryCount"]),
        (rf"^{settlement_infra.ALARM_GROUP}-IteratorAge-Critical$", settlement_infra.ITERATOR_AGE_MS),
        (rf"^{settlement_infra.ALARM_GROUP}-FailureQueue-Critical$", 0),
        (r"^[A-Za-z]+-Fault-Count-(Critical|Warning)$", ctx["functionErrorCount"]),
        (r"^[A-Za-z]+-Throttled-Count-(Critical|Warning)$", ctx["functionThrottleCount"]),
        (r"^[A-Za-z]+-Running-Tasks-High-Warning$", ctx["functionConcurrentExecutions"]),
    ]
    for pattern, threshold in rules:
        if re.match(pattern, suffix):
            return threshold, *n_of_m, period
    if re.match(r"^[A-Za-z]+-Latency-P99-Warning$", suffix):
        (stat,) = _metric_stats(alarm)
        (dimension,) = stat["Metric"]["Dimensions"]
        timeout = _function_timeouts_ms(synth)[dimension["Value"]["Ref"]]
        return timeout * ctx["functionDurationP99Percent"] / 100, *n_of_m, period
    raise AssertionError(f"alarm {name} is not covered by a context key")


@pytest.fixture(params=["default", "custom"])
def any_synth(request: pytest.FixtureRequest) -> Synth:
    return request.getfixturevalue("synth" if request.param == "default" else "custom_synth")


def test_every_threshold_and_evaluation_window_comes_from_context(any_synth: Synth) -> None:
    alarms = _alarms(any_synth)
    assert len(alarms) > 100
    for name, alarm in alarms.items():
        threshold, evaluation_periods, datapoints, period = _expected(any_synth, name, alarm)
        assert alarm["Threshold"] == pytest.approx(threshold), name
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold", name
        assert (alarm["EvaluationPeriods"], alarm["DatapointsToAlarm"]) == (evaluation_periods, datapoints), name
        assert {stat["Period"] for stat in _metric_stats(alarm)} == {period}, name


def test_no_request_alarm_pages_on_a_single_datapoint(synth: Synth) -> None:
    for name, alarm in _alarms(synth).items():
        if "LockAudit" in name or name.startswith(f"{constants.STACK_ID}-AuditLocks-"):
            continue
        assert alarm["DatapointsToAlarm"] >= 2 and alarm["EvaluationPeriods"] > alarm["DatapointsToAlarm"], name


def test_an_unrepaired_lock_audit_finding_alarms_on_the_first_occurrence(synth: Synth) -> None:
    alarms = _alarms(synth)
    alarm = alarms[f"{constants.STACK_ID}-Integrity-LockAuditUnrepaired-Critical"]
    (stat,) = _metric_stats(alarm)
    assert stat["Metric"] == {
        "Namespace": "ddbguard",
        "MetricName": "LockAuditUnrepaired",
        "Dimensions": [{"Name": "service", "Value": "ddbguard"}],
    }
    assert (alarm["Threshold"], alarm["EvaluationPeriods"], alarm["DatapointsToAlarm"]) == (0, 1, 1)


def test_only_an_unrepaired_finding_of_the_audit_is_critical(synth: Synth) -> None:
    critical = [
        name for name in _alarms(synth) if name.endswith("-Critical") and ("AuditLocks" in name or "LockAudit" in name)
    ]
    assert critical == [f"{constants.STACK_ID}-Integrity-LockAuditUnrepaired-Critical"]


def test_a_run_that_did_not_cover_the_whole_table_warns_also_when_it_did_not_report(synth: Synth) -> None:
    alarm = _alarms(synth)[f"{constants.STACK_ID}-LockAuditCoverage-Uncovered-Warning"]
    (stat,) = _metric_stats(alarm)
    assert stat["Metric"]["MetricName"] == "LockAuditUncoveredSegments"
    assert (alarm["Threshold"], alarm["EvaluationPeriods"], alarm["DatapointsToAlarm"]) == (0, 1, 1)
    assert alarm["TreatMissingData"] == "breaching" and stat["Period"] == 86_400


def test_a_repaired_lock_audit_finding_pages_nobody(synth: Synth) -> None:
    watched = {stat["Metric"]["MetricName"] for alarm in _alarms(synth).values() for stat in _metric_stats(alarm)}
    assert "LockAuditFinding" not in watched


def _topics(synth: Synth) -> tuple[str, str]:
    """(critical topic, warning topic) logical ids."""
    topics = synth.of_type("AWS::SNS::Topic")
    (critical,) = [logical_id for logical_id in topics if logical_id.startswith("MonitoringAlarmTopic")]
    (warning,) = [logical_id for logical_id in topics if logical_id.startswith("MonitoringWarningTopic")]
    return critical, warning


def test_critical_and_warning_alarms_notify_their_own_topic_on_alarm_and_on_recovery(synth: Synth) -> None:
    critical, warning = _topics(synth)
    assert len(synth.of_type("AWS::SNS::Topic")) == 2
    for name, alarm in _alarms(synth).items():
        topic = critical if name.endswith("-Critical") else warning
        assert name.endswith(("-Critical", "-Warning")), name
        assert alarm["AlarmActions"] == [{"Ref": topic}], name
        assert alarm["OKActions"] == [{"Ref": topic}], name
        assert alarm.get("ActionsEnabled", True) is True, name


def test_an_existing_topic_from_context_gets_the_critical_alarms_only(custom_synth: Synth) -> None:
    critical, _warning = _topics(custom_synth)
    for name, alarm in _alarms(custom_synth).items():
        reaches_on_call = CUSTOM_CONTEXT["alarmTopicArn"] in alarm["AlarmActions"]
        assert reaches_on_call == name.endswith("-Critical"), name
        if reaches_on_call:
            assert {"Ref": critical} in alarm["AlarmActions"], name


def test_no_subscription_without_context(synth: Synth) -> None:
    assert synth.of_type("AWS::SNS::Subscription") == {}


def test_subscriptions_come_from_context(custom_synth: Synth) -> None:
    critical, warning = _topics(custom_synth)
    found: dict[str, set[tuple[str, str]]] = {critical: set(), warning: set()}
    for props in custom_synth.of_type("AWS::SNS::Subscription").values():
        found[props["Properties"]["TopicArn"]["Ref"]].add(
            (props["Properties"]["Protocol"], props["Properties"]["Endpoint"])
        )
    emails = {("email", address) for address in CUSTOM_CONTEXT["alarmEmails"].split(",")}
    # The webhook is a pager: Critical only. Emails are an inbox: both.
    assert found[critical] == emails | {("https", CUSTOM_CONTEXT["alarmWebhookUrl"])}
    assert found[warning] == emails


def test_each_route_has_5xx_rate_and_p99_alarms_and_each_function_four(synth: Synth) -> None:
    names = set(_alarms(synth))
    for route in ROUTES:
        for kind in ("Fault-Rate-Critical", "Latency-P99-Warning"):
            assert f"{constants.STACK_ID}-Api{route.construct_id}-{kind}" in names
    function_names = [route.construct_id for route in ROUTES] + ["AuditLocks", "SettleEntries"]
    for name in function_names:
        # The audit is a batch job: its faults and throttles are retried by its run and warn; it pages only for
        # an unrepaired finding.
        severity = "Warning" if name == "AuditLocks" else "Critical"
        for kind in (f"Fault-Count-{severity}", f"Throttled-Count-{severity}", "Latency-P99-Warning"):
            assert f"{constants.STACK_ID}-{name}-{kind}" in names
    # Concurrency warns for the route functions only: the background functions are bounded by their source (and
    # cannot exceed a reservation; running out shows as throttles, which alarm).
    for name in function_names:
        expected = name not in {"AuditLocks", "SettleEntries"}
        assert (f"{constants.STACK_ID}-{name}-Running-Tasks-High-Warning" in names) == expected, name


def _dashboard_body(synth: Synth) -> str:
    """Every dashboard's body: the stack's (stage, background functions, table, integrity) and one per route group
    (its routes and their functions; a dashboard holds at most 500 widgets, so one could not hold them all)."""
    dashboards = synth.of_type("AWS::CloudWatch::Dashboard").values()
    names = sorted(dashboard["Properties"]["DashboardName"] for dashboard in dashboards)
    groups = [group.name for group in route_groups(ROUTES)]
    assert names == sorted([synth.stack.stack_name, *(f"{synth.stack.stack_name}-{name}" for name in groups)])
    # DashboardBody is an Fn::Join of literal JSON fragments and references.
    return json.dumps([dashboard["Properties"]["DashboardBody"] for dashboard in dashboards])


def test_dashboard_has_widgets_for_the_api_every_route_function_and_the_table(synth: Synth) -> None:
    body = _dashboard_body(synth)
    for metric in ("4XXError", "5XXError", "Latency", "Count"):
        assert f'\\"AWS/ApiGateway\\",\\"{metric}\\"' in body, metric
    for route in ROUTES:
        assert f'\\"Method\\",\\"{route.method}\\",\\"Resource\\",\\"{route.path}\\"' in body, route.key
    for logical_id in synth.of_type("AWS::Lambda::Function"):
        assert json.dumps({"Ref": logical_id}) in body, logical_id
    for metric in ("Errors", "Throttles", "Duration", "ConcurrentExecutions"):
        assert f'\\"AWS/Lambda\\",\\"{metric}\\"' in body, metric
    (table_id,) = synth.of_type("AWS::DynamoDB::Table")
    assert json.dumps({"Ref": table_id}) in body
    for metric in (
        "ConsumedReadCapacityUnits",
        "ConsumedWriteCapacityUnits",
        "ReadThrottleEvents",
        "WriteThrottleEvents",
        "SystemErrors",
        "ConditionalCheckFailedRequests",
        "TransactionConflict",
    ):
        assert f'\\"{metric}\\"' in body, metric
    for metric in constants.CUSTOM_METRICS:
        assert f'[\\"ddbguard\\",\\"{metric}\\",\\"service\\",\\"ddbguard\\"' in body, metric


def test_dashboard_metrics_are_exactly_the_ones_the_layer_emits() -> None:
    import local  # noqa: F401 - the layer on sys.path
    from ddbguard.observability import MetricName

    emitted = {value for name, value in vars(MetricName).items() if name.isupper()}
    assert set(constants.CUSTOM_METRICS) == emitted


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


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("alarmDatapointsToAlarm", "9"),
        ("alarmEvaluationPeriods", "zero"),
        ("alarmEmails", "not-an-address"),
        ("alarmWebhookUrl", "http://plain.example.com"),
        ("powertoolsPublicLayer", "maybe"),
    ],
)
def test_bad_context_fails_synthesis_with_the_key_named(key: str, value: str) -> None:
    from aws_cdk import App

    from infra.stack import DdbguardStack, cdk_json_context

    app = App(context={**cdk_json_context(), key: value})
    with pytest.raises(Exception, match=key):
        DdbguardStack(app, constants.STACK_ID)
