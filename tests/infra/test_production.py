"""Production as `make synth ENV=prod` builds it from config/prod.json (plus the pager and the mail sender the file
must still be told): a web ACL with per-client limits on the stage, throttles from the configuration as
docs/capacity.md sizes them, a backup plan, access logs kept more than a year, pinned to its account and region, and
every Critical alarm listed here with what a person must do about it (docs/operations.md says how)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from infra import cost_model, edge
from routes import ROUTES

from .conftest import REPO_ROOT
from .cost_figures import edge_sizing

if TYPE_CHECKING:
    from conftest import Synth

PROD = json.loads((REPO_ROOT / "config" / "prod.json").read_text(encoding="utf-8"))

# Every kind of Critical alarm production has, and what the person it pages must do (docs/operations.md has the
# commands). Anything that does not need a human now is a Warning, never listed here.
CRITICAL_ACTIONS: dict[str, str] = {
    r"[A-Za-z]+-Fault-Count": "read the function's errors; undo the deploy that broke it, or fix the cause",
    r"[A-Za-z]+-Throttled-Count": "raise the account's concurrency quota or the function's reservation",
    r"Api[A-Za-z]+-Fault-Rate": "find who answered the route's 5xx in the access log and follow that function",
    r"TableGuards-TableSystemErrors": "confirm DynamoDB's own outage (Health Dashboard) and open a support case",
    r"Integrity-BusyRate": "tell one racing caller from a hot partition: back the caller off, or relieve the table",
    r"Integrity-LockAuditUnrepaired": "decide which account keeps the value; make lock-remedy for the other",
    r"Settlement-IteratorAge": "fix the settlement's errors; sweep now so nothing waits",
    r"Settlement-FailureQueue": "fix the cause, sweep, then read and delete the queue's messages",
    r"Settlement-OldestUnsettled": "restart settlement: sweep now, find why the sweeper or the stream stopped",
    r"Pager-Test": "confirm the test page arrived; nothing else",
}


def _resources(synth: Synth, kind: str) -> list[dict[str, Any]]:
    return [value for value in synth.of_type(kind).values()]


def test_prod_has_a_web_acl_with_per_client_limits_on_its_stage(prod_synth: Synth) -> None:
    ((acl_id, acl),) = prod_synth.of_type("AWS::WAFv2::WebACL").items()
    rules = {rule["Name"]: rule for rule in acl["Properties"]["Rules"]}
    assert list(rules) == [
        "RateLimitPerToken",
        "RateLimitPerIp",
        *(name for _vendor, name, _counted in edge.MANAGED_RULE_GROUPS),
    ]
    token = rules["RateLimitPerToken"]["Statement"]["RateBasedStatement"]
    assert token["Limit"] == PROD["wafTokenRateLimit"] and token["EvaluationWindowSec"] == 60
    assert token["CustomKeys"][0]["Header"]["Name"] == "authorization"
    assert rules["RateLimitPerIp"]["Statement"]["RateBasedStatement"]["Limit"] == PROD["wafIpRateLimit"]
    for name in ("RateLimitPerToken", "RateLimitPerIp"):
        assert rules[name]["Action"]["Block"]["CustomResponse"]["ResponseCode"] == 429
    common = rules["AWSManagedRulesCommonRuleSet"]["Statement"]["ManagedRuleGroupStatement"]
    assert common["RuleActionOverrides"] == [{"Name": "SizeRestrictions_BODY", "ActionToUse": {"Count": {}}}]
    ((association),) = _resources(prod_synth, "AWS::WAFv2::WebACLAssociation")
    assert association["Properties"]["WebACLArn"] == {"Fn::GetAtt": [acl_id, "Arn"]}
    (stage_id,) = prod_synth.of_type("AWS::ApiGateway::Stage")
    assert stage_id in association.get("DependsOn", [])
    assert association["Properties"]["ResourceArn"]["Fn::Join"][1][-2:] == ["/stages/", {"Ref": stage_id}]
    ((logging),) = _resources(prod_synth, "AWS::WAFv2::LoggingConfiguration")
    assert logging["Properties"]["RedactedFields"] == [{"SingleHeader": {"Name": "authorization"}}]


def test_prod_throttles_come_from_its_configuration_as_docs_capacity_sizes_them(prod_synth: Synth) -> None:
    (stage,) = _resources(prod_synth, "AWS::ApiGateway::Stage")
    routes = [s for s in stage["Properties"]["MethodSettings"] if s["ResourcePath"] != "/*"]
    sizing = edge_sizing()
    assert len(routes) == len(ROUTES)
    assert {(s["ThrottlingRateLimit"], s["ThrottlingBurstLimit"]) for s in routes} == {
        (sizing.route_rate, sizing.route_burst)
    }
    assert sizing.route_rate >= cost_model.busiest_route_need()


def test_prod_backs_the_table_up_daily_and_keeps_access_logs_more_than_a_year(prod_synth: Synth) -> None:
    ((plan),) = _resources(prod_synth, "AWS::Backup::BackupPlan")
    (rule,) = plan["Properties"]["BackupPlan"]["BackupPlanRule"]
    assert rule["Lifecycle"]["DeleteAfterDays"] == PROD["backupRetentionDays"]
    assert rule["ScheduleExpression"].startswith("cron(17 5 ")
    ((selection),) = _resources(prod_synth, "AWS::Backup::BackupSelection")
    (table_id,) = prod_synth.of_type("AWS::DynamoDB::Table")
    assert {"Fn::GetAtt": [table_id, "Arn"]} in selection["Properties"]["BackupSelection"]["Resources"]
    kept = {
        value["Properties"].get("LogGroupName", logical_id): value["Properties"]["RetentionInDays"]
        for logical_id, value in prod_synth.of_type("AWS::Logs::LogGroup").items()
        if value.get("DeletionPolicy") == "RetainExceptOnCreate"
    }
    assert len(kept) == 2 and set(kept.values()) == {PROD["accessLogRetentionDays"]}
    assert PROD["accessLogRetentionDays"] >= 365
    table = prod_synth.resources[table_id]["Properties"]
    assert table["SSESpecification"]["SSEType"] == "KMS"  # prod's customer-managed key


def test_prod_is_pinned_to_its_account_and_region(prod_synth: Synth) -> None:
    assert (prod_synth.stack.account, prod_synth.stack.region) == (PROD["account"], PROD["region"])


def test_every_critical_alarm_of_prod_is_listed_with_what_a_person_must_do(prod_synth: Synth) -> None:
    names = [value["Properties"]["AlarmName"] for value in _resources(prod_synth, "AWS::CloudWatch::Alarm")]
    critical = [name.removeprefix("ddbguard-prod-").removesuffix("-Critical") for name in names if "-Critical" in name]
    assert len(critical) > 60
    used = set()
    for name in critical:
        matching = [pattern for pattern in CRITICAL_ACTIONS if re.fullmatch(pattern, name)]
        assert len(matching) == 1, f"{name}: listed {len(matching)} times"
        used |= set(matching)
    assert used == set(CRITICAL_ACTIONS)  # nothing listed that no longer pages
    runbook = (REPO_ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    for pattern in CRITICAL_ACTIONS:
        heading = pattern.replace("[A-Za-z]+-Fault-Count", "<Function>-Fault-Count")
        heading = heading.replace("[A-Za-z]+-Throttled-Count", "<Function>-Throttled-Count")
        heading = heading.replace("Api[A-Za-z]+", "Api<Route>")
        assert f"## `ddbguard-<env>-{heading}-Critical`" in runbook, pattern
