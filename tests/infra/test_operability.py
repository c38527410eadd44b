"""What an operator of a real account relies on: alarms that can fire and page the right people, a first deploy that
fails safely, configuration that cannot be forgotten, and the API, Cognito and concurrency as configured.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from infra import constants, environments
from infra.monitoring import PAGE_TEST_GROUP, PAGE_TEST_METRIC
from infra.settlement import SWEEPER_HANDLER
from infra.stack import build_app
from routes import ROUTES

from .conftest import CUSTOM_CONTEXT
from .stack_templates import flat_template

if TYPE_CHECKING:
    from conftest import Synth

REPO_ROOT = Path(__file__).resolve().parents[2]
# API Gateway ends every integration after 29 s: no latency above that can be measured.
INTEGRATION_TIMEOUT_MS = 29_000
OPERATOR_CONTEXT = {
    "apiDomainName": "api.example.com",
    "apiCertificateArn": "arn:aws-cn:acm:cn-north-1:111122223333:certificate/0f0e0d0c",
    "oauthCallbackUrls": "https://app.example.com/callback",
    "sesFromEmail": "no-reply@example.com",
    "monitoringProfile": "lean",
}


@pytest.fixture(scope="module")
def operator_template() -> dict[str, Any]:
    """The stack with a custom domain, OAuth callbacks, SES and the lean monitoring profile (cdk-nag runs here)."""
    app, stack = build_app(context=OPERATOR_CONTEXT)
    return flat_template(app, stack)


def _of_type(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {key: value for key, value in template["Resources"].items() if value["Type"] == kind}


# --- a first deploy that can fail safely -------------------------------------------------------------------


def test_every_retained_resource_is_retained_except_on_create(synth: Synth) -> None:
    retained = {
        value["Type"]
        for value in synth.resources.values()
        if value.get("DeletionPolicy", "Delete") != "Delete" or value.get("UpdateReplacePolicy", "Delete") != "Delete"
    }
    assert retained == {
        "AWS::DynamoDB::Table",
        "AWS::Cognito::UserPool",
        "AWS::IAM::Role",
        "AWS::ApiGateway::Account",
        # The access log and the WAF log are kept as long as configured, also after the stack is gone.
        "AWS::Logs::LogGroup",
        # The backup vault holds the table's recovery points.
        "AWS::Backup::BackupVault",
    }
    retained_logs = {
        value["Properties"].get("LogGroupName", logical_id)
        for logical_id, value in synth.of_type("AWS::Logs::LogGroup").items()
        if value.get("DeletionPolicy", "Delete") != "Delete"
    }
    assert len(retained_logs) == 2 and any("aws-waf-logs-" in str(name) for name in retained_logs)
    for value in synth.resources.values():
        kept = value.get("DeletionPolicy", "Delete") != "Delete"
        # A plain Retain would also keep what a failed deploy created, and a retry would fail on its fixed name.
        if value["Type"] in retained and kept:
            assert value["DeletionPolicy"] == "RetainExceptOnCreate", value["Type"]


# --- configuration committed per environment ---------------------------------------------------------------


def test_synth_diff_and_deploy_use_the_named_environments_configuration() -> None:
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^ENV\s*\?=\s*$", makefile, re.M)  # no default: tests/infra/test_environments.py
    for target in ("synth", "diff"):
        (recipe,) = re.findall(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.M)
        assert "$(ENV_CONTEXT)" in recipe, target
    for target in ("synth", "diff", "deploy", "destroy"):
        assert re.search(rf"^{target}: require-env", makefile, re.M), target
    assert (REPO_ROOT / "config" / "dev.json").is_file()


def test_the_environment_file_fills_context_and_the_command_line_wins() -> None:
    app, _stack = build_app(
        context={
            "environment": "prod",
            "auditReservedConcurrency": "7",
            "alarmTopicArn": "arn:aws:sns:us-east-1:111122223333:oncall",
            "sesFromEmail": "no-reply@example.com",
        }
    )
    prod = environments.load("prod")
    assert app.node.try_get_context("monitoringProfile") == prod["monitoringProfile"]
    assert app.node.try_get_context("settlementReservedConcurrency") == prod["settlementReservedConcurrency"]
    assert app.node.try_get_context("auditReservedConcurrency") == "7"


@pytest.mark.parametrize("path", sorted((REPO_ROOT / "config").glob("*.json")), ids=lambda path: path.name)
def test_every_committed_configuration_is_valid_and_holds_no_secret(path: Path) -> None:
    values = environments.load(path.stem)  # unknown keys and secret-looking values raise
    text = json.dumps(values).lower()
    for word in ("password", "secret", "token=", "apikey", "aws_access_key"):
        assert word not in text, word
    assert values


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"alarmEmail": "typo@example.com"}, "not a context key"),
        ({"alarmWebhookUrl": "https://events.example.com/sns?integrationKey=abc"}, "credentials"),
    ],
)
def test_a_bad_configuration_file_fails_synthesis(
    values: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "broken.json").write_text(json.dumps(values), encoding="utf-8")
    monkeypatch.setattr(environments, "CONFIG_DIR", tmp_path)
    with pytest.raises(ValueError, match=message):
        environments.load("broken")


# --- the API as configured ------------------------------------------------------------------------------------


def test_the_method_throttles_add_up_to_the_stated_stage_budget(synth: Synth) -> None:
    (stage,) = synth.of_type("AWS::ApiGateway::Stage").values()
    settings = {(entry["ResourcePath"], entry["HttpMethod"]): entry for entry in stage["Properties"]["MethodSettings"]}
    default = settings.pop(("/*", "*"))
    methods = synth.methods()
    total_rate = total_burst = 0.0
    for verb, path in methods:
        entry = settings.get(("/" + path.replace("/", "~1"), verb), default)
        total_rate += entry["ThrottlingRateLimit"]
        total_burst += entry["ThrottlingBurstLimit"]
    assert {verb for _path, verb in settings} | {"ANY"} >= {route.method for route in ROUTES}
    assert len(settings) == len(ROUTES)
    assert 0.95 * 100 <= total_rate <= 100  # apiStageRateLimit's default, not 32 times it
    assert 0.9 * 200 <= total_burst <= 200
    for entry in settings.values():  # an override replaces the whole `*/*` entry of its method
        assert (entry["LoggingLevel"], entry["MetricsEnabled"], entry["DataTraceEnabled"]) == ("ERROR", True, False)


def test_the_access_log_has_no_source_ip_or_raw_path_and_names_integration_errors(synth: Synth) -> None:
    (stage,) = synth.of_type("AWS::ApiGateway::Stage").values()
    log_format = stage["Properties"]["AccessLogSetting"]["Format"]
    assert "$context.identity.sourceIp" not in log_format
    assert "$context.path" not in log_format
    assert json.loads(log_format)["integrationError"] == "$context.integrationErrorMessage"


def test_the_execution_log_group_is_managed_with_retention(synth: Synth) -> None:
    (api_id,) = synth.of_type("AWS::ApiGateway::RestApi")
    (stage_id,) = synth.of_type("AWS::ApiGateway::Stage")
    groups = {
        logical_id: value
        for logical_id, value in synth.of_type("AWS::Logs::LogGroup").items()
        if "API-Gateway-Execution-Logs_" in json.dumps(value["Properties"].get("LogGroupName"))
    }
    ((group_id, group),) = groups.items()
    assert {"Ref": api_id} in group["Properties"]["LogGroupName"]["Fn::Join"][1]
    assert group["Properties"]["RetentionInDays"] == 30
    assert group_id in synth.resources[stage_id].get("DependsOn", [])  # exists before API Gateway would create it


def test_a_wrong_method_answers_405_whatever_the_body(synth: Synth) -> None:
    """No request template: any content type reaches the mock, whose only (default) response is 405."""
    for (verb, path), method in synth.methods().items():
        if verb != "ANY":
            continue
        integration = method["Integration"]
        assert "RequestTemplates" not in integration, path
        assert integration["PassthroughBehavior"] == "WHEN_NO_TEMPLATES", path
        (response,) = integration["IntegrationResponses"]
        assert "SelectionPattern" not in response and response["StatusCode"] == "405", path


def test_without_a_domain_there_is_no_domain_and_execute_api_stays(synth: Synth) -> None:
    assert synth.of_type("AWS::ApiGateway::DomainName") == {}
    (api,) = synth.of_type("AWS::ApiGateway::RestApi").values()
    assert not api["Properties"].get("DisableExecuteApiEndpoint", False)


def test_the_default_endpoint_refuses_tls_below_1_2(synth: Synth) -> None:
    (api,) = synth.of_type("AWS::ApiGateway::RestApi").values()
    assert api["Properties"]["SecurityPolicy"] == "TLS_1_2"
    assert api["Properties"].get("DisableExecuteApiEndpoint") in (None, False)


def test_a_custom_domain_serves_tls_1_2_and_disables_execute_api(operator_template: dict[str, Any]) -> None:
    (domain,) = _of_type(operator_template, "AWS::ApiGateway::DomainName").values()
    assert domain["Properties"]["DomainName"] == OPERATOR_CONTEXT["apiDomainName"]
    assert domain["Properties"]["SecurityPolicy"] == "TLS_1_2"
    assert domain["Properties"]["RegionalCertificateArn"] == OPERATOR_CONTEXT["apiCertificateArn"]
    (api,) = _of_type(operator_template, "AWS::ApiGateway::RestApi").values()
    assert api["Properties"]["DisableExecuteApiEndpoint"] is True
    assert _of_type(operator_template, "AWS::ApiGateway::BasePathMapping")
    assert operator_template["Outputs"]["ApiUrl"]["Value"] == f"https://{OPERATOR_CONTEXT['apiDomainName']}/"


# --- Cognito ----------------------------------------------------------------------------------------------------


def test_oauth_is_off_on_the_client_by_default(synth: Synth) -> None:
    (client,) = synth.of_type("AWS::Cognito::UserPoolClient").values()
    props = client["Properties"]
    assert props["AllowedOAuthFlowsUserPoolClient"] is False
    assert "AllowedOAuthFlows" not in props and "CallbackURLs" not in props


def test_configured_oauth_is_the_code_flow_only(operator_template: dict[str, Any]) -> None:
    (client,) = _of_type(operator_template, "AWS::Cognito::UserPoolClient").values()
    props = client["Properties"]
    assert props["AllowedOAuthFlows"] == ["code"]
    assert props["CallbackURLs"] == [OPERATOR_CONTEXT["oauthCallbackUrls"]]


def test_email_goes_through_ses_when_configured(synth: Synth, operator_template: dict[str, Any]) -> None:
    (default_pool,) = synth.of_type("AWS::Cognito::UserPool").values()
    assert default_pool["Properties"].get("EmailConfiguration", {}).get("EmailSendingAccount") != "DEVELOPER"
    (pool,) = _of_type(operator_template, "AWS::Cognito::UserPool").values()
    email = pool["Properties"]["EmailConfiguration"]
    assert email["EmailSendingAccount"] == "DEVELOPER"
    assert email["From"] == OPERATOR_CONTEXT["sesFromEmail"]


def test_the_admin_mfa_decision_is_recorded() -> None:
    records = [path.read_text(encoding="utf-8") for path in (REPO_ROOT / "docs" / "decisions").glob("[0-9]*.md")]
    assert any(record.startswith("# ") and "Admin MFA" in record.splitlines()[0] for record in records)


# --- reserved concurrency ---------------------------------------------------------------------------------------


RESERVED_BY_HANDLER = {
    constants.SETTLEMENT_HANDLER: "settlementReservedConcurrency",
    constants.AUDIT_HANDLER: "auditReservedConcurrency",
    SWEEPER_HANDLER: "sweeperReservedConcurrency",
}


def test_nothing_is_reserved_by_default_so_a_new_account_can_take_the_stack(synth: Synth) -> None:
    for handler, (_logical_id, props) in synth.functions_by_handler().items():
        assert "ReservedConcurrentExecutions" not in props, handler


def test_each_reservation_is_configurable(custom_synth: Synth) -> None:
    functions = custom_synth.functions_by_handler()
    for handler, key in RESERVED_BY_HANDLER.items():
        _logical_id, props = functions[handler]
        assert props["ReservedConcurrentExecutions"] == int(CUSTOM_CONTEXT[key]), handler


def test_the_audit_map_never_runs_more_segments_than_reserved_executions_and_no_function_invokes(
    synth: Synth, custom_synth: Synth
) -> None:
    # Unreserved (the default), the Map runs the default segment count; reserved, exactly the reservation.
    for template, expected in (
        (synth, constants.AUDIT_DEFAULT_SEGMENTS),
        (custom_synth, int(CUSTOM_CONTEXT["auditReservedConcurrency"])),
    ):
        (machine,) = template.of_type("AWS::StepFunctions::StateMachine").values()
        definition = json.dumps(machine["Properties"]["DefinitionString"])
        assert f'\\"MaxConcurrency\\":{expected}' in definition
    for handler, (_other_id, other) in synth.functions_by_handler().items():
        assert not any("lambda:" in json.dumps(s["Action"]) for s in synth.role_statements(other)), handler


# --- paging that means something ----------------------------------------------------------------------------


def _alarms(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        value["Properties"]["AlarmName"]: value["Properties"]
        for value in _of_type(template, "AWS::CloudWatch::Alarm").values()
    }


def _stats(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    if "MetricName" in alarm:
        return [
            {
                "Metric": {k: alarm.get(k) for k in ("Namespace", "MetricName", "Dimensions")},
                "Stat": alarm.get("Statistic"),
            }
        ]
    return [query["MetricStat"] for query in alarm["Metrics"] if "MetricStat" in query]


def _dimension(stat: dict[str, Any], name: str) -> Any:
    return next((d["Value"] for d in stat["Metric"].get("Dimensions") or [] if d["Name"] == name), None)


def _emitted_custom_metrics(template: dict[str, Any]) -> set[str]:
    filters = {
        transformation["MetricName"]
        for value in _of_type(template, "AWS::Logs::MetricFilter").values()
        for transformation in value["Properties"]["MetricTransformations"]
    }
    return filters | set(constants.CUSTOM_METRICS)


def _route_ceiling(template: dict[str, Any], function_id: str) -> float | None:
    """Most concurrent executions of a route's function under its method throttle; None when no route calls it."""
    (stage,) = _of_type(template, "AWS::ApiGateway::Stage").values()
    routes = [s for s in stage["Properties"]["MethodSettings"] if s["HttpMethod"] != "*"]
    # The API invokes the function itself, or with SnapStart on its `live` alias.
    targets = [{"Fn::GetAtt": [function_id, "Arn"]}] + [
        {"Ref": alias_id}
        for alias_id, alias in _of_type(template, "AWS::Lambda::Alias").items()
        if alias["Properties"]["FunctionName"] == {"Ref": function_id}
    ]
    invoked_by_api = any(
        props["FunctionName"] in targets and props["Principal"] == "apigateway.amazonaws.com"
        for props in (value["Properties"] for value in _of_type(template, "AWS::Lambda::Permission").values())
    )
    if not invoked_by_api:
        return None
    timeout = template["Resources"][function_id]["Properties"]["Timeout"]
    return max(s["ThrottlingBurstLimit"] + s["ThrottlingRateLimit"] * timeout for s in routes)


def _unreachable(template: dict[str, Any], name: str, alarm: dict[str, Any]) -> list[str]:
    """Why an alarm could never fire: a metric the stack does not emit, or a threshold the metric cannot pass."""
    problems = []
    resources = template["Resources"]
    threshold = alarm["Threshold"]
    expressions = [query["Expression"] for query in alarm.get("Metrics", []) if "Expression" in query]
    if any("/" in expression for expression in expressions) and threshold >= 1:
        problems.append(f"{name}: a ratio never exceeds 1")
    for stat in _stats(alarm):
        namespace, metric = stat["Metric"]["Namespace"], stat["Metric"]["MetricName"]
        if namespace == "AWS/Lambda":
            function_id = _dimension(stat, "FunctionName")["Ref"]
            props = resources[function_id]["Properties"]
            if metric == "ConcurrentExecutions":
                ceiling = props.get("ReservedConcurrentExecutions") or _route_ceiling(template, function_id) or 1
                if threshold >= ceiling:
                    problems.append(f"{name}: concurrency cannot pass {ceiling}")
            if metric == "Duration" and threshold >= props["Timeout"] * 1000:
                problems.append(f"{name}: a duration cannot exceed the timeout")
        elif namespace == "AWS/ApiGateway":
            if _dimension(stat, "ApiName") != constants.API_NAME or _dimension(stat, "Stage") != constants.API_STAGE:
                problems.append(f"{name}: not this API's stage")
            if metric == "Latency" and threshold >= INTEGRATION_TIMEOUT_MS:
                problems.append(f"{name}: latency is cut at 29 s")
            if metric in ("4XXError", "5XXError") and stat["Stat"] == "Average" and threshold >= 1:
                problems.append(f"{name}: an error rate never exceeds 1")
        elif namespace == "AWS/DynamoDB":
            if _dimension(stat, "TableName") not in [
                {"Ref": key} for key in _of_type(template, "AWS::DynamoDB::Table")
            ]:
                problems.append(f"{name}: not this stack's table")
        elif namespace == "AWS/SQS":
            if _dimension(stat, "QueueName") not in [
                {"Fn::GetAtt": [key, "QueueName"]} for key in _of_type(template, "AWS::SQS::Queue")
            ]:
                problems.append(f"{name}: not this stack's queue")
        elif namespace == constants.METRICS_NAMESPACE:
            # The page-test alarm's metric is never emitted on purpose: `make page-test` sets its state by hand.
            page_test = metric == PAGE_TEST_METRIC and name.endswith(f"-{PAGE_TEST_GROUP}-Test-Critical")
            if metric not in _emitted_custom_metrics(template) and not page_test:
                problems.append(f"{name}: nothing emits {metric}")
        else:
            problems.append(f"{name}: unknown namespace {namespace}")
    return problems


@pytest.mark.parametrize("which", ["default", "custom", "operator"])
def test_every_alarm_watches_an_emitted_metric_with_a_reachable_threshold(
    which: str, request: pytest.FixtureRequest
) -> None:
    if which == "operator":
        template = request.getfixturevalue("operator_template")
    else:
        template = request.getfixturevalue("synth" if which == "default" else "custom_synth").json
    alarms = _alarms(template)
    assert alarms
    problems = [problem for name, alarm in alarms.items() for problem in _unreachable(template, name, alarm)]
    assert problems == []


def test_the_table_system_error_alarm_fills_every_operation(synth: Synth) -> None:
    (alarm,) = [a for name, a in _alarms(synth.json).items() if "SystemErrors" in name]
    operations = {_dimension(stat, "Operation") for stat in _stats(alarm)}
    assert operations == set(constants.TABLE_OPERATIONS)
    assert "TransactWriteItems" in operations  # the money path
    ids = [query["Id"] for query in alarm["Metrics"] if "MetricStat" in query]
    (expression,) = [query["Expression"] for query in alarm["Metrics"] if "Expression" in query]
    assert sorted(re.findall(r"FILL\((\w+), 0\)", expression)) == sorted(ids)
    assert alarm["TreatMissingData"] == "notBreaching"


def test_every_operation_the_code_names_is_in_the_system_error_alarm() -> None:
    """The layer's own DynamoDB calls (boto3 method names, called or named for getattr), and Powertools'."""
    snake = {re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower(): operation for operation in constants.TABLE_OPERATIONS}
    code = "\n".join(path.read_text(encoding="utf-8") for path in (REPO_ROOT / "functions").rglob("*.py"))
    named = set(
        re.findall(
            r"\b(get_item|put_item|update_item|delete_item|query|scan|batch_get_item|batch_write_item|transact_write_items|transact_get_items|execute_statement|execute_transaction|batch_execute_statement)\b",
            code,
        )
    )
    assert named <= set(snake), sorted(named - set(snake))


def test_the_client_error_alarm_counts_client_statuses_only(synth: Synth) -> None:
    patterns = {
        value["Properties"]["MetricTransformations"][0]["MetricName"]: value["Properties"]["FilterPattern"]
        for value in synth.of_type("AWS::Logs::MetricFilter").values()
    }
    client = {int(code) for code in re.findall(r'"(\d{3})"', patterns[constants.API_CLIENT_ERRORS_METRIC])}
    assert client == {401, 403, 404, 422, 429}
    refusals = {int(code) for code in re.findall(r'"(\d{3})"', patterns[constants.API_GUARD_REFUSALS_METRIC])}
    assert refusals == {409, 412}
    watched = {stat["Metric"]["MetricName"] for alarm in _alarms(synth.json).values() for stat in _stats(alarm)}
    assert constants.API_CLIENT_ERRORS_METRIC in watched
    assert constants.API_GUARD_REFUSALS_METRIC not in watched  # drawn on the dashboard, never alarmed
    assert "4XXError" not in watched  # API Gateway's 4xx counts 409 and 412 too


# --- cost ------------------------------------------------------------------------------------------------------


def _alarm_metrics(template: dict[str, Any]) -> int:
    return sum(len(_stats(alarm)) for alarm in _alarms(template).values())


def test_the_lean_profile_keeps_an_idle_month_under_five_dollars(operator_template: dict[str, Any]) -> None:
    # $0.10 per alarm metric, $1 for the KMS key; no dashboard in the lean profile.
    assert _of_type(operator_template, "AWS::CloudWatch::Dashboard") == {}
    assert _alarm_metrics(operator_template) * 0.10 + len(_of_type(operator_template, "AWS::KMS::Key")) <= 5.0
